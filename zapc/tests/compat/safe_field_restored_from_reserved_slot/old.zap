struct Account {
    Id u64 @0
    reserved Balance u32 @8
    Flags u8 @12
}
interface Bank {
    get(req: Account) returns (resp: Account)
}
