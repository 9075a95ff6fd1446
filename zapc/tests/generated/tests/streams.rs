//! The generated stream handlers and client stubs of `schemas/streams.zap`, over a real
//! socket: the ZAP/TCP server and client, every kind of stream, limits, cancellation and
//! shutdown.

use crate::notes;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use notes::{note, Ended, Impl};
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::rpc::Status;
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::stream::{Receiver, StreamError};
use zap_runtime::{Authorize, Authorizer, ClientError, Transport};
use zapc_generated_tests::streams::{CountRequest, Note, NotesClient, NotesService};

struct Running {
    addr: SocketAddr,
    ended: Arc<Ended>,
    stop: CancellationToken,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn serve(config: ServerConfig) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let ended = Arc::new(Ended::default());
    let service = NotesService::new(Impl {
        ended: ended.clone(),
    });
    let stop = CancellationToken::new();
    let server = tokio::spawn(Server::new(listener, Arc::new(service), config).run(stop.clone()));
    Running {
        addr,
        ended,
        stop,
        server,
    }
}

async fn client(addr: SocketAddr) -> NotesClient<Client> {
    NotesClient::new(Client::connect(addr).await.unwrap())
}

async fn collect(mut rx: Receiver<Note>) -> Result<Vec<(u32, String)>, ClientError> {
    let mut got = Vec::new();
    while let Some(note) = rx.next().await? {
        got.push((note.get().seq(), note.get().text().to_owned()));
    }
    Ok(got)
}

