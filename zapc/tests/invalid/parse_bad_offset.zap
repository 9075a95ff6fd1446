package bad

struct Request { Id u64 @zero }
