enum Color : u8 {
    Red = 0
    Green = 1
    Red = 2
    Blue = 1
}
