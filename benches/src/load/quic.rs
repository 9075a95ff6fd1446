//! ZAP over QUIC: `eth_getBalance` through `QuicClient`, up to the depth in flight on one
//! QUIC connection (each call its own QUIC stream), every answer checked.

use std::sync::Arc;
use std::time::Instant;

use zap_runtime::quic::{QuicClient, QuicClientConfig};
use zap_runtime::{Builder, Transport, ZapStruct};

use super::{expected, Clock, ConnStats, LoadConfig, BLOCK};
use crate::generated::eth::{BalanceRequest, BalanceResponse};

/// The method ordinal of `getBalance`.
const GET_BALANCE: u32 = 1;

pub(super) async fn drive(
    config: &LoadConfig,
    clock: Arc<Clock>,
    ledger: Arc<eth_rpc::ledger::Ledger>,
    first_id: u64,
) -> Result<ConnStats, String> {
    let tls = config
        .tls
        .as_ref()
        .ok_or("the quic target needs --tls-ca (QUIC is always TLS)")?;
    let client = QuicClient::connect(
        config.addr,
        tls,
        QuicClientConfig {
            call_timeout: config.stall_timeout,
            ..QuicClientConfig::default()
        },
    )
    .await
    .map_err(|e| format!("QUIC connect: {e}"))?;
    let client = Arc::new(client);
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..config.depth {
        let (client, clock, ledger) = (client.clone(), clock.clone(), ledger.clone());
        workers.spawn(async move {
            let mut stats = ConnStats::default();
            let mut b = Builder::new();
            let mut id = first_id + ((worker as u64) << 32);
            loop {
                let sent = Instant::now();
                if !clock.take(sent) {
                    return Ok::<_, String>(stats);
                }
                let (account, want) = expected(&ledger, (id as usize) % ledger.len());
                let request = BalanceRequest {
                    id,
                    block: BLOCK,
                    account,
                };
                let payload = request.encode(&mut b).map_err(|e| e.to_string())?.to_vec();
                let answer = client
                    .call(GET_BALANCE, &payload)
                    .await
                    .map_err(|e| format!("call {id}: {e}"))?;
                let done = Instant::now();
                let answer = BalanceResponse::decode(&answer).map_err(|e| e.to_string())?;
                if (answer.id, answer.balance) != (id, want.balance) {
                    return Err(format!(
                        "call {id}: got (id, balance) {:?}, want {:?}",
                        (answer.id, answer.balance),
                        (id, want.balance)
                    ));
                }
                stats.answered_at(&clock, sent, done);
                id += 1;
            }
        });
    }
    let mut all = ConnStats::default();
    while let Some(done) = workers.join_next().await {
        let stats = done.map_err(|e| e.to_string())??;
        all.latencies.extend(stats.latencies);
        all.answered += stats.answered;
        all.last = all.last.max(stats.last);
    }
    client.close().await;
    Ok(all)
}
