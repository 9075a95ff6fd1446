# The imported file now says `package geometry`: type paths change, bytes and JSON do not.
package draw
import "geometry.zap"

struct Shape {
    Center geometry.Point @0
}
