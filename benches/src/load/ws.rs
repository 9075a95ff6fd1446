//! JSON-RPC over WebSocket (`eth_getBalance` in text frames, up to the depth in flight
//! per connection), with tokio-tungstenite's client: the same requests and checks as
//! the HTTP target, on the same server's HTTP port.

use std::collections::VecDeque;
use std::io::Write as _;
use std::time::Instant;

use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

use super::{expected, Clock, ConnStats, Expected, LoadConfig, BLOCK};

#[derive(Deserialize)]
struct Answer<'a> {
    id: u64,
    result: &'a str,
}

pub(super) async fn drive(
    stream: TcpStream,
    config: &LoadConfig,
    clock: &Clock,
    ledger: &eth_rpc::ledger::Ledger,
    first_id: u64,
) -> Result<ConnStats, String> {
    let url = format!("ws://{}/rpc", config.addr);
    let (mut socket, _) = tokio_tungstenite::client_async(url, stream)
        .await
        .map_err(|e| format!("WebSocket upgrade: {e}"))?;
    let accounts: Vec<(String, Expected)> = (0..ledger.len())
        .map(|i| {
            let (address, want) = expected(ledger, i);
            (zap_runtime::json::to_hex(&address), want)
        })
        .collect();
    let mut stats = ConnStats::default();
    let mut inflight: VecDeque<(u64, Expected, Instant)> = VecDeque::new();
    let mut next_id = first_id;
    let mut sending = true;
    let mut body = Vec::with_capacity(256);
    loop {
        let now = Instant::now();
        let mut queued = false;
        while sending && inflight.len() < config.depth {
            if !clock.take(now) {
                sending = false;
                break;
            }
            let (account, want) = &accounts[(next_id as usize) % accounts.len()];
            body.clear();
            let _ = write!(
                body,
                r#"{{"jsonrpc":"2.0","id":{next_id},"method":"eth_getBalance","params":["{account}","{BLOCK:#x}"]}}"#
            );
            let text = String::from_utf8(body.clone()).map_err(|e| e.to_string())?;
            socket
                .feed(Message::text(text))
                .await
                .map_err(|e| format!("send: {e}"))?;
            inflight.push_back((next_id, *want, now));
            next_id += 1;
            queued = true;
        }
        if queued {
            socket.flush().await.map_err(|e| format!("send: {e}"))?;
        }
        let Some(&(id, want, at)) = inflight.front() else {
            let _ = socket.close(None).await;
            return Ok(stats);
        };
        let frame = tokio::time::timeout(config.stall_timeout, socket.next())
            .await
            .map_err(|_| format!("no answer within {:?}", config.stall_timeout))?
            .ok_or("the server closed the WebSocket")?
            .map_err(|e| format!("read: {e}"))?;
        let Message::Text(text) = frame else {
            continue;
        };
        let done = Instant::now();
        let answer: Answer<'_> =
            serde_json::from_str(text.as_str()).map_err(|e| format!("{e} in {text}"))?;
        let balance = zap_runtime::json::parse_quantity(answer.result, 64)
            .map_err(|e| format!("request {id}: result {:?}: {e}", answer.result))?;
        if (answer.id, balance) != (id, want.balance) {
            return Err(format!(
                "request {id}: got (id, balance) {:?}, want {:?}",
                (answer.id, balance),
                (id, want.balance)
            ));
        }
        inflight.pop_front();
        stats.answered_at(clock, at, done);
    }
}