fn expected(range: std::ops::Range<u32>) -> Vec<(u32, String)> {
    range.map(|i| (i, format!("note {i}"))).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_stream_round_trips() {
    let running = serve(ServerConfig::default()).await;
    let notes = client(running.addr).await;

    // Server stream.
    let heads = notes.count(&CountRequest { n: 5 }).await.unwrap();
    assert_eq!(collect(heads).await.unwrap(), expected(0..5));

    // Bidirectional: everything sent comes back, then the end.
    let (mut tx, rx) = notes.echo().await.unwrap();
    for i in 0..3 {
        tx.send(&note(i)).await.unwrap();
    }
    tx.end();
    assert_eq!(collect(rx).await.unwrap(), expected(0..3));

    // Client stream: one answer after the end.
    let (mut tx, mut rx) = notes.tally().await.unwrap();
    for i in 0..4 {
        tx.send(&note(i)).await.unwrap();
    }
    tx.end();
    let total = rx.next().await.unwrap().expect("one answer");
    assert_eq!((total.get().notes(), total.get().chars()), (4, 24));
    assert!(rx.next().await.unwrap().is_none(), "then the end");

    // An opening message and messages both ways.
    let (mut tx, rx) = notes.relay(&CountRequest { n: 100 }).await.unwrap();
    tx.send(&note(1)).await.unwrap();
    tx.send(&note(2)).await.unwrap();
    drop(tx);
    let got = collect(rx).await.unwrap();
    assert_eq!(
        got,
        vec![(101, "note 101".into()), (102, "note 102".into())]
    );

    // Calls still work on the same connection.
    notes.ping().await.unwrap();
    running.stop.cancel();
    running.server.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_and_calls_interleave_on_one_connection() {
    let running = serve(ServerConfig::default()).await;
    let notes = client(running.addr).await;
    let streams: Vec<_> = (0..20)
        .map(|_| {
            let notes = notes.clone();
            tokio::spawn(async move {
                let rx = notes.count(&CountRequest { n: 300 }).await.unwrap();
                collect(rx).await.unwrap()
            })
        })
        .collect();
    for _ in 0..200 {
        notes.ping().await.unwrap();
    }
    for s in streams {
        assert_eq!(s.await.unwrap(), expected(0..300));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_method_is_not_a_call_and_an_unknown_stream_ends_at_once() {
    let running = serve(ServerConfig::default()).await;
    let conn = Client::connect(running.addr).await.unwrap();
    let (status, body) = conn.call_raw(11, 0, &[]).await.unwrap();
    assert_eq!(status, Status::BAD_REQUEST);
    assert!(
        String::from_utf8_lossy(&body).contains("`count` is a stream method"),
        "{}",
        String::from_utf8_lossy(&body)
    );
    // Ordinal 1 is a call, 99 nothing: both streams end at once, with status 404.
    for ordinal in [1, 99] {
        let mut io = conn.open_stream(ordinal, &[]).await.unwrap();
        let err = io.inbound.next().await.unwrap_err();
        assert!(
            matches!(&err, StreamError::Ended { status, message }
                if *status == Status::NOT_FOUND && message.contains("no stream method")),
            "ordinal {ordinal}: {err}"
        );
    }
    // A bad opening message ends the stream with the handler's 400, and the
    // connection goes on.
    let mut io = conn.open_stream(11, b"not a message").await.unwrap();
    let err = io.inbound.next().await.unwrap_err();
    assert!(
        matches!(&err, StreamError::Ended { status, .. } if *status == Status::BAD_REQUEST),
        "{err}"
    );
    NotesClient::new(conn).ping().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_connection_cancels_its_handlers() {
    let running = serve(ServerConfig::default()).await;
    let notes = client(running.addr).await;
    // Both handlers are running: the echo answers, the endless stream sends (and
    // soon fills its queue, after which this connection reads nothing more).
    let (mut tx, mut echo) = notes.echo().await.unwrap();
    tx.send(&note(7)).await.unwrap();
    assert_eq!(echo.next().await.unwrap().unwrap().get().seq(), 7);
    let mut rx = notes.count(&CountRequest { n: u32::MAX }).await.unwrap();
    assert_eq!(rx.next().await.unwrap().unwrap().get().seq(), 0);
    drop(notes);
    drop(rx);
    running.ended.wait_for(2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_past_the_limit_are_ended_at_once() {
    let running = serve(ServerConfig {
        max_streams: 2,
        ..ServerConfig::default()
    })
    .await;
    let notes = client(running.addr).await;
    // Two endless streams, each read by its own task: a stream nobody reads would
    // stop the connection's reading once its queue is full (no flow control per
    // stream on this wire).
    let mut readers = Vec::new();
    for _ in 0..2 {
        let mut rx = notes.count(&CountRequest { n: u32::MAX }).await.unwrap();
        assert!(rx.next().await.unwrap().is_some());
        readers.push(tokio::spawn(async move {
            for _ in 0..2000 {
                rx.next().await.unwrap().expect("the stream goes on");
            }
        }));
    }
    let third = notes.count(&CountRequest { n: 3 }).await.unwrap();
    let err = collect(third).await.unwrap_err();
    assert!(
        matches!(&err, ClientError::Status { status, message }
            if *status == Status::OVERLOADED && message.contains("streams are open")),
        "{err}"
    );
    for reader in readers {
        reader.await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_ends_streams_cleanly() {
    let running = serve(ServerConfig::default()).await;
    let notes = client(running.addr).await;
    let mut rx = notes.count(&CountRequest { n: u32::MAX }).await.unwrap();
    assert!(rx.next().await.unwrap().is_some());
    running.stop.cancel();
    // Messages already written arrive, then the end frame: not a closed connection.
    loop {
        match rx.next().await {
            Ok(Some(_)) => continue,
            Ok(None) => break,
            Err(e) => panic!("the stream should end cleanly, got {e}"),
        }
    }
    running.server.await.unwrap().unwrap();
    running.ended.wait_for(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_stream_is_ended() {
    let running = serve(ServerConfig {
        stream_idle_timeout: Duration::from_millis(200),
        ..ServerConfig::default()
    })
    .await;
    let notes = client(running.addr).await;
    let (_tx, rx) = notes.echo().await.unwrap();
    // Nothing is sent: the server ends the stream by itself, saying why (408).
    let err = collect(rx).await.unwrap_err();
    assert!(
        matches!(&err, ClientError::Status { status, message }
            if status.0 == 408 && message.contains("no message")),
        "{err}"
    );
    running.ended.wait_for(1).await;
}

/// Ordinal 13 only for the capability `ok`.
#[derive(Debug)]
struct Gate;

impl Authorize for Gate {
    fn authorize(&self, cap: &[u8], ordinal: u32, why: &mut String) -> Result<(), Status> {
        if ordinal != 13 || cap == b"ok" {
            return Ok(());
        }
        why.push_str("relay needs the capability");
        Err(Status::FORBIDDEN)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_capability_is_checked_when_a_stream_opens() {
    let running = serve(ServerConfig {
        authorize: Some(Authorizer::new(Gate)),
        ..ServerConfig::default()
    })
    .await;
    let open = |cap: &'static [u8]| async move {
        let config = ClientConfig {
            cap: cap.to_vec(),
            ..ClientConfig::default()
        };
        let notes = NotesClient::new(Client::connect_with(running.addr, config).await.unwrap());
        let (mut tx, rx) = notes.relay(&CountRequest { n: 1 }).await.unwrap();
        // The refused stream may already be over: a send then fails or is dropped.
        let _ = tx.send(&note(1)).await;
        drop(tx);
        collect(rx).await
    };
    assert_eq!(open(b"ok").await.unwrap(), vec![(2, "note 2".into())]);
    let err = open(b"nope").await.unwrap_err();
    assert!(
        matches!(&err, ClientError::Status { status, message }
            if *status == Status::FORBIDDEN && message.contains("relay needs the capability")),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transport_without_streams_says_so() {
    let local = zap_runtime::Local(NotesService::new(Impl {
        ended: Arc::default(),
    }));
    let err = local.open_stream(11, &[]).await.unwrap_err();
    assert!(err.to_string().contains("does not carry streams"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnecting_client_opens_streams_on_its_connection() {
    use zap_runtime::client::{ReconnectConfig, Reconnecting};
    let running = serve(ServerConfig::default()).await;
    let conn = Reconnecting::new(running.addr.to_string(), ReconnectConfig::default());
    assert!(conn.connected(Duration::from_secs(10)).await);
    let notes = NotesClient::new(conn);
    let heads = notes.count(&CountRequest { n: 3 }).await.unwrap();
    assert_eq!(collect(heads).await.unwrap(), expected(0..3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_balanced_client_spreads_streams_over_its_endpoints() {
    use zap_runtime::client::{BalanceConfig, Balanced};
    let (one, two) = (
        serve(ServerConfig::default()).await,
        serve(ServerConfig::default()).await,
    );
    let conn = Balanced::new(
        [one.addr.to_string(), two.addr.to_string()],
        BalanceConfig::default(),
    );
    assert!(conn.ready(2, Duration::from_secs(10)).await);
    let notes = NotesClient::new(conn);
    let mut streams = Vec::new();
    for _ in 0..4 {
        streams.push(notes.count(&CountRequest { n: 5 }).await.unwrap());
    }
    for heads in streams {
        assert_eq!(collect(heads).await.unwrap(), expected(0..5));
    }
    // Both servers served two of them (their handlers ended there).
    one.ended.wait_for(2).await;
    two.ended.wait_for(2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_ends_with_its_handlers_error() {
    let running = serve(ServerConfig::default()).await;
    let notes = client(running.addr).await;
    let mut rx = notes
        .count(&CountRequest { n: notes::UNLUCKY })
        .await
        .unwrap();
    // The messages sent before the error arrive, then the error itself.
    assert_eq!(rx.next().await.unwrap().unwrap().get().seq(), 0);
    assert_eq!(rx.next().await.unwrap().unwrap().get().seq(), 1);
    let err = rx.next().await.unwrap_err();
    assert!(
        matches!(&err, StreamError::Ended { status, message }
            if status.0 == 32013 && message == "13 is unlucky"),
        "{err}"
    );
    // As a client error: the application error it is.
    match ClientError::from(err) {
        ClientError::App(app) => assert_eq!((app.code.get(), &*app.message), (13, "13 is unlucky")),
        other => panic!("{other}"),
    }
    running.ended.wait_for(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_ends_on_both_sides_when_its_deadline_passes() {
    use zap_runtime::context::CallOptions;
    let running = serve(ServerConfig::default()).await;
    let notes = client(running.addr).await;
    // An echo nobody writes to: only the deadline ends it.
    let (tx, mut rx) = CallOptions::new()
        .deadline_in(Duration::from_millis(200))
        .scope(notes.echo())
        .await
        .unwrap();
    let err = rx.next().await.unwrap_err();
    assert!(err.is_deadline_exceeded(), "{err}");
    // The server dropped its handler too.
    running.ended.wait_for(1).await;
    drop(tx);
    // The connection goes on.
    notes.ping().await.unwrap();
}
