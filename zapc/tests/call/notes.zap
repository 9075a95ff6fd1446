# The service `zapc call` is tested against (tests/cli_call.rs serves it by hand).
package notes

struct Note {
    Id u64 @0
    Text text @8
}

interface Notes {
    # Answers the note it is given.
    echo(req: Note) returns (resp: Note)
    # Always fails with application error 42.
    missing(req: Note) returns (resp: Note)
    # The number of notes: no request.
    count() returns (Note)
    # Notes numbered from 0 to the request's Id - 1 (a server stream).
    list @4 (req: Note) returns stream Note
    # Each note sent comes back, its text upper-cased (a bidirectional stream).
    shout @5 (stream Note) returns stream Note
    # The notes sent, their texts joined, answered once at the end (a client stream).
    join @6 (stream Note) returns Note
}
