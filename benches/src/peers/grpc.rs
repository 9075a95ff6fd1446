//! tonic: gRPC over HTTP/2 with prost messages, `proto/eth.proto`'s `Eth` service.

use std::net::SocketAddr;
use std::sync::Arc;

use eth_rpc::ledger::{block_hash, Ledger};
use tonic::transport::{Channel, Endpoint, Server};
use tonic::{Request, Response, Status};

use crate::generated::pb::eth_client::EthClient;
use crate::generated::pb::eth_server::{Eth, EthServer};
use crate::generated::pb::{BalanceRequest, BalanceResponse};

/// The ledger as a gRPC service.
struct LedgerEth {
    ledger: Arc<Ledger>,
}

#[tonic::async_trait]
impl Eth for LedgerEth {
    async fn get_balance(
        &self,
        request: Request<BalanceRequest>,
    ) -> Result<Response<BalanceResponse>, Status> {
        let request = request.into_inner();
        let address: [u8; 20] = request
            .account
            .as_slice()
            .try_into()
            .map_err(|_| Status::invalid_argument("account is not 20 bytes"))?;
        let account = self.ledger.account(&address);
        Ok(Response::new(BalanceResponse {
            id: request.id,
            balance: account.balance,
            nonce: account.nonce,
            block_hash: block_hash(request.block).to_vec(),
        }))
    }
}

/// Serve until the process ends. Window sizes as tonic's documentation advises for
/// throughput: adaptive HTTP/2 flow control (BDP estimation); Nagle off.
pub async fn serve(addr: SocketAddr) -> Result<(), tonic::transport::Error> {
    Server::builder()
        .tcp_nodelay(true)
        .http2_adaptive_window(Some(true))
        .add_service(EthServer::new(LedgerEth {
            ledger: Arc::new(Ledger::default()),
        }))
        .serve(addr)
        .await
}

/// One HTTP/2 connection; its calls are multiplexed on it as streams.
pub async fn connect(addr: SocketAddr) -> Result<EthClient<Channel>, String> {
    let channel = Endpoint::from_shared(format!("http://{addr}"))
        .map_err(|e| e.to_string())?
        .tcp_nodelay(true)
        .http2_adaptive_window(true)
        .connect()
        .await
        .map_err(|e| format!("gRPC connect to {addr}: {e}"))?;
    Ok(EthClient::new(channel))
}

/// `GetBalance`: the answer's (id, balance).
pub async fn get_balance(
    mut client: EthClient<Channel>,
    id: u64,
    block: u64,
    account: [u8; 20],
) -> Result<(u64, u64), String> {
    let answer = client
        .get_balance(BalanceRequest {
            id,
            block,
            account: account.to_vec(),
        })
        .await
        .map_err(|e| format!("GetBalance {id}: {e}"))?
        .into_inner();
    Ok((answer.id, answer.balance))
}
