//! Regression test of a fuzzing finding, fixed by zap_runtime::DecodeBudget (generated
//! decoding stops at 64 levels and at a node budget proportional to the message). Run
//! with `cargo test --manifest-path zap-runtime/fuzz/Cargo.toml`; the decode runs in a
//! child process so that a regression shows as a failed test, not an aborted runner.
//! The finding, as first reported:
//!
//! With a self-referential schema (`struct Node { Next Node }`), a 48-byte message whose
//! two objects point at each other makes the generated `from_reader` (behind
//! `ZapStruct::decode`, `Reader::to_value`, and so every generated client stub reading a
//! response) recurse forever: the process aborts with a stack overflow. A hostile server
//! can so kill any client of such a schema, and a handler that calls `to_value` on a
//! request can be killed by a client. A framed `list<Tree>` nests finitely (each level
//! is a smaller message) but deep enough to overflow too: a 16 MiB frame holds ~500 000
//! levels. Suggested fix: a nesting budget in the generated `from_reader` (e.g. 64 or
//! 128 levels, deeper pointers read as null / lists as empty, like any out-of-bounds
//! read), or an error from `decode`.
//!
//! The decode runs in a child process (this test binary run again), since a stack
//! overflow aborts the whole process rather than failing a test.

use std::process::Command;

use zap_fuzz::schemas::recursive::{Node, Tree};
use zap_runtime::{Builder, ZapStruct};

/// Two `Node`s pointing at each other: A at 16 (its `Next` slot at 20 points at B at
/// 32), B at 32 (its slot at 36 points back at A).
fn cyclic_nodes() -> Vec<u8> {
    let mut m = vec![0u8; 48];
    m[0..4].copy_from_slice(b"ZAP\0");
    m[4..6].copy_from_slice(&1u16.to_le_bytes());
    m[8..12].copy_from_slice(&16u32.to_le_bytes());
    m[12..16].copy_from_slice(&48u32.to_le_bytes());
    m[20..24].copy_from_slice(&12i32.to_le_bytes());
    m[36..40].copy_from_slice(&(-20i32).to_le_bytes());
    m
}

/// A `Tree` nested `depth` levels through its framed `Kids` list.
fn deep_tree(depth: usize) -> Vec<u8> {
    let mut tree = Tree::default();
    for _ in 0..depth {
        tree = Tree {
            val: 1,
            kids: vec![tree],
        };
    }
    let mut b = Builder::new();
    tree.encode(&mut b).unwrap().to_vec()
}

/// Run `case` of this file in a child process; whether it exited normally.
fn survives(case: &str) -> bool {
    let exe = std::env::current_exe().expect("the test binary");
    let status = Command::new(exe)
        .args(["--ignored", "--exact", "child", "--nocapture"])
        .env("RECURSIVE_CASE", case)
        .status()
        .expect("run the child");
    status.success()
}

#[test]
#[ignore = "child process of the tests below"]
fn child() {
    match std::env::var("RECURSIVE_CASE").as_deref() {
        Ok("cycle") => {
            let _ = Node::decode(&cyclic_nodes());
        }
        Ok("deep") => {
            // Built in a thread with a large stack (building recurses too), decoded on
            // the main thread's usual stack, as a client would.
            let msg = std::thread::Builder::new()
                .stack_size(1 << 30)
                .spawn(|| deep_tree(200_000))
                .unwrap()
                .join()
                .unwrap();
            let _ = Tree::decode(&msg);
        }
        _ => {}
    }
}

#[test]
fn decoding_a_cyclic_message_does_not_abort() {
    assert!(
        survives("cycle"),
        "Node::decode of a 48-byte cyclic message aborted the process"
    );
}

#[test]
fn decoding_a_deep_message_does_not_abort() {
    assert!(
        survives("deep"),
        "Tree::decode of a 200 000-level message aborted the process"
    );
}
