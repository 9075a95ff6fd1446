# A new enum, and a field of it in bytes the old struct left unused.
enum Color : u8 {
    Red = 0
    Green = 1
    Blue = 2
}

struct Pixel {
    X u16 @0
    Color Color @2
    Palette list<Color> @8
}

interface Paint {
    paint(req: Pixel) returns (resp: Pixel)
}
