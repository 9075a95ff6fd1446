# This file imports lib_cycle.zap, which imports this file back.
package root
import "lib_cycle.zap"
