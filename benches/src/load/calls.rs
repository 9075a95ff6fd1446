//! Targets driven through a client library (tonic, tarpc, Cap'n Proto RPC, zapc's own
//! `Client`): `depth` workers share one connection's client. Without a rate, each worker
//! sends its next call as soon as its last is answered and checked. With a rate, each
//! worker sends on a fixed schedule instead (the workers of all connections together
//! send `rate` calls per second), and a call that is overdue when its worker is free
//! (because the last answer came late) counts from when it was due, not from when it went
//! out: a server that stalls is charged for every call it delayed (no coordinated
//! omission).

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use eth_rpc::ledger::Ledger;

use super::{expected, Clock, ConnStats, LoadConfig};

/// What the workers of one connection share: the run's settings, the connection's
/// number, the clock, the ledger the answers are checked against and the first call id.
#[derive(Clone)]
pub(crate) struct Slot {
    pub config: LoadConfig,
    pub conn: usize,
    pub clock: Arc<Clock>,
    pub ledger: Arc<Ledger>,
    pub first_id: u64,
}

/// Run `config.depth` workers on `client` for the connection `slot`; `call(client, id,
/// account)` makes one `eth_getBalance` call and gives the answer's (id, balance).
pub(crate) async fn workers<C, F, Fut>(slot: &Slot, client: C, call: F) -> Result<ConnStats, String>
where
    C: Clone,
    F: Fn(C, u64, [u8; 20]) -> Fut,
    Fut: Future<Output = Result<(u64, u64), String>>,
{
    let Slot {
        config,
        conn,
        clock,
        ledger,
        first_id,
    } = slot;
    let (conn, first_id) = (*conn, *first_id);
    let all_workers = (config.connections * config.depth) as f64;
    // Each worker's share of the rate: one call every `period`, the workers spread
    // evenly over the first period.
    let period = config
        .rate
        .map(|rate| Duration::from_secs_f64(all_workers / rate));
    let stall = config.stall_timeout;
    // The workers of one connection run in its task (or, for a client that is not
    // `Send`, its thread), polled together.
    let workers = (0..config.depth).map(|worker| {
        let (client, call, clock, ledger) = (client.clone(), &call, clock.clone(), ledger);
        let slot = (conn * config.depth + worker) as f64 / all_workers;
        async move {
            let mut stats = ConnStats::default();
            let mut id = first_id + ((worker as u64) << 32);
            let mut due = period.map(|p| clock.start + p.mul_f64(slot));
            loop {
                // A call that is due later waits for its time, and counts from when it
                // goes out (tokio's timer wakes up to a millisecond late: that lateness
                // is the generator's, not the server's). A call already overdue, because
                // the last answer came late, goes out at once and counts from when it
                // was due.
                let sent = match due {
                    Some(due) if due > Instant::now() => {
                        tokio::time::sleep_until(due.into()).await;
                        Instant::now()
                    }
                    Some(due) => due,
                    None => Instant::now(),
                };
                if !clock.take(sent) {
                    return Ok::<_, String>(stats);
                }
                let (account, want) = expected(ledger, (id as usize) % ledger.len());
                let answer = tokio::time::timeout(stall, call(client.clone(), id, account))
                    .await
                    .map_err(|_| format!("call {id}: no answer within {stall:?}"))??;
                let done = Instant::now();
                if answer != (id, want.balance) {
                    return Err(format!(
                        "call {id}: got (id, balance) {answer:?}, want {:?}",
                        (id, want.balance)
                    ));
                }
                stats.answered_at(&clock, sent, done);
                id += 1;
                due = due.zip(period).map(|(due, period)| due + period);
            }
        }
    });
    let mut all = ConnStats::default();
    for stats in futures_util::future::try_join_all(workers).await? {
        all.latencies.extend(stats.latencies);
        all.answered += stats.answered;
        all.last = all.last.max(stats.last);
    }
    Ok(all)
}
