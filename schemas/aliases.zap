# Aliases name a type once; fields, list elements and other aliases use the name.
package aliases

type address = bytes_fixed[20]
type hash32 = bytes_fixed[32]
type blockhash = hash32   # an alias of an alias
type amounts = list<u64>  # an alias of a list
type peer = Account       # an alias of a struct

struct Account {
    Owner address
    Root hash32
}

struct Transfer {
    From address
    To address
    Amounts amounts
    Parent blockhash
    Sender peer
    Hashes list<hash32>
}
