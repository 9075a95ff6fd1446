package bad

struct Bag { Items list<u32 @0 }
