package cycle
import "import_cycle.zap"
