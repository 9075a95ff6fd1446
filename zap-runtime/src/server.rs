//! The ZAP/TCP server (feature `server`).
