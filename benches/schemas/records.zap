# The record of the owned-answer benchmark: a 1 KiB text, a bytes field and a
# 32-element list, answered by `get`; and the payload of the vectored-write echo.
package records

# All fields inline: a list<Item> is strided, 16 bytes per element.
struct Item { Id u64  Score u32  Rank u32 }

struct Record {
    Id    u64
    Name  text
    Blob  bytes
    Items list<Item>
}

struct RecordQuery { Id u64 }

struct Payload { Data bytes }

interface Records {
    get(q: RecordQuery) returns (r: Record)
    echo(p: Payload) returns (p: Payload)
}
