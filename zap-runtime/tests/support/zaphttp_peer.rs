//! The canonical Go zaphttp as a test peer (`zaphttp-peer`, built by
//! `../shared/peers/zap-http/build.sh target/zaphttp`), for the tests of every crate that
//! talk to it (each includes this file by `#[path]`).

#![allow(dead_code)] // each including test uses a part

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `$ZAPHTTP_PEER`, else `target/zaphttp/zaphttp-peer` of the workspace.
pub fn path() -> PathBuf {
    let path = std::env::var_os("ZAPHTTP_PEER").map_or_else(
        || {
            let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
            crate_dir
                .ancestors()
                .map(|dir| dir.join("target/zaphttp/zaphttp-peer"))
                .find(|candidate| candidate.exists())
                .unwrap_or_else(|| crate_dir.join("target/zaphttp/zaphttp-peer"))
        },
        PathBuf::from,
    );
    assert!(
        path.exists(),
        "{} not found; build it with ../shared/peers/zap-http/build.sh target/zaphttp",
        path.display()
    );
    path
}

/// `zaphttp-peer serve` on `network` (`tcp` on 127.0.0.1, port 0, or `unix` on a socket
/// in a folder of its own), killed when dropped.
pub struct GoServer {
    child: Child,
    /// Its address as it printed it: `HOST:PORT`, or the socket's path.
    pub addr: String,
    unix: bool,
    _dir: tempfile::TempDir,
}

impl GoServer {
    /// Start it and wait (at most 20 s) for its ready file.
    pub fn start(network: &str) -> GoServer {
        let dir = tempfile::tempdir().unwrap();
        let ready = dir.path().join("ready");
        let unix = network == "unix";
        let addr = match unix {
            true => dir.path().join("sock").display().to_string(),
            false => "127.0.0.1:0".to_owned(),
        };
        let child = Command::new(path())
            .args([
                "serve",
                "--network",
                network,
                "--addr",
                &addr,
                "--ready-file",
            ])
            .arg(&ready)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        let line = loop {
            if let Ok(line) = std::fs::read_to_string(&ready) {
                break line;
            }
            assert!(
                Instant::now() < deadline,
                "zaphttp-peer serve did not get ready"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let addr = line.trim().split_once('=').unwrap().1.to_owned();
        GoServer {
            child,
            addr,
            unix,
            _dir: dir,
        }
    }

    /// Its address as the Rust client and `zapc http` take it: `HOST:PORT` or
    /// `unix:PATH`.
    pub fn address(&self) -> String {
        match self.unix {
            true => format!("unix:{}", self.addr),
            false => self.addr.clone(),
        }
    }
}

impl Drop for GoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
