package bad

struct Leaf { Tag u32 }

struct Tree {
    Root   ptr<Leaf>
    Leaves list<ptr<Leaf>>
    Counts list<ptr<u32>>
}
