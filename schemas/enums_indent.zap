# zapc fmt: indent
# Enums in the whitespace form: the header line, then one `Name = N` per indented line.
package enums_indent

# How urgent a message is.
enum Priority : u16
    Low = 0
    # Comments and blank lines may sit inside the block.

    High = 500
    Urgent = 65535

enum Channel : u8
    Mail = 1
    Phone = 2

struct Message
    Priority Priority
    Channels list<Channel>
    Body text
