//! Fixed-width values that live inline in an object's fixed section or a strided list.

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// A fixed-width little-endian value: the integers, floats and `bool`, and every
/// [`ZapEnum`](crate::ZapEnum) (as its representation).
///
/// Reads are unaligned loads (the format puts a `u64` wherever the schema says).
pub trait Scalar: Copy + Default + PartialEq + core::fmt::Debug + sealed::Sealed {
    /// Width on the wire in bytes.
    const WIDTH: usize;
    /// Read the value at `pos`, or `None` if `pos + WIDTH` runs past `buf`.
    fn read_at(buf: &[u8], pos: usize) -> Option<Self>;
    /// Write the value at `pos`. The caller guarantees `pos + WIDTH <= buf.len()`.
    fn write_at(self, buf: &mut [u8], pos: usize);
}

macro_rules! number_scalar {
    ($($t:ty => $w:literal),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Scalar for $t {
            const WIDTH: usize = $w;
            #[inline(always)]
            fn read_at(buf: &[u8], pos: usize) -> Option<Self> {
                let bytes = buf.get(pos..)?.first_chunk::<$w>()?;
                Some(<$t>::from_le_bytes(*bytes))
            }
            #[inline(always)]
            fn write_at(self, buf: &mut [u8], pos: usize) {
                buf[pos..pos + $w].copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}

number_scalar!(
    u8 => 1, u16 => 2, u32 => 4, u64 => 8,
    i8 => 1, i16 => 2, i32 => 4, i64 => 8,
    f32 => 4, f64 => 8,
);

impl sealed::Sealed for bool {}
impl Scalar for bool {
    const WIDTH: usize = 1;
    #[inline(always)]
    fn read_at(buf: &[u8], pos: usize) -> Option<Self> {
        buf.get(pos).map(|b| *b != 0)
    }
    #[inline(always)]
    fn write_at(self, buf: &mut [u8], pos: usize) {
        buf[pos] = u8::from(self);
    }
}
