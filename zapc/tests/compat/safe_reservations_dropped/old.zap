struct Account {
    Id u64 @0
    reserved Balance32 u32 @8
    Flags u8 @12
}
interface Bank {
    get @1 (req: Account) returns (resp: Account)
    reserved @2
}
