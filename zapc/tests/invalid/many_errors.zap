package many
package again

type loop = loop

struct Order {
    Id      u64     @0
    Amount  u65     @8
    Id      u32     @12
    Blob    bytes_fixed[0]
    Refs    ptr<Order>
    Grid    list<list<u32>>
}

struct Order { X u8 }

interface Shop {
    buy(o: Order, p: Order) returns (n: u64)
}
