//! Heap allocations per stream message on the server, counted on the one thread that
//! runs the server, its stream handlers and a raw client (a current-thread runtime and
//! a counting global allocator): a warm bidirectional stream forwarding each message it
//! receives (at most one allocation per read-buffer block of messages), and a server
//! stream sending with a reused `Sender` (its builder) and a reused message value (none
//! per message). What opening a stream costs is not counted per message: two streams of
//! different lengths are compared.

#[path = "../../../../zap-runtime/tests/support/counting_alloc.rs"]
mod counting_alloc;

use std::sync::Arc;

use counting_alloc::allocations;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zap_runtime::frame::{encode_frame, Direction};
use zap_runtime::rpc::Request;
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::stream::{Receiver, Sender};
use zap_runtime::{Builder, CallError, Owned, ZapStruct};
use zapc_generated_tests::streams::{CountRequest, Note, Notes, NotesService, Total};

struct Quiet;

impl Notes for Quiet {
    async fn ping(&self) -> Result<(), CallError> {
        Ok(())
    }
    /// Forwards each message as received (no decode into owned values, no builder).
    async fn echo(
        &self,
        mut input: Receiver<Note>,
        mut output: Sender<Note>,
    ) -> Result<(), CallError> {
        while let Some(note) = input.next().await? {
            output.send_owned(&note).await?;
        }
        Ok(())
    }
    /// One `Note` value, its number changed for each message; the sender's builder is
    /// reused.
    async fn count(
        &self,
        req: Owned<CountRequest>,
        mut output: Sender<Note>,
    ) -> Result<(), CallError> {
        let mut note = Note {
            seq: 0,
            text: String::new(),
        };
        for seq in 0..req.get().n() {
            note.seq = seq;
            output.send(&note).await?;
        }
        Ok(())
    }
    async fn tally(&self, _: Receiver<Note>) -> Result<Total, CallError> {
        Ok(Total { notes: 0, chars: 0 })
    }
    async fn relay(
        &self,
        _: Owned<CountRequest>,
        _: Receiver<Note>,
        _: Sender<Note>,
    ) -> Result<(), CallError> {
        Ok(())
    }
}

fn frame(dir: Direction, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    encode_frame(&mut out, dir, body).unwrap();
    out
}

fn open(id: u32, method: u32, payload: &[u8]) -> Vec<u8> {
    let mut b = Builder::new();
    let envelope = Request {
        method,
        promise_id: id,
        target: 0,
        cap: b"",
        payload,
    }
    .encode(&mut b)
    .unwrap();
    frame(Direction::StreamOpen, envelope)
}

fn message(id: u32, body: &[u8]) -> Vec<u8> {
    let mut b = id.to_le_bytes().to_vec();
    b.extend_from_slice(body);
    frame(Direction::StreamMessage, &b)
}

/// Read frames until the end frame of stream `id`; the messages read.
async fn read_to_end(stream: &mut TcpStream, buf: &mut Vec<u8>, id: u32) -> usize {
    let mut messages = 0;
    loop {
        let mut head = [0u8; 9];
        stream.read_exact(&mut head).await.unwrap();
        let len = u32::from_le_bytes(head[..4].try_into().unwrap()) as usize;
        assert_eq!(u32::from_le_bytes(head[5..9].try_into().unwrap()), id);
        buf.resize(len - 5, 0);
        stream.read_exact(buf).await.unwrap();
        match head[4] {
            4 => messages += 1,
            5 => return messages,
            dir => panic!("unexpected dir {dir}"),
        }
    }
}

#[test]
fn warm_stream_messages_allocate_nothing_on_the_server() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = CancellationToken::new();
        let server = Server::new(
            listener,
            Arc::new(NotesService::new(Quiet)),
            ServerConfig::default(),
        );
        let running = tokio::spawn(server.run(stop.clone()));
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.set_nodelay(true).unwrap();

        // A bidirectional stream: 64 messages out, 64 back, round after round.
        let note = Note {
            seq: 7,
            text: "warm".into(),
        }
        .to_bytes()
        .unwrap();
        stream.write_all(&open(1, 10, &[])).await.unwrap();
        let batch: Vec<u8> = (0..64).flat_map(|_| message(1, &note)).collect();
        let mut answers = vec![0u8; batch.len()];
        for _ in 0..200 {
            stream.write_all(&batch).await.unwrap();
            stream.read_exact(&mut answers).await.unwrap();
        }
        let before = allocations();
        for _ in 0..300 {
            stream.write_all(&batch).await.unwrap();
            stream.read_exact(&mut answers).await.unwrap();
        }
        let echo = allocations() - before;
        assert_eq!(answers, batch, "every message came back as sent");

        // A server stream: 100 messages against 20 100, the same cost of opening.
        let mut buf = Vec::with_capacity(256);
        let mut count = async |id: u32, n: u32| {
            let req = CountRequest { n }.to_bytes().unwrap();
            let frame = open(id, 11, &req);
            let before = allocations();
            stream.write_all(&frame).await.unwrap();
            let got = read_to_end(&mut stream, &mut buf, id).await;
            assert_eq!(got, n as usize);
            allocations() - before
        };
        // Warm: the stream table, the channels' blocks, the buffers.
        for id in 2..12 {
            count(id, 20_000).await;
        }
        let short = count(100, 100).await;
        let long = count(101, 20_100).await;
        println!(
            "allocations: {echo} for 19 200 echoed messages; a server stream of 100 messages {short}, of 20 100 messages {long}"
        );
        // Received messages are slices of the connection's read buffer (no copy): while
        // some wait in a stream's queue, the buffer's block cannot be reused in place,
        // and the reader takes a new 16 KiB block. That is one allocation per block of
        // messages, not per message.
        assert!(
            echo <= 19_200 / 100,
            "{echo} heap allocations for 19 200 warm echoed messages"
        );
        assert!(
            long <= short,
            "20 000 more messages cost {} more allocations",
            long - short
        );
        drop(stream);
        stop.cancel();
        running.await.unwrap().unwrap();
    });
}
