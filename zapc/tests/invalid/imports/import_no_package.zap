package root
import "lib_no_package.zap"
