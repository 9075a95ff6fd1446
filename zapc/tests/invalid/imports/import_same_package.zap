package root
import "lib_common.zap"
import "lib_common_again.zap"
