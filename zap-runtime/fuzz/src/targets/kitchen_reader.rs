//! Every generated reader of `schemas/kitchen.zap` (`Leaf`, `Kitchen`), and of
//! `schemas/lists.zap` (every list shape), on arbitrary bytes.
//!
//! For each reader: `parse` agrees with `Message::parse`; every getter agrees with the
//! generic reader at the schema's offsets; every list and child is read to the end, and
//! the number of elements iterated is bounded by the message size; `to_value` agrees
//! with the getters; the value read survives encode → decode unchanged, encodes
//! deterministically, and its JSON mapping reads back (finite floats). The same readers
//! handed out by an [`Owned`] message read the same values.

use crate::schemas::kitchen::{Kitchen, KitchenReader, Leaf, LeafReader};
use crate::schemas::lists::{Lists, ListsReader};
use crate::support::{
    check_json, check_kitchen, check_leaf, check_lists, check_reencode, same_kitchen,
};
use zap_runtime::{Bytes, Message, Owned};

/// The body of the `kitchen_reader` fuzz target.
pub fn run(data: &[u8]) {
    let parsed = Message::parse(data).is_ok();
    assert_eq!(
        Owned::<Leaf>::from_bytes(Bytes::copy_from_slice(data)).is_ok(),
        parsed
    );
    assert_eq!(KitchenReader::parse(data).is_ok(), parsed);
    assert_eq!(LeafReader::parse(data).is_ok(), parsed);
    assert_eq!(ListsReader::parse(data).is_ok(), parsed);
    let Ok(msg) = Message::parse(data) else {
        return;
    };

    let kitchen = check_kitchen(KitchenReader::from_object(msg.root()));
    check_reencode(&kitchen, same_kitchen);
    if kitchen.f32.is_finite() && kitchen.f64.is_finite() {
        check_json(&kitchen, same_kitchen);
    }

    let leaf = check_leaf(LeafReader::from_object(msg.root()));
    check_reencode(&leaf, PartialEq::eq);
    check_json(&leaf, PartialEq::eq);

    let lists = check_lists(ListsReader::from_object(msg.root()));
    check_reencode(&lists, PartialEq::eq);
    check_json(&lists, PartialEq::eq);

    // The same readers through owned messages (the bytes copied into `Bytes` once, as a
    // connection's frame would be): the same header, the same values.
    let owned = Owned::<Kitchen>::from_bytes(Bytes::copy_from_slice(data))
        .expect("Owned accepts what Message::parse accepts");
    assert_eq!(owned.as_bytes(), msg.as_bytes());
    assert!(same_kitchen(&check_kitchen(owned.get()), &kitchen));
    let owned = Owned::<Lists>::from_bytes(owned.into_bytes()).expect("the same bytes parse");
    assert_eq!(check_lists(owned.get()), lists);
    assert_eq!(owned.to_value(), lists);
}
