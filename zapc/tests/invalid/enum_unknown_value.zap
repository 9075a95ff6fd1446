# `Unknown(n)` is the arm generated for numbers a reader does not know.
enum Status : u16 {
    Ok = 0
    Unknown = 1
}
