enum Color : u8 { Red = 0  Green = 1 }

struct Palette {
    Colors list<ptr<Color>>
    Main Colour
    Hex Color json(quantity)
}

interface Paint {
    mix(c: Color) returns Color
}
