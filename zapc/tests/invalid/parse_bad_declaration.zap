package bad

message Request {
    Id u64
}
