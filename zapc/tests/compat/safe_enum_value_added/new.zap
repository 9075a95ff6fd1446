# A value is added: old readers keep it as Unknown(3).
enum Color : u8 {
    Red = 0
    Green = 1
    Blue = 2
    # New in this version.
    Purple = 3
}

struct Pixel {
    X u16 @0
    Color Color @2
    Palette list<Color> @8
}

interface Paint {
    paint(req: Pixel) returns (resp: Pixel)
}
