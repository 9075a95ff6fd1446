package bad

type row = list<u8>

struct Matrix {
    Cells list<list<u8>>
    Rows  list<row>
}
