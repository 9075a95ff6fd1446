//! `List::limit`: a per-field cap on how many elements a reader exposes, applied after
//! the bounds rules (which always judge the count written on the wire).

use zap_runtime::__private::{write_framed_list, write_scalar_list};
use zap_runtime::{Builder, Message};

/// A message whose root has a `list<u32>` at 0 and a framed `list<text>` at 8.
fn message(nums: &[u32], words: &[&str]) -> Vec<u8> {
    let mut b = Builder::new();
    let mut root = b.start_object(16);
    let n = write_scalar_list(root.builder(), nums);
    root.set_list(0, n);
    let w = write_framed_list(root.builder(), words);
    root.set_list(8, w);
    root.finish_as_root();
    b.finish().unwrap().to_vec()
}

#[test]
fn limit_caps_every_accessor() {
    let bytes = message(&[1, 2, 3, 4, 5], &["a", "b", "c"]);
    let root = Message::parse(&bytes).unwrap().root();
    let nums = root.list(0);
    assert_eq!(nums.scalars::<u32>().collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    let capped = nums.limit(2);
    assert_eq!((capped.len(), capped.is_empty()), (2, false));
    assert_eq!(capped.scalars::<u32>().collect::<Vec<_>>(), [1, 2]);
    assert_eq!((capped.get::<u32>(1), capped.get::<u32>(2)), (2, 0));
    assert_eq!(capped.objects(4).count(), 2);
    assert_eq!(nums.limit(0).scalars::<u32>().count(), 0);
    assert!(nums.limit(0).is_empty());
    assert_eq!(
        nums.limit(100).len(),
        5,
        "a limit above the count changes nothing"
    );
    assert_eq!(nums.limit(3).limit(4).len(), 3, "limits only tighten");

    let words = root.list(8);
    assert_eq!(words.texts().collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(words.limit(2).texts().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(words.limit(1).framed().count(), 1);
}

#[test]
fn limit_does_not_make_an_invalid_list_readable() {
    // Claim 30 u32s (at most the size, as spec §3 wants) where only 5 fit: the list reads empty (spec §3), limited or not.
    let mut bytes = message(&[1, 2, 3, 4, 5], &[]);
    let slot = 16; // the root object starts right after the header; the list slot is at 0
    bytes[slot + 4..slot + 8].copy_from_slice(&30u32.to_le_bytes());
    let root = Message::parse(&bytes).unwrap().root();
    let list = root.list(0);
    assert_eq!(list.len(), 30);
    assert!(30 <= bytes.len() && 30 * 4 > bytes.len());
    assert_eq!(
        list.scalars::<u32>().count(),
        0,
        "count * width past the message"
    );
    assert_eq!(list.limit(2).scalars::<u32>().count(), 0);
    assert_eq!(list.limit(2).get::<u32>(0), 0);
}
