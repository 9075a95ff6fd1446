# The field becomes a plain u8: same byte, JSON shows the number.
enum Color : u8 {
    Red = 0
    Green = 1
    Blue = 2
}

struct Pixel {
    X u16 @0
    Color u8 @2
    Palette list<u8> @8
}

interface Paint {
    paint(req: Pixel) returns (resp: Pixel)
}
