# The schema of the nested test vector (shared/vectors/nested.json), byte for byte the same
# layout: every scalar, text, bytes, bytes_fixed, a framed struct list, a struct pointer
# and a strided list<u32>.
package kitchen

struct Leaf {
    Tag u32 @0
    Note text @4
}  # size 12
struct Kitchen {
    Flag bool @0
    A8 u8 @1
    A16 u16 @2
    A32 u32 @4
    A64 u64 @8
    S8 i8 @16
    S16 i16 @18
    S32 i32 @20
    S64 i64 @24
    F32 f32 @32
    F64 f64 @40
    Name text @48
    Blob bytes @56
    Id bytes_fixed[16] @64
    Items list<Leaf> @80
    Inner Leaf @88
    Nums list<u32> @96
}  # size 104
