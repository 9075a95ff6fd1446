//! The same axum `Router` for HTTP over ZAP frames and HTTP/1.1 (`zaphttp_server`,
//! `benches/zaphttp_rounds.sh`): its `POST /echo` answers as the Go peer's
//! (`zaphttp-peer serve`) does: the request's body, `X-Method`, `X-Uri` and the
//! request's `Content-Type`.

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, Method, Uri};
use axum::response::IntoResponse;
use axum::routing::any;
use axum::Router;
use tower::Service as _;

async fn echo(method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> impl IntoResponse {
    let mut answer = HeaderMap::new();
    answer.insert(
        "x-method",
        HeaderValue::from_str(method.as_str()).expect("a method is a value"),
    );
    if let Ok(uri) = HeaderValue::from_str(&uri.to_string()) {
        answer.insert("x-uri", uri);
    }
    if let Some(kind) = headers.get("content-type") {
        answer.insert("content-type", kind.clone());
    }
    (answer, body)
}

/// The application, as it would be written for `axum::serve`.
pub fn app() -> Router {
    Router::new().route("/echo", any(echo))
}

/// Serve `router` over HTTP/1.1 keep-alive (hyper's http1 connection) on `listener`,
/// until the listener fails.
pub async fn serve_http1(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let mut router = router.clone();
                async move { router.call(request).await }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, service)
                .await;
        });
    }
}
