# The flat test vector schema (shared/vectors/flat.json): a scalar and two tails.
package golden

struct Golden {
    Magic u32 @0
    Name text @8
    Blob bytes @16
}
