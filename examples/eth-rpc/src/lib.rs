//! `eth_getBalance` (and `eth_chainId`, `eth_blockNumber`, `net_version`,
//! `web3_clientVersion`, which Ethereum tools call on connect) over an in-memory ledger,
//! served by one handler on two transports:
//! ZAP/TCP (the binary protocol) and JSON-RPC 2.0 over HTTP/1.1 (for `curl` and
//! browsers).
//!
//! The code generated from `schemas/eth.zap` by `build.rs` is in [`eth`]; this crate
//! implements its [`Eth`](eth::Eth) trait in [`LedgerEth`] and serves it with
//! [`Servers`]:
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let servers = eth_rpc::Servers::bind(eth_rpc::Config::default()).await?;
//! println!("HTTP on {}", servers.http_addr());
//! servers.serve(async { let _ = tokio::signal::ctrl_c().await; }).await
//! # }
//! ```

mod caps;
pub mod ledger;
mod serve;

pub use caps::load_policy;
pub use serve::{Config, Servers};

use zap_runtime::CallError;

use eth::{
    BalanceRequestReader, BalanceResponse, BlockNumberResponse, ChainIdResponse, VersionResponse,
};
use ledger::Ledger;

/// The chain id `eth_chainId` answers (and `net_version`, in decimal): 1337, the id
/// Ethereum development chains use, so that no wallet mistakes this ledger for a real
/// network.
pub const CHAIN_ID: u64 = 1337;

/// The block `eth_blockNumber` answers as the latest one. The ledger does not change
/// over time, so every block number (this one, smaller, or a tag) sees the same balances.
pub const HEAD_BLOCK: u64 = 68943;

/// What `web3_clientVersion` answers.
pub const CLIENT_VERSION: &str = concat!("eth-rpc/v", env!("CARGO_PKG_VERSION"), "/zapc");

/// The code zapc generates for `schemas/eth.zap`: `BalanceRequest`/`BalanceResponse`
/// (owned types, readers, builders), the `Eth` handler trait, `EthService` and
/// `EthClient`.
pub mod eth {
    zap_runtime::include_schema!("eth");
}

/// The handler: answers `getBalance` from a [`Ledger`].
#[derive(Clone, Debug, Default)]
pub struct LedgerEth {
    ledger: Ledger,
}

impl LedgerEth {
    /// A handler over `ledger`.
    pub fn new(ledger: Ledger) -> Self {
        LedgerEth { ledger }
    }

    /// The ledger it answers from.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }
}

impl eth::Eth for LedgerEth {
    /// Any block number is accepted (the ledger does not change over time); an unknown
    /// account has balance 0 and nonce 0; the answer echoes the request's `Id`.
    async fn get_balance(
        &self,
        req: BalanceRequestReader<'_>,
    ) -> Result<BalanceResponse, CallError> {
        let account = self.ledger.account(req.account());
        Ok(BalanceResponse {
            id: req.id(),
            balance: account.balance,
            nonce: account.nonce,
            block_hash: ledger::block_hash(req.block()),
        })
    }

    /// [`CHAIN_ID`].
    async fn chain_id(&self) -> Result<ChainIdResponse, CallError> {
        Ok(ChainIdResponse { chain_id: CHAIN_ID })
    }

    /// [`HEAD_BLOCK`].
    async fn block_number(&self) -> Result<BlockNumberResponse, CallError> {
        Ok(BlockNumberResponse { number: HEAD_BLOCK })
    }

    /// [`CHAIN_ID`] in decimal (the network id equals the chain id here).
    async fn net_version(&self) -> Result<VersionResponse, CallError> {
        Ok(VersionResponse {
            version: CHAIN_ID.to_string(),
        })
    }

    /// [`CLIENT_VERSION`].
    async fn client_version(&self) -> Result<VersionResponse, CallError> {
        Ok(VersionResponse {
            version: CLIENT_VERSION.to_owned(),
        })
    }
}
