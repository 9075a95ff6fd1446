//! Builder behaviour beyond the flat vectors: nested objects, every list shape, reuse,
//! and the pool's capacity cap.

use zap_runtime::{Builder, BuilderPool, Message, Object, ObjectBuilder};

/// Build the `Kitchen` of the nested vector (same schema, same values) with our builder,
/// setting fields in schema order: each `text`/`bytes` payload is kept aside until its
/// object finishes.
fn build_kitchen(b: &mut Builder) -> Vec<u8> {
    let mut k = b.start_object(104);
    kitchen_scalars(&mut k);
    k.set_text(48, "kitchen éè");
    k.set_bytes(56, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    k.set_bytes_fixed(64, b"defghijklmnopqrs");
    kitchen_children(&mut k, false);
    k.finish_as_root();
    b.finish().unwrap().to_vec()
}

/// The same `Kitchen`, children and lists first and the payloads last, written in place
/// (`set_text_last`, `set_bytes_last`): the order generated code uses. A scalar and the
/// `bytes_fixed` after the payloads still land in the fixed section.
fn build_kitchen_payloads_last(b: &mut Builder) -> Vec<u8> {
    let mut k = b.start_object(104);
    kitchen_children(&mut k, true);
    kitchen_scalars(&mut k);
    k.set_text_last(48, "kitchen éè");
    k.set_bytes_last(56, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    k.set_f64(40, -2.25);
    k.set_bytes_fixed(64, b"defghijklmnopqrs");
    k.finish_as_root();
    b.finish().unwrap().to_vec()
}

fn kitchen_scalars(k: &mut ObjectBuilder<'_>) {
    k.set_bool(0, true);
    k.set_u8(1, 200);
    k.set_u16(2, 65000);
    k.set_u32(4, 4_000_000_000);
    k.set_u64(8, 9_223_372_036_854_775_813);
    k.set_i8(16, -5);
    k.set_i16(18, -300);
    k.set_i32(20, -70000);
    k.set_i64(24, -1_099_511_627_776);
    k.set_f32(32, 1.5);
    k.set_f64(40, -2.25);
}

/// Items, Inner and Nums, their own texts set in order or last.
fn kitchen_children(k: &mut ObjectBuilder<'_>, payloads_last: bool) {
    let text = |o: &mut ObjectBuilder<'_>, v: &str| {
        if payloads_last {
            o.set_text_last(4, v)
        } else {
            o.set_text(4, v)
        }
    };
    // Items: list<Leaf>, framed (Leaf has a text field): each element a whole message.
    let mut items = k.builder().start_list(0);
    for (tag, note) in [(10u32, "alpha"), (11, ""), (12, "gamma")] {
        items.push_message(|b| {
            let mut leaf = b.start_object(12);
            leaf.set_u32(0, tag);
            text(&mut leaf, note);
            leaf.finish_as_root();
        });
    }
    let items = items.finish();
    k.set_list(80, items);
    let mut inner = k.builder().start_object(12);
    inner.set_u32(0, 77);
    text(&mut inner, "inner");
    let inner = inner.finish();
    k.set_object(88, inner);
    let mut nums = k.builder().start_list(4);
    for n in [1u32, 2, 3, u32::MAX] {
        nums.push(n);
    }
    let nums = nums.finish();
    k.set_list(96, nums);
}

fn leaf(obj: Object<'_>) -> (u32, String) {
    (obj.u32(0), obj.text(4).to_string())
}

fn assert_kitchen(root: Object<'_>) {
    assert!(root.bool(0));
    assert_eq!(root.u8(1), 200);
    assert_eq!(root.u16(2), 65000);
    assert_eq!(root.u32(4), 4_000_000_000);
    assert_eq!(root.u64(8), 9_223_372_036_854_775_813);
    assert_eq!(root.i8(16), -5);
    assert_eq!(root.i16(18), -300);
    assert_eq!(root.i32(20), -70000);
    assert_eq!(root.i64(24), -1_099_511_627_776);
    assert_eq!(root.f32(32), 1.5);
    assert_eq!(root.f64(40), -2.25);
    assert_eq!(root.text(48), "kitchen éè");
    assert_eq!(root.bytes(56), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(root.bytes_fixed::<16>(64), b"defghijklmnopqrs");
    let items: Vec<_> = root.list(80).messages().map(leaf).collect();
    assert_eq!(
        items,
        [
            (10, "alpha".into()),
            (11, String::new()),
            (12, "gamma".into())
        ]
    );
    assert_eq!(leaf(root.object(88)), (77, "inner".into()));
    let nums: Vec<u32> = root.list(96).scalars().collect();
    assert_eq!(nums, [1, 2, 3, u32::MAX]);
}

#[test]
fn nested_message_built_here_reads_back() {
    let wire = build_kitchen(&mut Builder::new());
    assert_kitchen(Message::parse(&wire).unwrap().root());
}

#[test]
fn payloads_written_last_give_the_bytes_of_payloads_kept_aside() {
    let kept = build_kitchen(&mut Builder::new());
    let last = build_kitchen_payloads_last(&mut Builder::new());
    assert_eq!(last, kept);
    assert_kitchen(Message::parse(&last).unwrap().root());
}

#[test]
fn a_payload_set_last_after_one_kept_aside_keeps_setter_order() {
    let build = |last: bool| {
        let mut b = Builder::new();
        let mut o = b.start_object(24);
        o.set_bytes(0, b"first");
        if last {
            o.set_bytes_last(8, b"second");
            o.set_text_last(16, "third");
        } else {
            o.set_bytes(8, b"second");
            o.set_text(16, "third");
        }
        o.finish_as_root();
        b.finish().unwrap().to_vec()
    };
    let (kept, last) = (build(false), build(true));
    assert_eq!(last, kept);
    let root = Message::parse(&last).unwrap().root();
    assert_eq!(root.bytes(0), b"first");
    assert_eq!(root.bytes(8), b"second");
    assert_eq!(root.text(16), "third");
}

#[test]
fn a_child_built_after_a_payload_set_last_still_reads_back() {
    let mut b = Builder::new();
    let mut o = b.start_object(16);
    o.set_text_last(0, "before the child");
    let mut child = o.builder().start_object(8);
    child.set_u64(0, 7);
    let child = child.finish();
    o.set_object(8, child);
    o.set_bytes_last(0, b"");
    o.set_text_last(0, "again, after it");
    o.finish_as_root();
    let msg = b.finish().unwrap().to_vec();
    let root = Message::parse(&msg).unwrap().root();
    assert_eq!(root.text(0), "again, after it");
    assert_eq!(root.object(8).u64(0), 7);
}

#[test]
fn reused_builder_gives_the_same_bytes_as_a_fresh_one() {
    let fresh = build_kitchen(&mut Builder::new());
    let mut dirty = Builder::new();
    // Dirty the buffer with a larger, different message first.
    let mut junk = dirty.start_object(512);
    for off in (0..512).step_by(8) {
        junk.set_u64(off, u64::MAX);
    }
    junk.set_text(0, &"x".repeat(1000));
    junk.finish_as_root();
    dirty.finish().unwrap();
    dirty.clear();
    assert_eq!(build_kitchen(&mut dirty), fresh);
}

#[test]
fn framed_elements_nest_lists_and_objects() {
    let mut b = Builder::new();
    let mut root = b.start_object(8);
    let mut outer = root.builder().start_list(0);
    for i in 0..3u32 {
        outer.push_message(|b| {
            let mut e = b.start_object(20);
            e.set_text(0, &format!("element {i}"));
            let mut inner = e.builder().start_list(0);
            for j in 0..i {
                inner.push_framed(format!("{i}.{j}").as_bytes());
            }
            let inner = inner.finish();
            e.set_list(8, inner);
            let mut child = e.builder().start_object(4);
            child.set_u32(0, i * 100);
            let child = child.finish();
            e.set_object(16, child);
            e.finish_as_root();
        });
    }
    let outer = outer.finish();
    root.set_list(0, outer);
    root.finish_as_root();
    let wire = b.finish().unwrap().to_vec();

    let root = Message::parse(&wire).unwrap().root();
    let elems: Vec<Object<'_>> = root.list(0).messages().collect();
    assert_eq!(elems.len(), 3);
    for (i, e) in elems.iter().enumerate() {
        assert_eq!(e.text(0), format!("element {i}"));
        let inner: Vec<&str> = e.list(8).texts().collect();
        let want: Vec<String> = (0..i).map(|j| format!("{i}.{j}")).collect();
        assert_eq!(inner, want);
        assert_eq!(e.object(16).u32(0), i as u32 * 100);
    }
}

#[test]
fn strided_struct_and_bytes_fixed_lists() {
    let mut b = Builder::new();
    let mut root = b.start_object(16);
    let mut points = root.builder().start_list(12);
    for i in 0..4i32 {
        let mut p = points.push_struct();
        p.set_i32(0, -i);
        p.set_u64(4, i as u64 * 1000);
        let _ = p.finish();
    }
    let points = points.finish();
    root.set_list(0, points);
    let mut ids = root.builder().start_list(3);
    ids.push_raw(b"abc");
    ids.push_raw(b"def");
    let ids = ids.finish();
    root.set_list(8, ids);
    root.finish_as_root();
    let wire = b.finish().unwrap().to_vec();

    let root = Message::parse(&wire).unwrap().root();
    let got: Vec<(i32, u64)> = root
        .list(0)
        .objects(12)
        .map(|p| (p.i32(0), p.u64(4)))
        .collect();
    assert_eq!(got, [(0, 0), (-1, 1000), (-2, 2000), (-3, 3000)]);
    assert_eq!(root.list(8).bytes_fixed::<3>(1), b"def");
    assert_eq!(root.list(8).bytes_fixed::<3>(2), &[0; 3], "past the count");
}

#[test]
fn pointer_list_points_at_objects_built_after_it() {
    let mut b = Builder::new();
    let mut root = b.start_object(8);
    let slots = root.builder().start_pointer_list(3);
    let a = {
        let mut o = root.builder().start_object(4);
        o.set_u32(0, 11);
        o.finish()
    };
    let c = {
        let mut o = root.builder().start_object(4);
        o.set_u32(0, 33);
        o.finish()
    };
    let builder = root.builder();
    builder.set_pointer(slots, 0, a);
    builder.set_pointer(slots, 2, c);
    builder.set_pointer(slots, 3, a); // out of range: ignored
    let list = slots.list(builder);
    root.set_list(0, list);
    root.finish_as_root();
    let wire = b.finish().unwrap().to_vec();

    let root = Message::parse(&wire).unwrap().root();
    let got: Vec<Option<u32>> = root
        .list(0)
        .pointers()
        .map(|o| (!o.is_null()).then(|| o.u32(0)))
        .collect();
    assert_eq!(got, [Some(11), None, Some(33)]);
}

#[test]
fn deferred_payloads_land_in_setter_order_after_children() {
    // Spec §4 step 5: an object's tails come after lists/children built while it was open.
    let mut b = Builder::new();
    let mut o = b.start_object(16);
    o.set_text(8, "second");
    o.set_text(0, "first");
    let mut child = o.builder().start_object(8);
    child.set_text(0, "child");
    let child_at = child.finish();
    assert_eq!(child_at, 32);
    o.finish_as_root();
    let wire = b.finish().unwrap().to_vec();
    let tail = &wire[wire.len() - "secondfirst".len()..];
    assert_eq!(tail, b"secondfirst");
    let root = Message::parse(&wire).unwrap().root();
    assert_eq!((root.text(0), root.text(8)), ("first", "second"));
}

#[test]
fn pool_reuses_builders_and_drops_oversized_ones() {
    // A fresh thread, so its warm builder slot starts empty.
    std::thread::spawn(|| {
        let pool = BuilderPool::with_limits(2, 8192);
        let grown = {
            let mut b = pool.get();
            let mut o = b.start_object(8);
            o.set_bytes(0, &[1u8; 1000]);
            o.finish_as_root();
            b.finish().unwrap();
            b.capacity()
        };
        {
            let b = pool.get();
            assert_eq!(b.len(), 16, "a pooled builder comes back cleared");
            assert_eq!(
                b.capacity(),
                grown,
                "the same (warm) builder is handed out again"
            );
        }
        {
            let mut b = pool.get();
            let mut o = b.start_object(8);
            o.set_bytes(0, &vec![7u8; 64 * 1024]);
            o.finish_as_root();
            b.finish().unwrap();
        }
        let fresh = pool.get();
        assert!(
            fresh.capacity() < grown,
            "a builder grown past the cap is freed, not pooled"
        );
        drop(fresh);
        let loans = (pool.get(), pool.get(), pool.get(), pool.get());
        drop(loans);
        assert_eq!(
            pool.idle(),
            2,
            "one stays warm on the thread, max_idle wait in the pool, the rest are freed"
        );
    })
    .join()
    .unwrap();
}

#[test]
fn pooled_builders_move_between_threads() {
    let pool = std::sync::Arc::new(BuilderPool::new());
    let handles: Vec<_> = (0..4u64)
        .map(|t| {
            let pool = pool.clone();
            std::thread::spawn(move || {
                for i in 0..1000u64 {
                    let mut b = pool.get();
                    let mut o = b.start_object(16);
                    o.set_u64(0, t);
                    o.set_u64(8, i);
                    o.finish_as_root();
                    let root = Message::parse(b.finish().unwrap()).unwrap().root();
                    assert_eq!((root.u64(0), root.u64(8)), (t, i));
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn pooled_builder_version_resets_between_loans() {
    let pool = BuilderPool::new();
    {
        let mut b = pool.get();
        b.set_version(2);
    }
    let mut b = pool.get();
    b.start_object(0).finish_as_root();
    assert_eq!(Message::parse(b.finish().unwrap()).unwrap().version(), 1);
}

/// A message over the builder's limit is refused when it finishes, never written with
/// wrapped offsets; the builder is usable again after a clear.
#[test]
fn a_message_over_the_limit_is_refused() {
    let mut b = Builder::new();
    b.set_max_len(64);
    assert_eq!(b.max_len(), 64);
    let mut obj = b.start_object(8);
    obj.set_bytes(0, &[7u8; 100]);
    assert_eq!(
        obj.finish_message(),
        Err(zap_runtime::BuildError::TooLarge { len: 124, max: 64 })
    );
    // Exactly at the limit is fine.
    b.clear();
    let mut obj = b.start_object(8);
    obj.set_bytes(0, &[7u8; 40]);
    assert_eq!(obj.finish_message().map(<[u8]>::len), Ok(64));
    // The limit never exceeds what signed 32-bit offsets can reach.
    b.set_max_len(usize::MAX);
    assert_eq!(b.max_len(), Builder::MAX_LEN);
    assert_eq!(Builder::MAX_LEN, i32::MAX as usize);
}

/// `Debug` on views and builders shows positions and counts, never the message bytes.
#[test]
fn debug_shows_positions_not_bytes() {
    let mut b = Builder::new();
    let wire = build_kitchen(&mut b);
    let msg = Message::parse(&wire).unwrap();
    let root = format!("{:?}", msg.root());
    assert_eq!(root, format!("Object(@16 of {})", wire.len()));
    assert_eq!(format!("{:?}", Object::NULL), "Object(null)");
    assert!(format!("{msg:?}").starts_with("Message { size: "));
    let mut b = Builder::new();
    b.start_object(8).set_bytes(0, &[0xAB; 4096]);
    let shown = format!("{b:?}");
    assert!(shown.len() < 200, "{shown}");
    assert!(
        !shown.contains("171"),
        "no byte of the payload is printed: {shown}"
    );
}
