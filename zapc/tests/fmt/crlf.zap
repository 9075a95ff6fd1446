package crlf
struct A { X u8 @0 }
