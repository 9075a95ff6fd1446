//! The RPC frameworks of the end-to-end comparison (feature `rpc-peers`), in-process on
//! port 0 for a few hundred calls each: each peer server answers the ledger's balances
//! and loadgen's client for it checks them; and a framework's client refuses another's
//! answers. `cargo test -p zap-benches --features rpc-peers --test peers`.
#![cfg(feature = "rpc-peers")]

use std::net::SocketAddr;
use std::time::Duration;

use zap_benches::load::{run, LoadConfig, Target};
use zap_benches::peers;

fn config(target: Target, addr: std::net::SocketAddr, depth: usize) -> LoadConfig {
    LoadConfig::short_run(target, addr, depth)
}

async fn free_port() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap()
}

/// Wait until something listens on `addr`.
async fn listening(addr: SocketAddr) {
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("nothing listens on {addr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_framework_answers_the_ledger_through_its_own_client() {
    let grpc = free_port().await;
    tokio::spawn(peers::grpc::serve(grpc));
    let tarpc = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let tarpc_addr = tarpc.local_addr().unwrap();
    tokio::spawn(peers::tarpc::serve(tarpc));
    let capnp = free_port().await;
    std::thread::spawn(move || peers::capnp::serve(capnp));
    for addr in [grpc, capnp] {
        listening(addr).await;
    }

    for (target, addr) in [
        (Target::Grpc, grpc),
        (Target::Tarpc, tarpc_addr),
        (Target::Capnp, capnp),
    ] {
        for depth in [1, 8] {
            let report = run(&config(target, addr, depth)).await.unwrap();
            assert_eq!(
                (report.requests, report.checked),
                (300, 300),
                "{target:?} depth {depth}"
            );
        }
        let paced = LoadConfig {
            rate: Some(3000.0),
            ..config(target, addr, 2)
        };
        assert_eq!(run(&paced).await.unwrap().checked, 300, "{target:?} paced");
    }
    // A client speaking another protocol gets no answer it accepts.
    assert!(run(&config(Target::Grpc, tarpc_addr, 1)).await.is_err());
    assert!(run(&config(Target::Tarpc, capnp, 1)).await.is_err());
}
