# This file's package is the package of the file it imports.
package common
import "lib_common.zap"
