//! Shared by the example's tests: the real servers on ephemeral ports, and a raw
//! HTTP/1.1 client (one request per connection, `Connection: close`), curl-like.

#![allow(dead_code)] // each test file uses a different part

use std::net::SocketAddr;
use std::time::Duration;

use eth_rpc::{Config, Servers};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use zap_runtime::server::ServerStats;

/// Both servers of the example, running in this process.
pub struct Running {
    pub zap: SocketAddr,
    pub http: SocketAddr,
    pub zap_stats: ServerStats,
    pub http_stats: ServerStats,
    stop: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Bind both transports on 127.0.0.1 port 0 and serve.
    pub async fn start() -> Running {
        Running::start_with(Config::default()).await
    }

    /// Serve `config` (its addresses replaced by 127.0.0.1 port 0).
    pub async fn start_with(config: Config) -> Running {
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        let config = Config {
            zap_addr: loopback,
            http_addr: loopback,
            ..config
        };
        let servers = Servers::bind(config).await.expect("bind on port 0");
        let (zap, http) = (servers.zap_addr(), servers.http_addr());
        let (zap_stats, http_stats) = (servers.zap_stats(), servers.http_stats());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(servers.serve(async move {
            let _ = stopped.await;
        }));
        Running {
            zap,
            http,
            zap_stats,
            http_stats,
            stop,
            task,
        }
    }

    /// Trigger the shutdown and wait until both transports have stopped.
    pub async fn stop(self) {
        let _ = self.stop.send(());
        tokio::time::timeout(Duration::from_secs(15), self.task)
            .await
            .expect("the servers stop within 15 s")
            .expect("the serving task does not panic")
            .expect("serving ends without error");
    }

    /// POST `body` to /rpc: the HTTP status and the body as JSON (`Null` if empty).
    pub async fn rpc(&self, body: &str) -> (u16, Value) {
        let (status, body) = http(self.http, "POST", "/rpc", body).await;
        let json = if body.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&body).expect("the body is JSON")
        };
        (status, json)
    }
}

/// One HTTP/1.1 request on a new connection; the status and the body.
pub async fn http(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, Vec<u8>) {
    http_with_headers(addr, method, path, &[], body).await
}

/// As [`http`], with `headers` added to the request.
pub async fn http_with_headers(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let extra: String = headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         {extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut response))
        .await
        .expect("an answer within 5 s")
        .expect("read");
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = String::from_utf8_lossy(&response[..split]);
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    (status, response[split + 4..].to_vec())
}
