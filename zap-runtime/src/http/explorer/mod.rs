//! The explorer: one self-contained HTML page (inline CSS and JS, nothing fetched from
//! elsewhere) served at `GET /` and `GET /index.html`. It asks the server for its OpenRPC
//! document with `rpc.discover` on `POST /rpc`, lists the methods with their params and
//! result schemas, and calls a method from a form.

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};

/// The page, embedded in the binary.
pub const PAGE: &str = include_str!("index.html");

/// What the page may do: run its own inline script and style, and talk to this origin.
const CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
                   connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; \
                   frame-ancestors 'none'";

/// `200` with the page.
pub(super) fn page() -> Response<Full<Bytes>> {
    let mut reply = Response::new(Full::new(Bytes::from_static(PAGE.as_bytes())));
    *reply.status_mut() = StatusCode::OK;
    let headers = reply.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    reply
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page loads nothing from elsewhere and never hands server text to the HTML
    /// parser.
    #[test]
    fn the_page_is_self_contained_and_writes_text_only() {
        for banned in [
            "src=",
            "href=",
            "@import",
            "url(",
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
        ] {
            assert!(!PAGE.contains(banned), "the page contains {banned:?}");
        }
        assert!(PAGE.contains("rpc.discover"));
    }
}
