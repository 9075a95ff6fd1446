package bad

type a = b
type b = c
type c = a
type self = self

struct User { Id a }
