package   newer
import"common.zap"   # the snapshot test reads imports from schemas/

const MAX:u32=1000
const NAME : text = "x"
const LOW: i8 = -1

struct Entry   deprecated{
    Id u64@0
    At   common.Location   @8   deprecated   json( name="where" )
    reserved   Old u32 @12
    Notes list< common.Note >@16
}

interface Book{
    get@2(e:Entry)returns(n:common.Note)
    ping  @1 ( )
    reserved@3
}
