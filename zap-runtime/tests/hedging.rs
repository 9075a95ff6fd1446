//! Hedging (`Retry::hedge`) through the balanced client over two real servers, one of
//! which never answers: every `no_side_effects` call is answered all the same, by a
//! second copy sent to the other server, and the stuck copy's handler is cancelled (the
//! cancel frame reaches it); a call that is only `idempotent` is never hedged, so it is
//! sent once and a stuck server keeps it until its deadline, which the balanced client
//! carries from the caller's task to the endpoint's, as it carries metadata both ways.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use zap_runtime::client::{BalanceConfig, Balanced, Retry};
use zap_runtime::context::CallOptions;
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::stream::Streaming;
use zap_runtime::{Builder, CallError, MethodInfo, Reply, Service, Transport};

/// Method 1 answers at once, or never when the server is stuck; it counts the calls
/// that started and those dropped before answering (cancelled).
#[derive(Default)]
struct Read {
    stuck: bool,
    started: AtomicU64,
    cancelled: AtomicU64,
}

/// Counts a handler dropped before it answered.
struct Dropped<'a>(&'a AtomicU64);

impl Drop for Dropped<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl Service for Read {
    const NAME: &'static str = "Read";
    const METHODS: &'static [MethodInfo] = &[MethodInfo::new(1, "read", Streaming::Unary)];

    async fn call(&self, _: u32, _: &[u8], _: &mut Builder) -> Result<Reply, CallError> {
        self.started.fetch_add(1, Ordering::SeqCst);
        let context = zap_runtime::context::Context::current();
        if let Some(echo) = context.metadata().get("echo") {
            let _ = context.set_answer_metadata("echo", echo.to_vec());
        }
        if self.stuck {
            let _dropped = Dropped(&self.cancelled);
            std::future::pending::<()>().await;
        }
        Ok(Reply::Empty)
    }
}

async fn serve(stuck: bool) -> (String, Arc<Read>, CancellationToken) {
    let service = Arc::new(Read {
        stuck,
        ..Read::default()
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let stop = CancellationToken::new();
    tokio::spawn(
        Server::new(listener, Arc::clone(&service), ServerConfig::default()).run(stop.clone()),
    );
    (addr, service, stop)
}

async fn balanced(addrs: [&str; 2]) -> Balanced {
    let client = Balanced::new(
        addrs,
        BalanceConfig {
            retry: Retry {
                hedge: Some(Duration::from_millis(20)),
                // Enough budget that no call goes unhedged for want of it.
                min_per_second: 1000,
                ..Retry::default()
            },
            ..BalanceConfig::default()
        },
    );
    assert!(
        client.ready(2, Duration::from_secs(10)).await,
        "both connected"
    );
    client
}

/// Wait (at most 10 s) until `done` holds: the cancel frames travel on their own.
async fn until(what: &str, done: impl Fn() -> bool) {
    let wait = async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), wait)
        .await
        .unwrap_or_else(|_| panic!("not within 10 s: {what}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_stuck_on_one_server_is_answered_by_its_hedge_and_the_loser_cancelled() {
    let (stuck_addr, stuck, stop_stuck) = serve(true).await;
    let (quick_addr, quick, stop_quick) = serve(false).await;
    let client = balanced([&stuck_addr, &quick_addr]).await;
    for n in 0..20 {
        // A call that reached the stuck server can only be answered by its hedge.
        let answer =
            tokio::time::timeout(Duration::from_secs(30), client.call_no_side_effects(1, b""))
                .await
                .unwrap_or_else(|_| panic!("call {n} hangs: not hedged"));
        assert!(answer.is_ok(), "call {n}: {answer:?}");
    }
    let hung = stuck.started.load(Ordering::SeqCst);
    assert!(hung > 0, "some call reached the stuck server");
    assert_eq!(
        client.hedges(),
        hung,
        "one hedge for each call the stuck server held"
    );
    assert!(quick.started.load(Ordering::SeqCst) >= 20);
    until("every stuck copy cancelled", || {
        stuck.cancelled.load(Ordering::SeqCst) == hung
    })
    .await;
    stop_stuck.cancel();
    stop_quick.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotent_call_is_never_hedged() {
    let (stuck_addr, stuck, stop_stuck) = serve(true).await;
    let (quick_addr, quick, stop_quick) = serve(false).await;
    let client = balanced([&stuck_addr, &quick_addr]).await;
    let options = CallOptions::new().deadline_in(Duration::from_millis(200));
    let mut failed = 0;
    for _ in 0..10 {
        match options.clone().scope(client.call_idempotent(1, b"")).await {
            Ok(_) => {}
            Err(e) if e.is_deadline_exceeded() => failed += 1,
            Err(e) => panic!("{e:?}"),
        }
    }
    assert_eq!(client.hedges(), 0, "no hedge for a call that is not a read");
    let sent = stuck.started.load(Ordering::SeqCst) + quick.started.load(Ordering::SeqCst);
    assert_eq!(sent, 10, "each call sent once");
    assert_eq!(
        failed,
        stuck.started.load(Ordering::SeqCst),
        "the stuck ones ran out of time"
    );
    stop_stuck.cancel();
    stop_quick.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_callers_metadata_and_answer_metadata_cross_the_balancer() {
    let (a, _, stop_a) = serve(false).await;
    let (b, _, stop_b) = serve(false).await;
    let client = balanced([&a, &b]).await;
    for n in 0..4 {
        let answer = zap_runtime::context::AnswerMetadata::new();
        CallOptions::new()
            .header("echo", format!("call {n}"))
            .unwrap()
            .answer_metadata_into(&answer)
            .scope(client.call_idempotent(1, b""))
            .await
            .unwrap();
        assert_eq!(
            answer.get().get_str("echo"),
            Some(format!("call {n}").as_str())
        );
    }
    stop_a.cancel();
    stop_b.cancel();
}
