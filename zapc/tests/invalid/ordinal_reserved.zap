package bad

interface Store
    # Release 1's `getOld`.
    reserved @2
    ping @1 ()
    # Takes ordinal 2 by its position: the reserved one.
    pong ()
    again @2 ()
    reserved @2
