#![doc = include_str!("../README.md")]

mod attr;
mod ctxt;
mod enums;
mod expand;
mod types;

#[cfg(test)]
mod parity_tests;

use proc_macro::TokenStream;

/// `#[derive(Zap)]`: a zero-copy reader (`<Name>Reader`), a builder (`<Name>Builder`),
/// `zap_runtime::ZapStruct`, the JSON mapping (serde `Serialize`/`Deserialize`) and the
/// layout constants (`Name::SIZE`, `Name::<FIELD>_OFFSET`) for a struct with named
/// fields; `zap_runtime::ZapEnum`, `Default`, `From` both ways and the JSON mapping for a
/// fieldless enum with `#[repr(u8|u16|u32)]` and an `Unknown(repr)` variant. See the
/// crate documentation for the attributes and the type mapping.
#[proc_macro_derive(Zap, attributes(zap))]
pub fn derive_zap(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
