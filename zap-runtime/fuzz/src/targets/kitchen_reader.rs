//! Every generated reader of `schemas/kitchen.zap` (`Leaf`, `Kitchen`), and of
//! `schemas/lists.zap` (every list shape), on arbitrary bytes.
//!
//! For each reader: `parse` agrees with `Message::parse`; every getter agrees with the
//! generic reader at the schema's offsets; every list and child is read to the end, and
//! the number of elements iterated is bounded by the message size; `to_value` agrees
//! with the getters; the value read survives encode → decode unchanged, encodes
//! deterministically, and its JSON mapping reads back (finite floats).

use crate::schemas::kitchen::{KitchenReader, LeafReader};
use crate::schemas::lists::ListsReader;
use crate::support::{
    check_json, check_kitchen, check_leaf, check_lists, check_reencode, same_kitchen,
};
use zap_runtime::Message;

/// The body of the `kitchen_reader` fuzz target.
pub fn run(data: &[u8]) {
    let parsed = Message::parse(data).is_ok();
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
}
