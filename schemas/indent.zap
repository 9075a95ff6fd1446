# The whitespace form: a header without `{` opens a block of indented lines (spaces only).
# Both forms mix freely, one top-level declaration at a time; `zapc fmt` writes one of them,
# and the next line asks it for this one.
# zapc fmt: indent
package xvm

type id32 = bytes_fixed[32]

struct BaseTx
    NetworkID u32
    BlockchainID id32
    # The memo is free-form.
    Memo bytes

struct Output
    Amount u64
    Owner id32

struct Tx
    Base BaseTx

    Outputs list<Output>  # blank lines inside a block are fine

interface Chain
    submit(tx: Tx) returns (id: Output)
    height()
