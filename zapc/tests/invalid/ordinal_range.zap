package bad

interface Store {
    ping @0 ()
    pong @4294967296 ()
    reserved @0
    reserved @99999999999999999999
}
