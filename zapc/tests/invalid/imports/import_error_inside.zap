# The error is in the imported file, and is reported there.
package root
import "lib_broken.zap"
