package first
package second

struct A { X u32 }
