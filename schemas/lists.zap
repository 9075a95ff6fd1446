# Every list shape: strided (scalars, bytes_fixed, all-inline structs), framed (text,
# bytes, structs with a pointer field) and pointer lists.
package lists

# All fields inline: a list<Point> is strided, 8 bytes per element.
struct Point {
    X u32
    Y u32
}

# A text field: a list<Named> is framed.
struct Named {
    Id u32
    Label text
}

struct Lists {
    Numbers list<u64>             # strided, width 8
    Flags list<bool>              # strided, width 1
    Hashes list<bytes_fixed[32]>  # strided, width 32
    Points list<Point>            # strided, width 8
    Names list<Named>             # framed
    Words list<text>              # framed
    Blobs list<bytes>             # framed
    Refs list<ptr<Named>>         # pointer list
}
