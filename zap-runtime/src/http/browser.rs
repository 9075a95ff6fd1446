//! What a web page may do with a server on the visitor's machine or network: the rules
//! geth applies, so that a page on another site can neither call a local node blind nor
//! read its answers.
//!
//! * **A JSON content type on every POST** (415 otherwise, a missing one included): a
//!   page can send a cross-origin POST without asking first only with a "simple"
//!   content type (`text/plain`, a form), so requiring JSON forces the browser's CORS
//!   preflight, which this server refuses unless the origin is allowed.
//! * **A `Host` allow-list** ([`AllowedHosts`]): DNS rebinding makes a hostile name
//!   resolve to 127.0.0.1, and the browser then treats the local server as that site's
//!   own; the `Host` header still carries the hostile name, and it is refused (403).
//!   An IP literal is always accepted (rebinding needs a name), and so is a request
//!   without `Host` (no browser sends one).
//! * **CORS off unless asked for** ([`HttpConfig::cors_origins`]): no
//!   `Access-Control-Allow-Origin` header and every preflight refused, so no other
//!   origin reads an answer; with origins listed, preflights from those are answered
//!   and their requests get the header.
//!
//! [`HttpConfig::cors_origins`]: super::HttpConfig::cors_origins

use hyper::header::{self, HeaderMap, HeaderValue};

/// Which `Host` names the HTTP server answers ([`HttpConfig::allowed_hosts`]).
///
/// [`HttpConfig::allowed_hosts`]: super::HttpConfig::allowed_hosts
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllowedHosts {
    /// These names (compared without case, port and trailing dot), besides IP literals
    /// and requests without `Host`. The default is `localhost` alone.
    Names(Vec<String>),
    /// Every name (`*` in a list): for a server behind a proxy that checks names
    /// itself, or one that no browser can reach.
    Any,
}

impl Default for AllowedHosts {
    fn default() -> Self {
        AllowedHosts::Names(vec!["localhost".to_owned()])
    }
}

impl AllowedHosts {
    /// From a comma-separated list, as a command-line option takes it (eth-rpc's
    /// `--http-vhosts`): `*` for any name.
    pub fn parse(list: &str) -> Self {
        let names: Vec<String> = list
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        if names.iter().any(|n| n == "*") {
            AllowedHosts::Any
        } else {
            AllowedHosts::Names(names)
        }
    }

    /// Whether a request with these headers may be answered.
    pub fn allows(&self, headers: &HeaderMap) -> bool {
        let Some(value) = headers.get(header::HOST) else {
            return true;
        };
        let Ok(host) = value.to_str() else {
            return false;
        };
        let name = host_name(host);
        if name.parse::<std::net::IpAddr>().is_ok() {
            return true;
        }
        match self {
            AllowedHosts::Any => true,
            AllowedHosts::Names(names) => {
                let name = name.trim_end_matches('.');
                names
                    .iter()
                    .any(|n| n.trim_end_matches('.').eq_ignore_ascii_case(name))
            }
        }
    }
}

/// The name of a `Host` value, without its port: `[::1]:8545` is `::1`, `a.b:80` is
/// `a.b`.
fn host_name(host: &str) -> &str {
    let host = host.trim();
    if let Some(rest) = host.strip_prefix('[') {
        // An IPv6 literal; without its `]` it is no name at all, and refused as given.
        return rest.split_once(']').map_or(host, |(name, _)| name);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// The request's `Origin` if CORS allows it: `origins` lists it, or holds `*`.
pub(super) fn allowed_origin<'h>(
    origins: &[String],
    headers: &'h HeaderMap,
) -> Option<&'h HeaderValue> {
    // CORS off (the default): no header lookup on the request path.
    if origins.is_empty() {
        return None;
    }
    let origin = headers.get(header::ORIGIN)?;
    let text = origin.to_str().ok()?;
    origins
        .iter()
        .any(|o| o == "*" || o.eq_ignore_ascii_case(text))
        .then_some(origin)
}

/// Add the CORS headers of an answer to an allowed origin.
pub(super) fn allow_origin(headers: &mut HeaderMap, origin: &HeaderValue) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
    headers.insert(header::VARY, HeaderValue::from_static("Origin"));
}

/// Add the headers of a successful preflight.
pub(super) fn preflight_headers(headers: &mut HeaderMap, origin: &HeaderValue) {
    allow_origin(headers, origin);
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("POST"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("Content-Type, Authorization, traceparent, tracestate"),
    );
    headers.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_host(host: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        headers
    }

    #[test]
    fn the_default_answers_localhost_and_ip_literals_only() {
        let hosts = AllowedHosts::default();
        for ok in [
            "localhost",
            "LOCALHOST:8545",
            "localhost.",
            "127.0.0.1:8545",
            "[::1]:8545",
            "10.1.2.3",
        ] {
            assert!(hosts.allows(&with_host(ok)), "{ok}");
        }
        for refused in [
            "evil.example",
            "evil.example:8545",
            "localhost.evil.example",
            "[::1",
        ] {
            assert!(!hosts.allows(&with_host(refused)), "{refused}");
        }
        assert!(hosts.allows(&HeaderMap::new()), "no Host header");
    }

    #[test]
    fn a_list_replaces_the_default_and_a_star_allows_any() {
        let hosts = AllowedHosts::parse("node.example, rpc.example");
        assert!(hosts.allows(&with_host("rpc.example:443")));
        assert!(!hosts.allows(&with_host("localhost")));
        assert_eq!(AllowedHosts::parse("a,*"), AllowedHosts::Any);
        assert!(AllowedHosts::Any.allows(&with_host("anything.example")));
    }

    #[test]
    fn origins_are_matched_exactly_or_by_a_star() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ORIGIN,
            HeaderValue::from_static("https://app.example"),
        );
        assert!(allowed_origin(&[], &headers).is_none());
        assert!(allowed_origin(&["https://other.example".into()], &headers).is_none());
        assert!(allowed_origin(&["https://app.example".into()], &headers).is_some());
        assert!(allowed_origin(&["*".into()], &headers).is_some());
        assert!(allowed_origin(&["*".into()], &HeaderMap::new()).is_none());
    }
}
