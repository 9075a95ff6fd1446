package bad

struct Request {
    Id    u63 @0
    Owner Account @8
}
