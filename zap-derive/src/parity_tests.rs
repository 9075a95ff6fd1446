//! The derive expands to exactly what zapc generates for the same struct in a schema: one
//! IR, one layout, one code generator. The companions (constants, reader, builder,
//! `ZapStruct`) are token for token the same; only the JSON mapping differs in form (impls
//! through shadow structs, since a derive cannot annotate the user's struct), and the
//! JSON parity is shown on values in `tests/parity.rs`.

use proc_macro2::TokenStream;
use quote::quote;

use zapc::codegen::{names, structs, Options};

use crate::expand::{expand, lower, Lowered};

fn pretty(tokens: TokenStream) -> String {
    prettyplease::unparse(&syn::parse2::<syn::File>(tokens).unwrap())
}

fn schema_struct(file: &str, name: &str) -> zapc::ir::Struct {
    let path = format!("{}/../schemas/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let schema = zapc::load_str(file, &text).unwrap_or_else(|e| panic!("{}", e.render()));
    schema.struct_named(name).unwrap().clone()
}

/// zapc's companions for `name` in `schemas/<file>`.
fn zapc_items(file: &str, name: &str) -> String {
    pretty(structs::schema_companions(
        &schema_struct(file, name),
        &Options::default(),
    ))
}

/// The derive's expansion, less the trailing JSON block: the companions.
fn derive_items(input: TokenStream) -> String {
    let parsed: syn::DeriveInput = syn::parse2(input).unwrap();
    let expanded = pretty(expand(&parsed).unwrap());
    let Lowered { ir, rust, opts } = lower(&parsed).unwrap();
    // The front ends agree on the model and on the names before any code is compared.
    let zapc = schema_struct_for(&ir.name);
    assert_eq!(
        ir.fields.len(),
        zapc.fields.len(),
        "field count of {}",
        ir.name
    );
    assert_eq!(
        rust.fields.len(),
        ir.fields.len(),
        "one RustField per field"
    );
    for ((d, z), r) in ir.fields.iter().zip(&zapc.fields).zip(&rust.fields) {
        assert_eq!(
            (&d.name, d.offset, d.width, &d.ty, &d.json),
            (&z.name, z.offset, z.width, &z.ty, &z.json),
            "{}",
            z.name
        );
        assert_eq!(r.ident, names::field_ident(&z.name), "{}", z.name);
    }
    assert_eq!((ir.size, ir.list_shape), (zapc.size, zapc.list_shape));
    let companions = pretty(structs::schema_companions(&ir, &opts));
    assert!(
        expanded.starts_with(&companions),
        "the derive's companions differ from zapc's:\n{expanded}"
    );
    companions
}

/// The schema struct a twin stands for (the twins below are all of eth.zap or
/// kitchen.zap).
fn schema_struct_for(name: &str) -> zapc::ir::Struct {
    match name {
        "BalanceRequest" | "BalanceResponse" => schema_struct("eth.zap", name),
        "Pixel" | "Event" => schema_struct("enums.zap", name),
        _ => schema_struct("kitchen.zap", name),
    }
}

/// The twins spell field types as zapc's owned types do.
#[test]
fn eth_twins_expand_to_zapc_output() {
    let request = quote! {
        pub struct BalanceRequest {
            /// The caller's number for this request, echoed in the answer.
            pub id: u64,
            /// A block number, or a block tag (`latest`, `pending`, `safe`, `finalized`) as a
            /// reserved value near u64::MAX; `earliest` is block 0.
            #[zap(json(quantity, block_tags))]
            pub block: u64,
            /// The account.
            pub account: [u8; 20],
        }
    };
    assert_eq!(
        derive_items(request),
        zapc_items("eth.zap", "BalanceRequest")
    );
    let response = quote! {
        pub struct BalanceResponse {
            /// The request's `Id`.
            pub id: u64,
            /// The balance, in wei.
            #[zap(json(quantity))]
            pub balance: u64,
            /// The number of transactions the account has sent.
            #[zap(offset = 16, json(quantity))]
            pub nonce: u64,
            /// The hash of the block the balance was read at.
            pub block_hash: [u8; 32],
        }
    };
    assert_eq!(
        derive_items(response),
        zapc_items("eth.zap", "BalanceResponse")
    );
}

#[test]
fn kitchen_twins_expand_to_zapc_output() {
    let leaf = quote! {
        pub struct Leaf {
            pub tag: u32,
            pub note: ::std::string::String,
        }
    };
    assert_eq!(derive_items(leaf), zapc_items("kitchen.zap", "Leaf"));
    let kitchen = quote! {
        pub struct Kitchen {
            pub flag: bool,
            pub a8: u8,
            pub a16: u16,
            pub a32: u32,
            pub a64: u64,
            pub s8: i8,
            #[zap(offset = 18)]
            pub s16: i16,
            pub s32: i32,
            pub s64: i64,
            pub f32: f32,
            #[zap(offset = 40)]
            pub f64: f64,
            pub name: ::std::string::String,
            pub blob: ::std::vec::Vec<u8>,
            pub id: [u8; 16],
            pub items: ::std::vec::Vec<Leaf>,
            pub inner: ::core::option::Option<::std::boxed::Box<Leaf>>,
            #[zap(offset = 96)]
            pub nums: ::std::vec::Vec<u32>,
        }
    };
    assert_eq!(derive_items(kitchen), zapc_items("kitchen.zap", "Kitchen"));
}

/// The layout half on its own: the derive's IR has zapc's offsets, widths, size and
/// list shape (the Rust spelling aside).
#[test]
fn kitchen_layout_matches_zapc() {
    let path = format!("{}/../schemas/kitchen.zap", env!("CARGO_MANIFEST_DIR"));
    let schema = zapc::load_str("kitchen.zap", &std::fs::read_to_string(path).unwrap()).unwrap();
    let input: syn::DeriveInput = syn::parse_quote! {
        struct Kitchen {
            flag: bool, a8: u8, a16: u16, a32: u32, a64: u64, s8: i8,
            #[zap(offset = 18)] s16: i16, s32: i32, s64: i64, f32: f32,
            #[zap(offset = 40)] f64: f64, name: String, blob: Vec<u8>, id: [u8; 16],
            items: Vec<Leaf>, inner: Option<Leaf>, #[zap(offset = 96)] nums: Vec<u32>,
        }
    };
    let derived = lower(&input).unwrap().ir;
    let zapc = schema.struct_named("Kitchen").unwrap();
    assert_eq!(
        (derived.size, derived.list_shape),
        (zapc.size, zapc.list_shape)
    );
    assert_eq!(derived.fields.len(), zapc.fields.len());
    for (d, z) in derived.fields.iter().zip(&zapc.fields) {
        assert_eq!(
            (&d.name, d.offset, d.width, &d.ty, &d.json),
            (&z.name, z.offset, z.width, &z.ty, &z.json),
            "{}",
            z.name
        );
    }
}

/// Inputs the derive refuses come back as errors, never a panic.
#[test]
fn refusals_are_errors() {
    let inputs = [
        quote!(
            enum E {
                A,
            }
        ),
        // No `Unknown`; `Unknown` of another width; a value with fields; a 64-bit or
        // signed representation; a number that does not fit; not a literal; generics.
        quote!(
            #[repr(u8)]
            enum E {
                A,
            }
        ),
        quote!(
            #[repr(u8)]
            enum E {
                A,
                Unknown(u16),
            }
        ),
        quote!(
            #[repr(u8)]
            enum E {
                A(u8),
                Unknown(u8),
            }
        ),
        quote!(
            #[repr(u64)]
            enum E {
                A,
                Unknown(u64),
            }
        ),
        quote!(
            #[repr(i8)]
            enum E {
                A,
                Unknown(i8),
            }
        ),
        quote!(
            #[repr(u8)]
            enum E {
                A = 256,
                Unknown(u8),
            }
        ),
        quote!(
            #[repr(u8)]
            enum E {
                A = 1 + 1,
                Unknown(u8),
            }
        ),
        quote!(
            #[repr(u8)]
            enum E<T> {
                A,
                Unknown(u8),
                X(T),
            }
        ),
        quote!(
            #[repr(u8)]
            enum E {
                Unknown(u8),
            }
        ),
        quote!(
            struct F {
                #[zap(enum = u64)]
                a: Color,
            }
        ),
        quote!(
            struct F {
                #[zap(enum = u8)]
                a: Option<Color>,
            }
        ),
        quote!(
            struct T(u32);
        ),
        quote!(
            struct G<T> {
                t: T,
            }
        ),
        quote!(
            struct U {
                a: usize,
                b: &'static str,
                c: (u8, u8),
                d: [u32; 4],
            }
        ),
        quote!(
            struct O {
                #[zap(offset = 0)]
                a: u64,
                #[zap(offset = 4)]
                b: u32,
            }
        ),
        quote!(
            struct K {
                #[zap(bogus)]
                a: u64,
            }
        ),
        quote!(union X { a: u32 }),
        quote!(
            struct L {
                a: Vec<Vec<u32>>,
                b: Option<u32>,
                c: Box<Leaf>,
                d: [u8; 0],
            }
        ),
        quote!(
            struct Z {
                #[zap(offset = 4294967295)]
                a: u64,
            }
        ),
    ];
    for input in inputs {
        let parsed: syn::DeriveInput = syn::parse2(input.clone()).unwrap();
        assert!(expand(&parsed).is_err(), "{input}");
    }
}

/// The schema enum `name` of `schemas/enums.zap`.
fn schema_enum(name: &str) -> zapc::ir::Enum {
    let path = format!("{}/../schemas/enums.zap", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let schema = zapc::load_str("enums.zap", &text).unwrap();
    schema.enum_named(name).unwrap().clone()
}

/// A derived enum expands to the companions zapc generates for the schema enum, token for
/// token, from the same IR (numbers explicit or counted as Rust counts discriminants).
#[test]
fn enum_twins_expand_to_zapc_output() {
    let twins = [
        (
            "Color",
            quote! {
                #[repr(u8)]
                pub enum Color { Red = 0, Green = 1, Blue = 7, Unknown(u8) }
            },
        ),
        (
            "Level",
            quote! {
                #[derive(Clone, Copy)]
                #[repr(u16)]
                pub enum Level { Debug = 10, Info = 20, Error = 40000, Unknown(u16) }
            },
        ),
        (
            "Flag",
            quote! {
                #[repr(u32)]
                pub enum Flag { Unknown(u32), Low, High = 4000000000 }
            },
        ),
        (
            "mode",
            quote! {
                #[repr(u8)]
                pub enum mode { fast, safe, r#type, Unknown(u8) }
            },
        ),
    ];
    for (name, input) in twins {
        let parsed: syn::DeriveInput = syn::parse2(input).unwrap();
        let syn::Data::Enum(data) = &parsed.data else {
            unreachable!()
        };
        let mut zapc = schema_enum(name);
        let derived = crate::enums::lower(&parsed, data).unwrap().ir;
        zapc.doc.clear();
        zapc.values.iter_mut().for_each(|v| v.doc.clear());
        assert_eq!(derived, zapc, "{name}");
        let expected = pretty(zapc::codegen::enums::enum_companions(
            &zapc,
            &names::type_ident(name),
            &Options::default(),
        ));
        assert_eq!(pretty(expand(&parsed).unwrap()), expected, "{name}");
    }
}

/// A struct with enum fields (`#[zap(enum = ...)]`) has zapc's companions.
#[test]
fn enum_field_twins_expand_to_zapc_output() {
    let pixel = quote! {
        pub struct Pixel {
            pub x: u16,
            pub y: u16,
            #[zap(enum = u8)]
            pub color: Color,
            #[zap(enum = u8)]
            pub shade: Color,
        }
    };
    assert_eq!(derive_items(pixel), zapc_items("enums.zap", "Pixel"));
    let event = quote! {
        pub struct Event {
            pub id: u64,
            #[zap(enum = u16)]
            pub level: Level,
            #[zap(offset = 16, enum = u32)]
            pub flags: ::std::vec::Vec<Flag>,
            pub pixels: ::std::vec::Vec<Pixel>,
            #[zap(enum = u8)]
            pub colors: ::std::vec::Vec<Color>,
            #[zap(enum = u8, json(name = "how"))]
            pub mode: mode,
            #[zap(offset = 48)]
            pub note: ::std::string::String,
        }
    };
    // `Pixels` is strided in the schema; a derive records `Framed` and lets the
    // element's `ZapStruct::INLINE` decide, so compare everything but that shape.
    let parsed: syn::DeriveInput = syn::parse2(event).unwrap();
    let derived = lower(&parsed).unwrap().ir;
    let zapc = schema_struct("enums.zap", "Event");
    for (d, z) in derived.fields.iter().zip(&zapc.fields) {
        assert_eq!(
            (&d.name, d.offset, d.width, &d.json),
            (&z.name, z.offset, z.width, &z.json)
        );
        if d.name != "Pixels" {
            assert_eq!(d.ty, z.ty, "{}", d.name);
        }
    }
    assert_eq!(derived.size, zapc.size);
}
