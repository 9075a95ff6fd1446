package root
import "lib_common.zap"

struct Drawing {
    # A misspelt imported type.
    At common.Pont @0
    # An imported type without its package.
    To Point @4
    # An interface is not a type, imported or not.
    Via common.Plotter @8
}
