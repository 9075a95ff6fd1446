//! The servers of the end-to-end comparison with other RPC frameworks
//! (benches/rpc_peers_rounds.sh), each answering `eth_getBalance` over the example
//! server's ledger, or echoing:
//!
//! ```text
//! peer_server grpc  --addr 127.0.0.1:50051   # tonic, gRPC over HTTP/2
//! peer_server tarpc --addr 127.0.0.1:50052   # tarpc, serde transport with bincode
//! peer_server capnp --addr 127.0.0.1:50053   # Cap'n Proto RPC (capnp-rpc, two-party)
//! peer_server floor --addr 127.0.0.1:9997    # the typed floor: ZAP/TCP with no framework
//! peer_server echo  --addr 127.0.0.1:9996    # zap-runtime's server, method 1 echoes
//! ```
//!
//! Runs until killed. Built with `--features rpc-peers`; the same tokio runtime (a
//! worker per core) and allocator as the example server.

use std::net::SocketAddr;

use clap::{Parser, ValueEnum};
use zap_benches::peers;

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Kind {
    /// tonic's gRPC server (`proto/eth.proto`'s `Eth.GetBalance`).
    Grpc,
    /// tarpc's server (serde transport, bincode).
    Tarpc,
    /// capnp-rpc's two-party RPC system, a current-thread runtime per core.
    Capnp,
    /// The typed floor: frames, envelope, generated reader and builder, nothing else.
    Floor,
    /// zap-runtime's server with one method (1) answering its message unchanged.
    Echo,
}

#[derive(Debug, Parser)]
#[command(about, long_about = None)]
struct Args {
    /// Which server.
    #[arg(value_enum)]
    kind: Kind,
    /// The address to listen on.
    #[arg(long)]
    addr: SocketAddr,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    eprintln!("peer_server {:?} listening on {}", args.kind, args.addr);
    match args.kind {
        Kind::Grpc => peers::grpc::serve(args.addr).await?,
        Kind::Tarpc => peers::tarpc::serve(tokio::net::TcpListener::bind(args.addr).await?).await?,
        Kind::Capnp => {
            tokio::task::spawn_blocking(move || peers::capnp::serve(args.addr)).await??
        }
        Kind::Floor => peers::floor::serve(tokio::net::TcpListener::bind(args.addr).await?).await?,
        Kind::Echo => peers::echo::serve(tokio::net::TcpListener::bind(args.addr).await?).await?,
    }
    Ok(())
}
