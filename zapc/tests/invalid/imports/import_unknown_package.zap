package root
import "lib_common.zap"

struct Drawing {
    At common.Point @0
    Pen pens.Pen @4
}
