//! The async ZAP/TCP client (feature `client`).
