enum Nothing : u8 {}
