package clash

# `self` is generated as the variant `self_` (it cannot be a raw identifier), which is
# also what `self_` is generated as.
enum Who : u8 {
    self = 0
    self_ = 1
    other = 2
}
