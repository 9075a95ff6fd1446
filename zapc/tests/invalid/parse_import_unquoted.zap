package bad
import common.zap
