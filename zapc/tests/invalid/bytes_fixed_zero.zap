package bad

struct Empty {
    Nothing bytes_fixed[0] @0
    Huge    bytes_fixed[4294967296]
}
