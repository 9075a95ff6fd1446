//! An axum `Router`, unchanged, served over HTTP over ZAP frames (zaphttp): the Go
//! stack's clients (`github.com/zap-proto/http`, the zip framework) and `zapc http` call
//! it as they call a Go service.
//!
//! ```text
//! cargo run -p zap-runtime --example zaphttp_axum            # 127.0.0.1:9653
//! zapc http 127.0.0.1:9653 /hello/ada
//! zapc http -d 'some bytes' 127.0.0.1:9653 /echo
//! zapc http 127.0.0.1:9653 '/count?to=5'                     # a streamed body
//! ```

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery};
use axum::routing::{get, post};
use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use zap_runtime::zaphttp;

/// The application: what it would be over HTTP/1.1 with `axum::serve`.
fn app() -> Router {
    Router::new()
        .route(
            "/hello/{name}",
            get(|Path(name): Path<String>| async move { format!("hello, {name}\n") }),
        )
        .route("/echo", post(|body: Bytes| async move { body }))
        .route("/count", get(count))
}

/// `/count?to=N`: the numbers 1 to N, one line every 100 ms, as a streamed body: each
/// line is a data frame, sent as it is made.
async fn count(RawQuery(query): RawQuery) -> Body {
    let to: u32 = query
        .as_deref()
        .and_then(|q| q.strip_prefix("to="))
        .and_then(|n| n.parse().ok())
        .unwrap_or(3)
        .min(1000);
    let lines = futures_util::stream::unfold(1, move |n| async move {
        if n > to {
            return None;
        }
        if n > 1 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Some((Ok::<_, Infallible>(Bytes::from(format!("{n}\n"))), n + 1))
    });
    Body::from_stream(lines)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9653".to_owned());
    let listener = TcpListener::bind(&addr).await?;
    println!(
        "serving an axum Router over zaphttp on {}; Ctrl-C stops",
        listener.local_addr()?
    );
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        stop.cancel();
    });
    // The Router is a tower service of http::Request: served as it is.
    zaphttp::serve(listener, app(), zaphttp::ServerConfig::default(), shutdown).await
}
