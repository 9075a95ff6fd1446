//! Enums: named values of an unsigned integer (`enum Color : u8 { Red = 0  Green = 1 }`).
//!
//! On the wire an enum is its representation (`u8`, `u16` or `u32`), inline like any
//! scalar, so every enum is also a [`Scalar`](crate::Scalar): fields and strided lists of
//! enums read and write with the same getters and setters as integers. A reader meets
//! numbers that a newer schema added: the generated Rust enum keeps them in its
//! `Unknown(raw)` arm, and writing `Unknown(raw)` writes `raw` back, so a value passes
//! through a peer that does not know it unchanged.
//!
//! In JSON a known value is its name (`"Red"`) and an unknown one its number (`7`);
//! reading accepts both (see [`crate::json::enum_value`]).

use crate::scalar::{sealed, Scalar};

/// What generated enums (and `#[derive(Zap)]` on a Rust enum) implement.
///
/// ```
/// use zap_runtime::{Builder, Message, ZapEnum};
///
/// #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
/// enum Color { #[default] Red, Green, Unknown(u8) }
///
/// impl ZapEnum for Color {
///     type Repr = u8;
///     const NAME: &'static str = "Color";
///     const VALUES: &'static [(&'static str, u8)] = &[("Red", 0), ("Green", 1)];
///     fn from_repr(raw: u8) -> Self {
///         match raw { 0 => Color::Red, 1 => Color::Green, n => Color::Unknown(n) }
///     }
///     fn to_repr(self) -> u8 {
///         match self { Color::Red => 0, Color::Green => 1, Color::Unknown(n) => n }
///     }
/// }
///
/// let mut b = Builder::new();
/// let mut obj = b.start_object(2);
/// obj.set(0, Color::Green);
/// obj.set(1, Color::Unknown(9));
/// obj.finish_as_root();
/// let msg = Message::parse(b.finish()?).unwrap();
/// assert_eq!(msg.root().get::<Color>(0), Color::Green);
/// assert_eq!(msg.root().get::<Color>(1), Color::Unknown(9));
/// assert_eq!(msg.root().u8(1), 9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait ZapEnum: Copy + Default + PartialEq + core::fmt::Debug + 'static {
    /// The integer on the wire: `u8`, `u16` or `u32`.
    type Repr: Scalar + Into<u64> + TryFrom<u64>;
    /// The schema name (`Color`), for messages.
    const NAME: &'static str;
    /// Every declared value, `(name, number)`, in declaration order.
    const VALUES: &'static [(&'static str, Self::Repr)];

    /// The value with this number: a declared one, or `Unknown(raw)`.
    fn from_repr(raw: Self::Repr) -> Self;

    /// The number on the wire (`Unknown(raw)` gives `raw` back).
    fn to_repr(self) -> Self::Repr;

    /// The declared name of this value, `None` for a number the schema does not know.
    fn name(self) -> Option<&'static str> {
        let raw = self.to_repr();
        Self::VALUES
            .iter()
            .find(|(_, value)| *value == raw)
            .map(|(name, _)| *name)
    }

    /// The declared value called `name`.
    fn from_name(name: &str) -> Option<Self> {
        Self::VALUES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, raw)| Self::from_repr(*raw))
    }

    /// The value with number `raw`, if it fits the representation.
    fn from_u64(raw: u64) -> Option<Self> {
        Self::Repr::try_from(raw).ok().map(Self::from_repr)
    }
}

impl<T: ZapEnum> sealed::Sealed for T {}

impl<T: ZapEnum> Scalar for T {
    const WIDTH: usize = T::Repr::WIDTH;

    #[inline(always)]
    fn read_at(buf: &[u8], pos: usize) -> Option<Self> {
        T::Repr::read_at(buf, pos).map(T::from_repr)
    }

    #[inline(always)]
    fn write_at(self, buf: &mut [u8], pos: usize) {
        self.to_repr().write_at(buf, pos);
    }
}
