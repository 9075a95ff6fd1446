enum Color : u8 { Red = 0 }

struct Color { X u8 }

enum u16 : u16 { A = 0 }
