//! Structured: random valid values of `schemas/kitchen.zap` and `schemas/lists.zap`
//! (every field chosen by the fuzzer through `arbitrary`) are built with the generated
//! builders, and must read back equal — through `decode`, through the zero-copy reader's
//! getters, and through the JSON mapping. A builder reused after an unrelated message
//! must give the same bytes as a fresh one (spec §4).

use crate::schemas::kitchen::{Kitchen, KitchenBuilder, KitchenReader, Leaf};
use crate::schemas::lists::{Lists, ListsReader, Named, Point};
use crate::support::{check_json, check_kitchen, check_lists, same_kitchen};
use arbitrary::{Arbitrary, Unstructured};
use zap_runtime::{Builder, ZapStruct};

fn leaf(u: &mut Unstructured<'_>) -> arbitrary::Result<Leaf> {
    Ok(Leaf {
        tag: u.arbitrary()?,
        note: u.arbitrary()?,
    })
}

fn kitchen(u: &mut Unstructured<'_>) -> arbitrary::Result<Kitchen> {
    let items_len = u.int_in_range(0..=8)?;
    Ok(Kitchen {
        flag: u.arbitrary()?,
        a8: u.arbitrary()?,
        a16: u.arbitrary()?,
        a32: u.arbitrary()?,
        a64: u.arbitrary()?,
        s8: u.arbitrary()?,
        s16: u.arbitrary()?,
        s32: u.arbitrary()?,
        s64: u.arbitrary()?,
        f32: u.arbitrary()?,
        f64: u.arbitrary()?,
        name: u.arbitrary()?,
        blob: u.arbitrary()?,
        id: u.arbitrary()?,
        items: (0..items_len).map(|_| leaf(u)).collect::<Result<_, _>>()?,
        inner: if u.arbitrary()? {
            Some(Box::new(leaf(u)?))
        } else {
            None
        },
        nums: u.arbitrary()?,
    })
}

fn named(u: &mut Unstructured<'_>) -> arbitrary::Result<Named> {
    Ok(Named {
        id: u.arbitrary()?,
        label: u.arbitrary()?,
    })
}

fn lists(u: &mut Unstructured<'_>) -> arbitrary::Result<Lists> {
    let n = |u: &mut Unstructured<'_>| u.int_in_range(0..=6usize);
    let (names, refs, points) = (n(u)?, n(u)?, n(u)?);
    Ok(Lists {
        numbers: u.arbitrary()?,
        flags: u.arbitrary()?,
        hashes: u.arbitrary()?,
        points: (0..points)
            .map(|_| {
                Ok(Point {
                    x: u.arbitrary()?,
                    y: u.arbitrary()?,
                })
            })
            .collect::<arbitrary::Result<_>>()?,
        names: (0..names).map(|_| named(u)).collect::<Result<_, _>>()?,
        words: u.arbitrary()?,
        blobs: u.arbitrary()?,
        refs: (0..refs)
            .map(|_| {
                Ok(if u.arbitrary()? {
                    Some(named(u)?)
                } else {
                    None
                })
            })
            .collect::<arbitrary::Result<_>>()?,
    })
}

/// The same message built field by field with the generated setters (declaration order).
fn kitchen_by_setters(k: &Kitchen, b: &mut Builder) -> Vec<u8> {
    b.clear();
    let mut w = KitchenBuilder::new(b);
    w.set_flag(k.flag)
        .set_a8(k.a8)
        .set_a16(k.a16)
        .set_a32(k.a32)
        .set_a64(k.a64)
        .set_s8(k.s8)
        .set_s16(k.s16)
        .set_s32(k.s32)
        .set_s64(k.s64)
        .set_f32(k.f32)
        .set_f64(k.f64)
        .set_name(&k.name)
        .set_blob(&k.blob)
        .set_id(&k.id)
        .set_items(&k.items);
    if let Some(inner) = &k.inner {
        w.set_inner(inner);
    }
    w.set_nums(&k.nums);
    w.finish_message().unwrap().to_vec()
}

/// The body of the `roundtrip` fuzz target.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(k) = kitchen(&mut u) else { return };
    let Ok(l) = lists(&mut u) else { return };
    let dirty = bool::arbitrary(&mut u).unwrap_or(false);

    // The values are small: far below the builder's limit, so encoding cannot fail.
    let fresh = k.to_bytes().expect("a small message encodes");
    let mut b = Builder::new();
    if dirty {
        // Leave the builder dirty with another message.
        l.encode(&mut b).expect("a small message encodes");
    }
    assert_eq!(
        k.encode(&mut b).expect("a small message encodes"),
        &fresh[..],
        "a reused builder gives other bytes"
    );
    assert_eq!(
        kitchen_by_setters(&k, &mut b),
        fresh,
        "setters and write_fields disagree"
    );
    let back = Kitchen::decode(&fresh).expect("a built message parses");
    assert!(same_kitchen(&k, &back), "decode:\n{k:?}\n{back:?}");
    let read = check_kitchen(KitchenReader::parse(&fresh).unwrap());
    assert!(same_kitchen(&k, &read), "getters:\n{k:?}\n{read:?}");
    if k.f32.is_finite() && k.f64.is_finite() {
        check_json(&k, same_kitchen);
    }

    let bytes = l.to_bytes().expect("a small message encodes");
    let back = Lists::decode(&bytes).expect("a built message parses");
    assert_eq!(l, back);
    assert_eq!(check_lists(ListsReader::parse(&bytes).unwrap()), l);
    check_json(&l, PartialEq::eq);
}
