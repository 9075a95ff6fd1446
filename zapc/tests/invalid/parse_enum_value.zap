enum Color : u8 {
    Red 0
}
