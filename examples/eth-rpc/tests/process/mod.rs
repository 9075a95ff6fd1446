//! The real `eth-rpc` binary as a child process: started on the addresses asked for
//! (port 0 by default), its bound addresses read from its own log line, signalled with
//! the real `kill`, its `/health` polled.

#![allow(dead_code)] // each test file uses a different part

use std::net::SocketAddr;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

/// One running `eth-rpc` process.
pub struct EthRpc {
    child: Child,
    pub pid: u32,
    pub zap: SocketAddr,
    pub http: SocketAddr,
}

/// The address `key=ADDR` in a log line.
fn addr_in(line: &str, key: &str) -> Option<SocketAddr> {
    line.split_whitespace()
        .find_map(|word| word.strip_prefix(key))
        .and_then(|a| a.parse().ok())
}

impl EthRpc {
    /// `eth-rpc` on 127.0.0.1 port 0 (both ports) with `extra` arguments.
    pub async fn start(extra: &[&str]) -> EthRpc {
        EthRpc::start_on("127.0.0.1:0", "127.0.0.1:0", extra).await
    }

    /// `eth-rpc --zap-addr ZAP --http-addr HTTP` with `extra` arguments; returns once it
    /// serves (its "eth-rpc serving" log line).
    pub async fn start_on(zap: &str, http: &str, extra: &[&str]) -> EthRpc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_eth-rpc"))
            .args(["--zap-addr", zap, "--http-addr", http])
            .args(extra)
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("run the eth-rpc binary");
        let pid = child.id().expect("a running child has a pid");
        let mut lines = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
        let (zap, http) = loop {
            let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
                .await
                .expect("eth-rpc logs within 30 s")
                .expect("read eth-rpc's log")
                .expect("eth-rpc exited before serving");
            if line.contains("eth-rpc serving") {
                break (
                    addr_in(&line, "zap=").expect("zap address in the log"),
                    addr_in(&line, "http=").expect("http address in the log"),
                );
            }
        };
        // Keep draining the log so the server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        EthRpc {
            child,
            pid,
            zap,
            http,
        }
    }

    /// Send `signal` (`TERM`, `INT`, `KILL`) with the real `kill` command.
    pub fn kill(&self, signal: &str) {
        let status = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid.to_string())
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -{signal} {} failed", self.pid);
    }

    /// The HTTP status of `GET path`, or `None` when the port does not answer.
    pub async fn get(&self, path: &str) -> Option<u16> {
        get_status(self.http, path).await
    }

    /// Poll `GET /health` until it answers `status`.
    pub async fn until_health(&self, status: u16) {
        let mut tick = tokio::time::interval(Duration::from_millis(10));
        loop {
            tick.tick().await;
            if self.get("/health").await == Some(status) {
                return;
            }
        }
    }

    /// Wait for the process to exit: its status.
    pub async fn wait(&mut self) -> ExitStatus {
        tokio::time::timeout(Duration::from_secs(60), self.child.wait())
            .await
            .expect("eth-rpc exits within 60 s")
            .expect("wait for eth-rpc")
    }
}

/// The HTTP status of `GET path` at `addr` (one request, `Connection: close`), or
/// `None` when nothing answers there or the connection breaks.
pub async fn get_status(addr: SocketAddr, path: &str) -> Option<u16> {
    let mut stream = TcpStream::connect(addr).await.ok()?;
    let head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await.ok()?;
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .ok()?
        .ok()?;
    // "HTTP/1.1 200 OK"
    std::str::from_utf8(answer.get(9..12)?).ok()?.parse().ok()
}
