package root
import "lib_common.zap"
import "no_such_file.zap"
