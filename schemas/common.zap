# Types shared by other schemas (schemas/imports.zap): a file that says
# `import "common.zap"` names them `common.Location`, `common.Note`, `common.hash32`,
# `common.Severity`.
package common

# How bad a note is.
enum Severity : u8 {
    Info = 0
    Warning = 1
    Error = 2
}

type hash32 = bytes_fixed[32]

# A place in a text: all fields inline, so a list<common.Location> is strided.
struct Location {
    Line u32 @0
    Column u32 @4
}

# A remark about a place (a text field: a list of notes is framed).
struct Note {
    Text text @0
    At Location @8
    Digest hash32 @12
    Level Severity @44
}
