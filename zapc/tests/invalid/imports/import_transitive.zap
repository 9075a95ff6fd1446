# lib_middle.zap imports lib_common.zap; this file does not, so it cannot name its types.
package root
import "lib_middle.zap"

struct Path {
    Parts list<middle.Segment> @0
    Start common.Point @8
}
