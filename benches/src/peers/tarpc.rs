//! tarpc: its `#[tarpc::service]` trait over TCP, with the serde transport and the
//! bincode codec it ships (length-delimited frames), as its examples serve it.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use eth_rpc::ledger::{block_hash, Ledger};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tarpc::server::{BaseChannel, Channel};
use tarpc::tokio_serde::formats::Bincode;
use tarpc::tokio_util::codec::{Framed, LengthDelimitedCodec};
use tarpc::{client, context, serde_transport};
use tokio::net::{TcpListener, TcpStream};

/// `eth_getBalance`'s request, field for field.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BalanceRequest {
    pub id: u64,
    pub block: u64,
    pub account: [u8; 20],
}

/// `eth_getBalance`'s answer, field for field.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BalanceResponse {
    pub id: u64,
    pub balance: u64,
    pub nonce: u64,
    pub block_hash: [u8; 32],
}

#[tarpc::service]
pub trait Eth {
    async fn get_balance(request: BalanceRequest) -> BalanceResponse;
}

#[derive(Clone)]
struct LedgerEth(Arc<Ledger>);

impl Eth for LedgerEth {
    async fn get_balance(self, _: context::Context, request: BalanceRequest) -> BalanceResponse {
        let account = self.0.account(&request.account);
        BalanceResponse {
            id: request.id,
            balance: account.balance,
            nonce: account.nonce,
            block_hash: block_hash(request.block),
        }
    }
}

async fn spawn(fut: impl Future<Output = ()> + Send + 'static) {
    tokio::spawn(fut);
}

/// A connection as tarpc's `tcp::listen` frames it, with Nagle off (as for every server
/// compared).
fn transport<Item, SinkItem>(
    stream: TcpStream,
) -> serde_transport::Transport<TcpStream, Item, SinkItem, Bincode<Item, SinkItem>>
where
    Item: for<'de> Deserialize<'de>,
    SinkItem: Serialize,
{
    let _ = stream.set_nodelay(true);
    serde_transport::new(
        Framed::new(stream, LengthDelimitedCodec::new()),
        Bincode::default(),
    )
}

/// Serve until the process ends: each connection a channel whose requests run as tasks.
pub async fn serve(listener: TcpListener) -> std::io::Result<()> {
    let service = LedgerEth(Arc::new(Ledger::default()));
    loop {
        let (stream, _) = listener.accept().await?;
        let channel = BaseChannel::with_defaults(transport(stream));
        tokio::spawn(channel.execute(service.clone().serve()).for_each(spawn));
    }
}

/// One connection; its calls are multiplexed on it.
pub async fn connect(addr: SocketAddr) -> Result<EthClient, String> {
    let stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("tarpc connect to {addr}: {e}"))?;
    Ok(EthClient::new(client::Config::default(), transport(stream)).spawn())
}

/// `get_balance`: the answer's (id, balance).
pub async fn get_balance(
    client: EthClient,
    id: u64,
    block: u64,
    account: [u8; 20],
) -> Result<(u64, u64), String> {
    let answer = client
        .get_balance(context::current(), BalanceRequest { id, block, account })
        .await
        .map_err(|e| format!("get_balance {id}: {e}"))?;
    Ok((answer.id, answer.balance))
}
