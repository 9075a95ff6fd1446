enum Color {
    Red = 0
}
