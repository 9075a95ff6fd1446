package bad

struct Request {
    Id @0
}
