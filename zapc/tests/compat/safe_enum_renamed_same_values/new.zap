# The enum is renamed; representation and values are kept.
enum Colour : u8 {
    Red = 0
    Green = 1
    Blue = 2
}

struct Pixel {
    X u16 @0
    Color Colour @2
    Palette list<Colour> @8
}

interface Paint {
    paint(req: Pixel) returns (resp: Pixel)
}
