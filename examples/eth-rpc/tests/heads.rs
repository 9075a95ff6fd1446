//! `newHeads`, the example's server stream, from the real binary with `--block-time`:
//! the generated client over ZAP/TCP, and the canonical Go runtime's stream client over
//! ZAP/TCP and PQ-TLS (the Go peer, built by `../shared/peers/zap-go/build.sh
//! target/zapgo`; those tests are ignored without it).

use crate::pki;
use crate::process;

use eth_rpc::eth::{BlockHeader, EthClient, HeadsRequest};
use eth_rpc::ledger::block_hash;
use process::EthRpc;
use zap_runtime::client::Client;
use zap_runtime::{Owned, Transport, ZapStruct};

fn check_chain(heads: &[BlockHeader]) {
    for head in heads {
        assert_eq!(head.hash, block_hash(head.number), "{head:?}");
        assert_eq!(head.parent_hash, block_hash(head.number - 1), "{head:?}");
    }
    for pair in heads.windows(2) {
        assert!(pair[1].number > pair[0].number, "{pair:?}");
        assert!(pair[1].timestamp > pair[0].timestamp, "{pair:?}");
    }
}

#[tokio::test]
async fn heads_arrive_as_the_chain_advances() {
    let server = EthRpc::start(&["--block-time", "0.2"]).await;
    let eth = EthClient::new(Client::connect(server.zap).await.unwrap());
    let before = eth.block_number().await.unwrap().number;
    let mut heads = eth.new_heads(&HeadsRequest { count: 4 }).await.unwrap();
    let mut got = Vec::new();
    while let Some(head) = heads.next().await.unwrap() {
        got.push(head.to_value());
    }
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(got[0].number >= before, "{got:?}");
    check_chain(&got);
    // The head the calls see moved with the stream's.
    assert!(eth.block_number().await.unwrap().number >= got[3].number);
}

#[tokio::test]
async fn a_still_chain_sends_its_head_and_the_stream_stays_open() {
    let server = EthRpc::start(&[]).await;
    let eth = EthClient::new(Client::connect(server.zap).await.unwrap());
    let mut heads = eth.new_heads(&HeadsRequest { count: 0 }).await.unwrap();
    let head = heads.next().await.unwrap().expect("the head now");
    assert_eq!(head.get().number(), eth_rpc::HEAD_BLOCK);
    // Nothing more comes, and calls on the same connection are answered meanwhile.
    assert_eq!(
        eth.block_number().await.unwrap().number,
        eth_rpc::HEAD_BLOCK
    );
    let more = tokio::time::timeout(std::time::Duration::from_millis(300), heads.next()).await;
    assert!(
        more.is_err(),
        "no second head from a chain that stands still"
    );
}

#[tokio::test]
async fn new_heads_is_not_a_json_rpc_method() {
    let server = EthRpc::start(&[]).await;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"eth_newHeads","params":[]}"#;
    let client = Client::connect(server.zap).await.unwrap();
    // Over ZAP a stream method called as a call is refused with 400.
    let err = client.call(6, &[]).await.unwrap_err();
    assert!(err.to_string().contains("stream method"), "{err}");
    let (status, answer) = http_post(server.http, body).await;
    assert_eq!(status, 200);
    assert!(answer.contains("-32601"), "{answer}");
    assert!(!answer.contains("eth_newHeads ("), "{answer}");
}

async fn http_post(addr: std::net::SocketAddr, body: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    let status = out[9..12].parse().unwrap();
    (status, out)
}

/// `zapgo-peer stream` for `count` heads: the headers it printed (it must end with
/// `end` and exit 0).
async fn go_heads(args: &[&str], count: u32) -> Vec<BlockHeader> {
    let init = hex::encode(HeadsRequest { count }.to_bytes().unwrap());
    let mut all = vec![
        "stream",
        "--method",
        "6",
        "--init-hex",
        &init,
        "--timeout",
        "20s",
    ];
    all.extend_from_slice(args);
    let text = process::go(&all).await;
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.pop(), Some("end"), "{text}");
    lines
        .iter()
        .map(|l| {
            let bytes = hex::decode(l.strip_prefix("msg=").expect(l)).unwrap();
            Owned::<BlockHeader>::from_bytes(bytes).unwrap().to_value()
        })
        .collect()
}

#[tokio::test]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo, then cargo test -p eth-rpc --test integration heads:: -- --ignored"]
async fn the_go_stream_client_receives_new_heads() {
    let server = EthRpc::start(&["--block-time", "0.2"]).await;
    let addr = server.zap.to_string();
    let heads = go_heads(&["--addr", &addr, "--transport", "tcp"], 3).await;
    assert_eq!(heads.len(), 3);
    check_chain(&heads);
}

#[tokio::test]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo, then cargo test -p eth-rpc --test integration heads:: -- --ignored"]
async fn the_go_stream_client_receives_new_heads_over_pq_tls() {
    let pki = pki::Pki::new();
    let cert = pki.path("server.pem");
    let key = pki.path("server.key");
    let server = EthRpc::start(&[
        "--block-time",
        "0.2",
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
    ])
    .await;
    let addr = server.zap.to_string();
    let ca = pki.path("ca.pem");
    let heads = go_heads(
        &[
            "--addr",
            &addr,
            "--transport",
            "tls",
            "--ca",
            ca.to_str().unwrap(),
            "--server-name",
            "localhost",
        ],
        2,
    )
    .await;
    assert_eq!(heads.len(), 2);
    check_chain(&heads);
}
