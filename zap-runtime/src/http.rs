//! The JSON-RPC 2.0 over HTTP/1.1 fallback (feature `http`).
