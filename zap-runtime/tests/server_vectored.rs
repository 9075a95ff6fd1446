//! Large answers go out in vectored writes: the headers from the write buffer, the
//! handler's message from its own buffer. The bytes on the wire are the same as with the
//! single coalesced write (RPC and node framing, sizes around the threshold, pipelining on
//! a large result, many answers in one flush), and the runtime copies one body fewer per
//! large answer (`zap_runtime::copies`).

use std::sync::Arc;

use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::frame::Framing;
use zap_runtime::rpc::Status;
use zap_runtime::server::{CancellationToken, Server, ServerConfig, DEFAULT_VECTORED_WRITE_MIN};
use zap_runtime::{copies, Builder, CallError, Message, MethodInfo, Reply, Service};

/// `echo({bytes data @0}) -> {bytes data @0}`.
const ECHO: u32 = 1;

struct Echo;

impl Service for Echo {
    const NAME: &'static str = "Echo";
    const METHODS: &'static [MethodInfo] = &[];

    async fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        if ordinal != ECHO {
            return Err(CallError::unknown_method(Self::NAME, ordinal));
        }
        let msg = Message::parse(payload).map_err(|e| CallError::bad_request(e.to_string()))?;
        let mut obj = out.start_object(8);
        obj.set_bytes(0, msg.root().bytes(0));
        obj.finish_message()?;
        Ok(Reply::Message)
    }
}

fn data(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(7) ^ seed).collect()
}

fn request(data: &[u8]) -> Vec<u8> {
    let mut b = Builder::new();
    let mut obj = b.start_object(8);
    obj.set_bytes(0, data);
    obj.finish_as_root();
    b.finish().unwrap().to_vec()
}

/// Serve `Echo` with `vectored_write_min`, run `calls` against it over `framing`; the
/// runtime's copied bytes during the calls.
async fn run(vectored_write_min: usize, framing: Framing, sizes: &[usize]) -> u64 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = ServerConfig {
        vectored_write_min,
        // Room to remember the large first answer for the pipelined call below.
        pipeline_bytes: 1 << 20,
        ..ServerConfig::default()
    };
    let stop = CancellationToken::new();
    let server = tokio::spawn(Server::new(listener, Arc::new(Echo), config).run(stop.clone()));
    let client = Client::connect_with(
        addr,
        ClientConfig {
            framing,
            ..ClientConfig::default()
        },
    )
    .await
    .unwrap();
    let requests: Vec<(Vec<u8>, Vec<u8>)> = sizes
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            let d = data(len, i as u8);
            (request(&d), d)
        })
        .collect();
    let before = copies::copied_bytes();
    // All at once: the client pipelines them, so answers large and small share flushes.
    let calls: Vec<_> = requests
        .iter()
        .map(|(req, _)| {
            let (client, req) = (client.clone(), req.clone());
            tokio::spawn(async move { client.call_raw_bytes(ECHO, 0, &req).await })
        })
        .collect();
    let mut answers = Vec::new();
    for call in calls {
        answers.push(call.await.unwrap().unwrap());
    }
    // And one pipelined on a large result: its body is remembered, then echoed.
    let first = client.next_promise_id();
    let (status, _) = client
        .call_raw_bytes_with_id(first, ECHO, 0, &requests[0].0)
        .await
        .unwrap();
    assert_eq!(status, Status::OK);
    let (status, piped) = client.call_raw_bytes(ECHO, first, b"").await.unwrap();
    let copied = copies::copied_bytes() - before;
    for ((status, body), (_, want)) in answers.into_iter().zip(&requests) {
        assert_eq!(status, Status::OK);
        let got = Message::parse(&body).unwrap().root().bytes(0).to_vec();
        assert!(
            got == *want,
            "an echo of {} bytes came back wrong",
            want.len()
        );
    }
    assert_eq!(status, Status::OK);
    assert_eq!(
        Message::parse(&piped).unwrap().root().bytes(0),
        &requests[0].1[..]
    );
    drop(client);
    stop.cancel();
    server.await.unwrap().unwrap();
    copied
}

#[test]
fn large_answers_are_written_vectored_with_one_copy_fewer() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let t = DEFAULT_VECTORED_WRITE_MIN;
        let sizes = [t, 100, t - 64, t + 1, 3 * t, 5, 1 << 20, 2 * t, 0, 300_000];
        for framing in [Framing::Rpc, Framing::Node] {
            let vectored = run(t, framing, &sizes).await;
            let coalesced = run(usize::MAX, framing, &sizes).await;
            // The answers that went out vectored (a message of header, fixed section
            // and data of at least `t` bytes; the pipelined pair echoes sizes[0] twice)
            // were not copied into the write buffer; every other copy is the same.
            let saved: u64 = sizes
                .iter()
                .chain([&sizes[0], &sizes[0]])
                .map(|&len| 16 + 8 + len)
                .filter(|&msg| msg >= t)
                .map(|msg| msg as u64)
                .sum();
            assert_eq!(
                coalesced - vectored,
                saved,
                "{framing:?}: {vectored} bytes copied vectored, {coalesced} coalesced"
            );
        }
    });
}
