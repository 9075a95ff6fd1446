//! The part of every struct's companions that does not depend on its fields, written
//! once here instead of in every generated file: the reader and builder types, their
//! layout-independent methods, and the marker impls. zapc and `#[derive(Zap)]` invoke
//! [`struct_companions!`](crate::__private::struct_companions) and generate only the
//! getters, setters and field lists.
//!
//! The inherent methods forward to [`StructReader`](crate::StructReader) and
//! [`ZapStruct`](crate::ZapStruct), whose default methods hold the logic; they exist so
//! that users call `BalanceRequestReader::parse(buf)` without importing a trait.

/// Declares `$reader<'a>` and `$builder<'b>` for the ZAP struct `$owner` (schema name
/// `$name`), with `$vis`, the given attributes (`#[deprecated]`), and the `where`
/// predicates in `bounds` on every impl (the derive's `Child: NestedStruct` checks).
#[doc(hidden)]
#[macro_export]
macro_rules! __struct_companions {
    (
        $(#[$attr:meta])*
        $vis:vis struct $owner:ident as $name:literal {
            reader: $reader:ident,
            builder: $builder:ident,
            bounds: { $($bounds:tt)* },
        }
    ) => {
        #[doc = concat!(
            "Zero-copy reader of `", $name, "`: the fixed section's bounds are checked once, ",
            "then each of its fields is a load."
        )]
        $(#[$attr])*
        #[derive(::core::clone::Clone, ::core::marker::Copy)]
        #[allow(deprecated)] // its size is the owner's, which may be deprecated
        $vis struct $reader<'a> {
            obj: $crate::Fixed<'a, { <$owner as $crate::ZapStruct>::SIZE }>,
        }

        #[doc = concat!(
            "Builds a `", $name, "` in place: setters in field order give the canonical bytes."
        )]
        $(#[$attr])*
        $vis struct $builder<'b> {
            obj: $crate::ObjectBuilder<'b>,
        }

        #[allow(deprecated)]
        const _: () = {
            impl<'a> $reader<'a> where $($bounds)* {
                /// View an object (e.g. a message root or a list element) as this struct.
                #[inline]
                pub fn from_object(obj: $crate::Object<'a>) -> Self {
                    Self { obj: $crate::Fixed::new(obj) }
                }

                /// Parse a complete message and view its root.
                #[inline]
                pub fn parse(buf: &'a [u8]) -> ::core::result::Result<Self, $crate::ParseError> {
                    <Self as $crate::StructReader<'a>>::parse(buf)
                }

                /// The underlying object view.
                #[inline]
                pub fn as_object(&self) -> $crate::Object<'a> {
                    self.obj.as_object()
                }

                /// Copy every field into the owned type.
                pub fn to_value(&self) -> $owner {
                    <$owner as $crate::ZapStruct>::from_reader(*self)
                }
            }

            impl<'a> $crate::StructReader<'a> for $reader<'a> where $($bounds)* {
                #[inline]
                fn from_object(obj: $crate::Object<'a>) -> Self {
                    Self { obj: $crate::Fixed::new(obj) }
                }

                #[inline(always)]
                fn from_element(obj: $crate::Object<'a>, fixed: ::core::option::Option<&'a [u8]>) -> Self {
                    Self { obj: $crate::Fixed::from_element(obj, fixed) }
                }

                #[inline]
                fn as_object(&self) -> $crate::Object<'a> {
                    self.obj.as_object()
                }
            }

            impl<'b> $builder<'b> where $($bounds)* {
                /// Start the object on `b` (as the root, finish with
                /// [`Self::finish_message`]; as a child, with [`Self::finish`]).
                pub fn new(b: &'b mut $crate::Builder) -> Self {
                    Self { obj: b.start_object(<$owner as $crate::ZapStruct>::SIZE) }
                }

                /// The runtime builder, to build children while this object is open.
                pub fn builder(&mut self) -> &mut $crate::Builder {
                    self.obj.builder()
                }

                /// Finish as a child object; returns its position for the parent's pointer.
                #[must_use = "a child object is reachable only once a parent points at it"]
                pub fn finish(self) -> $crate::Offset<$owner> {
                    $crate::Offset::new(self.obj.finish())
                }

                /// Finish as the root object and finish the message; returns its bytes,
                /// or why the message cannot be written (over the builder's limit).
                pub fn finish_message(self) -> ::core::result::Result<&'b [u8], $crate::BuildError> {
                    self.obj.finish_message()
                }
            }

            /// Where the object is in the message being built, not the bytes.
            impl ::core::fmt::Debug for $builder<'_> {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct(::core::stringify!($builder))
                        .field("object", &self.obj)
                        .finish()
                }
            }

            impl $crate::__private::NestedStruct for $owner {}
        };
    };
}
