//! The explorer: one self-contained HTML page (inline CSS and JS, nothing fetched from
//! elsewhere) served at `GET /` and `GET /index.html`. It asks the server for its OpenRPC
//! document with `rpc.discover` on `POST /rpc`, lists the methods with their params and
//! result schemas, and calls a method from a form.

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};
use std::sync::OnceLock;

/// The page, embedded in the binary.
pub const PAGE: &str = include_str!("index.html");

/// What the page may do: run its own inline script and style (by their SHA-256 hashes,
/// so no other inline code runs even if text were injected), and talk to this origin.
fn csp() -> &'static HeaderValue {
    static CSP: OnceLock<HeaderValue> = OnceLock::new();
    CSP.get_or_init(|| {
        let script = hash_of(inline(PAGE, "<script>", "</script>"));
        let style = hash_of(inline(PAGE, "<style>", "</style>"));
        let policy = format!(
            "default-src 'none'; script-src '{script}'; style-src '{style}'; \
             connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; \
             frame-ancestors 'none'"
        );
        HeaderValue::from_str(&policy).expect("a CSP is ASCII")
    })
}

/// The text between `open` and `close` in `page` (the one inline element of that kind).
fn inline<'p>(page: &'p str, open: &str, close: &str) -> &'p str {
    let start = page.find(open).map_or(0, |i| i + open.len());
    let end = page[start..].find(close).map_or(page.len(), |i| start + i);
    &page[start..end]
}

/// A CSP source expression for `text`: `sha256-<base64 of its SHA-256>`.
fn hash_of(text: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!(
        "sha256-{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// `200` with the page.
pub(super) fn page() -> Response<Full<Bytes>> {
    let mut reply = Response::new(Full::new(Bytes::from_static(PAGE.as_bytes())));
    *reply.status_mut() = StatusCode::OK;
    let headers = reply.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::CONTENT_SECURITY_POLICY, csp().clone());
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

    /// The policy names the page's one script and one style by hash, and nothing inline
    /// besides: no 'unsafe-inline', no event-handler attributes.
    #[test]
    fn the_policy_allows_only_the_pages_own_script_and_style() {
        let policy = csp().to_str().unwrap();
        assert!(!policy.contains("unsafe"), "{policy}");
        assert_eq!(PAGE.matches("<script>").count(), 1);
        assert_eq!(PAGE.matches("<style>").count(), 1);
        let script = inline(PAGE, "<script>", "</script>");
        assert!(script.contains("rpc.discover"));
        assert!(
            policy.contains(&format!("script-src '{}'", hash_of(script))),
            "{policy}"
        );
        // A known value: the hash of the empty string.
        assert_eq!(
            hash_of(""),
            "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
        );
        for attribute in [" onclick=", " onload=", " onerror=", " style="] {
            assert!(!PAGE.contains(attribute), "{attribute}");
        }
    }
}
