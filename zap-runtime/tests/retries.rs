//! Retries of calls that are safe to repeat, against a real socket whose server takes
//! each request and dies before answering (the call may have run): a call marked
//! idempotent (`Transport::call_idempotent`, what generated stubs send for methods the
//! schema marks) is sent again, a call that is not is never sent twice, the retry budget
//! holds under a total outage, and the deadline bounds the loop. The balanced client
//! against real servers killed under load is `examples/eth-rpc/tests/balance.rs`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;
use zap_runtime::client::{ReconnectConfig, Reconnecting, Retry};
use zap_runtime::context::CallOptions;
use zap_runtime::frame::{Direction, FrameDecoder};
use zap_runtime::{ClientError, Transport};

/// Requests received, by method ordinal (1 and 2).
#[derive(Default)]
struct Received([AtomicU64; 3]);

impl Received {
    fn of(&self, ordinal: u32) -> u64 {
        self.0[ordinal as usize].load(Ordering::SeqCst)
    }
}

/// A server that reads one request per connection, counts it, and closes the
/// connection without answering: the worst a crash can do to a call.
async fn dies_after_each_request() -> (String, Arc<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let received = Arc::new(Received::default());
    let counts = Arc::clone(&received);
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let counts = Arc::clone(&counts);
            tokio::spawn(async move {
                let mut decoder = FrameDecoder::new(1 << 20);
                let mut buf = Vec::new();
                loop {
                    if stream.read_buf(&mut buf).await.unwrap_or(0) == 0 {
                        return;
                    }
                    if let Ok(Some((frame, _))) = decoder.decode(&buf) {
                        if frame.dir == Direction::Request {
                            let call = zap_runtime::rpc::Request::parse(frame.envelope).unwrap();
                            counts.0[call.method as usize].fetch_add(1, Ordering::SeqCst);
                        }
                        return; // dropped: the connection closes unanswered
                    }
                }
            });
        }
    });
    (addr, received)
}

fn config(retry: Retry) -> ReconnectConfig {
    ReconnectConfig {
        backoff_min: Duration::from_millis(1),
        backoff_max: Duration::from_millis(50),
        retry,
        // The server reads one frame per connection: no health stream.
        watch_health: false,
        ..ReconnectConfig::default()
    }
}

async fn connected(addr: &str, retry: Retry) -> Reconnecting {
    let client = Reconnecting::new(addr, config(retry));
    assert!(client.connected(Duration::from_secs(10)).await, "connects");
    client
}

#[tokio::test]
async fn an_idempotent_call_is_sent_again_and_any_other_only_once() {
    let (addr, received) = dies_after_each_request().await;
    let retry = Retry {
        attempts: 2,
        backoff_min: Duration::from_millis(1),
        ..Retry::default()
    };
    let client = connected(&addr, retry).await;

    // Method 1, not marked: sent once, its failure handed back.
    let once = client.call(1, b"").await;
    assert!(
        matches!(once, Err(ClientError::Closed(_) | ClientError::Io(_))),
        "{once:?}"
    );
    assert_eq!(
        received.of(1),
        1,
        "a call not marked idempotent is never sent twice"
    );
    assert_eq!(client.retries(), 0);

    // Method 2, marked: sent again twice (three in all), then the failure. (Wait for the
    // connection first, so that its first try is a send, not a wait for one.)
    assert!(client.connected(Duration::from_secs(10)).await);
    let again = client.call_idempotent(2, b"").await;
    assert!(again.is_err(), "{again:?}");
    assert_eq!(received.of(2), 3, "sent once and retried twice");
    assert_eq!(client.retries(), 2);

    // A method listed by hand (a schema without markers) is retried as a marked one.
    let listed = connected(&addr, Retry::idempotent(&[1], 1)).await;
    assert!(listed.connected(Duration::from_secs(10)).await);
    let _ = listed.call(1, b"").await;
    assert_eq!(received.of(1), 3, "one more, and one retry");
}

#[tokio::test]
async fn the_retry_budget_holds_under_a_total_outage() {
    let (addr, received) = dies_after_each_request().await;
    let retry = Retry {
        attempts: 3,
        backoff_min: Duration::from_millis(1),
        backoff_max: Duration::from_millis(2),
        budget_ratio: 0.1,
        min_per_second: 5,
        ..Retry::default()
    };
    let client = connected(&addr, retry).await;
    let started = std::time::Instant::now();
    let calls = 300u64;
    for _ in 0..calls {
        // Each call's first try is a send (not a wait for the next connection), so the
        // server counts every call.
        assert!(client.connected(Duration::from_secs(10)).await);
        let _ = client.call_idempotent(2, b"").await;
    }
    let seconds = started.elapsed().as_secs_f64();
    let retries = client.retries();
    // What the budget allows: a tenth of the calls, the initial five, five a second.
    let allowed = calls as f64 * 0.1 + 5.0 + 5.0 * seconds.ceil();
    assert!(
        (retries as f64) <= allowed,
        "{retries} retries for {calls} calls in {seconds:.1} s: the budget allows {allowed:.0}"
    );
    assert!(retries > 0, "some calls were retried");
    assert_eq!(
        received.of(2),
        calls + retries,
        "every send reached the server once"
    );
    // Without the budget the same outage costs `attempts + 1` sends per call.
    assert!(received.of(2) < calls * 2);
}

#[tokio::test]
async fn the_deadline_bounds_the_retries() {
    let (addr, received) = dies_after_each_request().await;
    let retry = Retry {
        attempts: 10,
        // Waits of 20-40 ms, then 40-80 ms: the second ends past a 60 ms deadline.
        backoff_min: Duration::from_millis(40),
        backoff_max: Duration::from_secs(1),
        ..Retry::default()
    };
    let client = connected(&addr, retry).await;
    let options = CallOptions::new().deadline_in(Duration::from_millis(60));
    let result = options.scope(client.call_idempotent(2, b"")).await;
    assert!(result.is_err(), "{result:?}");
    assert!(
        client.retries() <= 1,
        "{} retries within 60 ms",
        client.retries()
    );
    assert_eq!(received.of(2), 1 + client.retries());
}
