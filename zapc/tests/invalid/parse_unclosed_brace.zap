package bad

struct Request {
    Id u64 @0
    Name text @8
