//! Messages without a schema: `#[derive(Zap)]` on Rust structs gives them what zapc
//! generates for a schema struct (a zero-copy reader, a builder, `ZapStruct`'s encode
//! and decode, the JSON mapping). `cargo run -p todo --example derive`.

use zap_derive::Zap;
use zap_runtime::{BuilderPool, ZapStruct};

/// The same layout as the schema's `struct Item { Id u64  Title text  Done bool }`.
#[derive(Zap, Clone, Debug, Default, PartialEq)]
pub struct Item {
    pub id: u64,
    pub title: String,
    pub done: bool,
}

/// A list of inline-only structs is strided: the items sit side by side.
#[derive(Zap, Clone, Debug, Default, PartialEq)]
pub struct Tags {
    pub item: u64,
    pub tags: Vec<String>,
}

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let item = Item {
        id: 1,
        title: "buy milk".into(),
        done: false,
    };

    // Owned value -> message, with a builder from a pool (no allocation once warm).
    let pool = BuilderPool::new();
    let mut builder = pool.get();
    let bytes = item.encode(&mut builder)?.to_vec();
    println!("{} bytes: {:02x?}", bytes.len(), &bytes[..16]);

    // Zero-copy reads: the getters borrow `bytes`.
    let reader = ItemReader::parse(&bytes)?;
    assert_eq!(
        (reader.id(), reader.title(), reader.done()),
        (1, "buy milk", false)
    );

    // Message -> owned value, and the JSON mapping (lowerCamelCase keys).
    let back = Item::decode(&bytes)?;
    assert_eq!(back, item);
    println!("{}", serde_json::to_string(&back)?);

    let tags = Tags {
        item: 1,
        tags: vec!["home".into(), "today".into()],
    };
    let bytes = tags.encode(&mut builder)?.to_vec();
    assert_eq!(Tags::decode(&bytes)?, tags);
    println!("{}", serde_json::to_string(&tags)?);
    Ok(())
}
