//! Decoding recursive schemas into owned values is bounded: a message whose objects
//! point at each other, or whose pointers share one child many times, decodes without
//! exhausting the stack or the heap (zap_runtime::DecodeBudget), while honest messages
//! decode completely. (Found by fuzzing: before the budget, a 48-byte cycle overflowed
//! the stack of any client or handler decoding it.)

use zap_runtime::{Builder, DecodeBudget, ZapStruct};
use zapc_generated_tests::recursive::{Node, NodeReader, Tree};

/// Two Node objects whose `Next` pointers point at each other: an endless chain.
fn cycle() -> Vec<u8> {
    let mut b = Builder::new();
    let mut a = b.start_object(Node::SIZE);
    a.set_u64(0, 1);
    let a_at = a.offset();
    let mut other = a.builder().start_object(Node::SIZE);
    other.set_u64(0, 2);
    other.set_object(8, a_at);
    let other_at = other.finish();
    a.set_object(8, other_at);
    a.finish_as_root();
    b.finish().unwrap().to_vec()
}

fn chain_len(node: &Node) -> usize {
    let mut len = 1;
    let mut next = node.next.as_deref();
    while let Some(n) = next {
        len += 1;
        next = n.next.as_deref();
    }
    len
}

#[test]
fn a_cycle_decodes_to_a_bounded_chain() {
    let wire = cycle();
    assert!(wire.len() < 64);
    // The zero-copy reader walks the cycle as far as asked, allocating nothing.
    let mut r = NodeReader::parse(&wire).unwrap();
    for _ in 0..1000 {
        r = r.next().expect("the cycle never ends");
    }
    let node = Node::decode(&wire).unwrap();
    assert_eq!(chain_len(&node), DecodeBudget::MAX_DEPTH as usize + 1);
    assert_eq!((node.value, node.next.as_ref().unwrap().value), (1, 2));
    // Dropping the chain is fine too (it is only MAX_DEPTH long).
    drop(node);
}

/// A Tree whose `Refs` point at the root twice: every decoded level doubles.
fn fan_out() -> Vec<u8> {
    let mut b = Builder::new();
    let mut root = b.start_object(Tree::SIZE);
    root.set_text(0, "root");
    let root_at = root.offset();
    let refs = root.builder().start_pointer_list(2);
    root.builder().set_pointer(refs, 0, root_at);
    root.builder().set_pointer(refs, 1, root_at);
    let list = refs.list(root.builder());
    root.set_list(16, list);
    root.finish_as_root();
    b.finish().unwrap().to_vec()
}

fn count(tree: &Tree) -> usize {
    1 + tree.kids.iter().map(count).sum::<usize>()
        + tree.refs.iter().flatten().map(count).sum::<usize>()
}

#[test]
fn shared_children_cannot_blow_up_the_heap() {
    let wire = fan_out();
    let tree = Tree::decode(&wire).unwrap();
    let nodes = count(&tree);
    // Without a budget this would be 2^65 nodes; with it, at most twice the message
    // length plus 64, plus the root.
    assert!(
        nodes <= 2 * wire.len() + 64 + 1,
        "{nodes} nodes from {} bytes",
        wire.len()
    );
    assert!(nodes > 64, "the budget is spent before decoding stops");
}

#[test]
fn honest_recursive_messages_decode_completely() {
    // A chain 50 deep (under MAX_DEPTH) and a tree with framed kids and shared refs.
    let mut chain = Node {
        value: 0,
        next: None,
    };
    for v in 1..50 {
        chain = Node {
            value: v,
            next: Some(Box::new(chain)),
        };
    }
    assert_eq!(Node::decode(&chain.to_bytes().unwrap()).unwrap(), chain);

    let leaf = |label: &str| Tree {
        label: label.into(),
        kids: vec![],
        refs: vec![],
    };
    let tree = Tree {
        label: "root".into(),
        kids: vec![
            Tree {
                label: "a".into(),
                kids: vec![leaf("a1"), leaf("a2")],
                refs: vec![Some(leaf("x")), None],
            },
            leaf("b"),
        ],
        refs: vec![None, Some(leaf("y"))],
    };
    assert_eq!(Tree::decode(&tree.to_bytes().unwrap()).unwrap(), tree);
}
