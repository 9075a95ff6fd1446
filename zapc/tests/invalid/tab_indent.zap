package bad

struct Tabbed
    Id u64
	Name text
