struct Account {
    Id u64 @0
    Flags u8 @12
}
interface Bank {
    get @1 (req: Account) returns (resp: Account)
}
