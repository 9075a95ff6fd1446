# A schema on its third release: constants, explicit method ordinals, reserved ordinals
# and field slots, and deprecation (docs/evolution.md). Nothing here changes how a schema
# without these constructs is laid out.
package evolution

# How many accounts one `list` call returns at most.
const MAX_ACCOUNTS: u32 = 1000
const SERVICE_NAME: text = "ledger v3"
const STRICT: bool = true
const MIN_BALANCE: i64 = -9223372036854775808
const MAX_BALANCE: u64 = 18446744073709551615
const FLAG_FROZEN: u8 = 0x80
const maxRetries: u16 = 3
const OFFSET: i8 = -1

# An account as release 3 stores it.
struct Account {
    Id u64 @0
    # Superseded by `Handle`; still filled in for clients of release 2.
    Name text @8 deprecated json(name = "n")
    # Release 1 kept the balance here as a u32: the slot stays reserved.
    reserved Balance32 u32 @16
    Flags u8 @20
    Handle text @24
    # Release 2's `Legacy u64` (its offset follows from the previous slot: 32).
    reserved Legacy u64
}

# A point of a strided list, with a removed coordinate in the middle.
struct Point {
    X i32 @0
    reserved Z i32 @4
    Y i32 @8
}

# Release 1's request, kept for the clients that still send it.
struct LegacyQuery deprecated {
    Id u64 @0
}

struct Query {
    Id u64 @0
    Limit u32 @8
}

struct Page {
    Accounts list<Account> @0
    Path list<Point> @8
    # Echoes a legacy request: a field of a deprecated type.
    Legacy LegacyQuery @16
    Total u32 @20 deprecated
}

# A removed `text` slot keeps a list of `Archived` framed.
struct Archived deprecated {
    Id u64
    reserved Note text
    When u64
}

interface Ledger {
    # Reordered in release 3: the ordinals are written, so the order is free.
    get @2 (q: Query) returns (a: Account)
    ping @1 ()
    # Release 1's `getBalance32`.
    reserved @3
    lookup @4 (q: LegacyQuery) returns (a: Account) deprecated json(name = "ledger_lookupLegacy")
    list @7 (q: Query) returns (p: Page) json(params = [Limit])
    reserved @5
}

interface Admin {
    reserved @1
    status @2 () returns (a: Archived)
    shutdown @3 () requires 0x4 deprecated
}
