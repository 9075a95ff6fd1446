# Enums: named values of an unsigned integer. A field of enum type is that integer on the
# wire, inline; readers keep values they do not know in `Unknown(n)`.
package enums

# The colour of a pixel.
enum Color : u8 {
    Red = 0
    Green = 1
    # Added in the second version: older readers see `Unknown(7)`.
    Blue = 7
}

# Numbers need not be contiguous (the whitespace form of an enum is in enums_indent.zap).
enum Level : u16 {
    Debug = 10
    Info = 20
    # A comment line inside the block.

    Error = 40000
}

# No value is 0, so the default is `Unknown(0)`.
enum Flag : u32 {
    Low = 1
    High = 4000000000
}

# Value names are the JSON form, in any case; a Rust keyword becomes a raw identifier.
enum mode : u8 {
    fast = 0
    safe = 1
    type = 2
}

type Shade = Color

# All inline (enums are inline): a list of these is strided.
struct Pixel {
    X u16
    Y u16
    Color Color
    Shade Shade
}

struct Event {
    Id u64 @0
    Level Level @8
    Flags list<Flag> @16
    Pixels list<Pixel> @24
    Colors list<Color> @32
    Mode mode @40 json(name = "how")
    Note text @48
}

# Every enum width as a field and in a list: what the interop test sends both ways with the
# Python runtime, which has no enums and reads each as its integer.
struct Palette {
    Main Color
    Level Level
    Flags list<Flag>
    Colors list<Color>
    Mode mode
    Name text
}

struct LevelRequest {
    Level Level
}

struct LevelResponse {
    Previous Level
    Count u32
}

interface Logs {
    setLevel(req: LevelRequest) returns (resp: LevelResponse) json(result = Previous)
}
