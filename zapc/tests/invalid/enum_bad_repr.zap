enum Wide : u64 {
    A = 0
}

enum Signed : i8 { A = 0 }

enum Named : Color { A = 0 }
