# Types from another file: `import` reads it (the path is relative to this file), and its
# types are named with its package, `common.Note`; generated code names them
# `super::common::Note`, from the sibling module generated for common.zap.
package imports

import "common.zap"

# A report about a text, built from the shared types.
struct Report {
    Id u64 @0
    Where common.Location @8
    Notes list<common.Note> @12
    Corners list<common.Location> @20
    Digest common.hash32 @28
    # The worst level among the notes: an imported enum is its integer on the wire.
    Worst common.Severity @60
}

interface Reports {
    # File a report; the answer is its first note.
    submit(report: Report) returns (first: common.Note)
}
