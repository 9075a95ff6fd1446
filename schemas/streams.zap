# Streams: a method whose result is `stream T` sends any number of messages; a
# `stream T` parameter receives any number. The Go runtime's stream ordinals (10 echo,
# 11 count) are used so the generated client can drive its test peer.
package streams

# One message of a stream.
struct Note {
    Seq u32
    Text text
}

# How many messages to send.
struct CountRequest {
    N u32
}

# What a client stream added up.
struct Total {
    Notes u32
    Chars u64
}

interface Notes {
    # A call beside the streams.
    ping()
    # Every note sent comes back (a bidirectional stream).
    echo @10 (stream Note) returns stream Note
    # `N` notes, numbered from 0 (a server stream).
    count @11 (CountRequest) returns stream Note
    # Counts the notes sent, answered once at the end (a client stream).
    tally @12 (stream Note) returns Total
    # An opening message, then notes both ways.
    relay @13 (start: CountRequest, stream Note) returns stream Note requires 0x2
}
