package indented
# The whitespace form in, braces out (and --indent keeps it).
struct Header
    Id     u64   # trailing
# A column-one comment inside the block stays inside.
    Name   text

    Tags   list<text>
    # After the last item and before a blank line: after the block.

# Doc of Chain.
interface Chain
    # Doc of submit.
    submit(h: Header) returns (r: Header) requires 0x3 json(name = "chain_submit", params = [Id, Name])
    height ( ) returns Header
struct Last
    X u8
