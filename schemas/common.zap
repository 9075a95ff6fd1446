# Types shared by other schemas (schemas/imports.zap): a file that says
# `import "common.zap"` names them `common.Location`, `common.Note`, `common.hash32`.
package common

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
}
