

# A header comment, then a blank line: documents nothing.


package   comments    # trailing, after the package

# Two blank lines above collapse into one.
type  id = bytes_fixed [ 32 ]   # an alias
type ids=list < id >

struct   A {   # after the brace
    # Doc of X.
    X   u32   @0    json( name="x" )   # trailing on X


    #No space after the hash.
    Y  text@8
    # The last comment of the block, before the brace.
}   # after the closing brace
# Doc of B, directly above it.
struct B { P u8 @0  Q u16 @2 }  # a one-line block becomes one item per line
struct Empty { }
