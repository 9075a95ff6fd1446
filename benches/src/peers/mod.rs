//! The RPC frameworks a team would pick instead of zapc, each serving `eth_getBalance`
//! over the example server's ledger, written the way its own documentation shows, with
//! the same runtime (tokio's multi-threaded one, a worker per core) and allocator (the
//! system's) as the example server: the servers of `peer_server` and the clients of
//! `loadgen`'s `grpc`, `tarpc` and `capnp` targets (benches/rpc_peers_rounds.sh).

pub mod capnp;
pub mod echo;
pub mod floor;
pub mod grpc;
pub mod tarpc;
