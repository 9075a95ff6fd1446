//! The RPC frameworks a team would pick instead of zapc, each serving `eth_getBalance`
//! over the example server's ledger, written the way its own documentation shows, with
//! the same runtime (tokio's multi-threaded one, a worker per core) and allocator (the
//! system's) as the example server: the servers of `peer_server` and the clients of
//! `loadgen`'s `grpc`, `tarpc` and `capnp` targets (benches/rpc_peers_rounds.sh).

// The frameworks, behind the `rpc-peers` feature (the workspace's tests do not build
// them); the floor and the echo service need nothing more than the runtime.
#[cfg(feature = "rpc-peers")]
pub mod capnp;
pub mod echo;
pub mod floor;
#[cfg(feature = "rpc-peers")]
pub mod grpc;
#[cfg(feature = "rpc-peers")]
pub mod tarpc;
