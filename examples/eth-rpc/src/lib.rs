//! `eth_getBalance` over an in-memory ledger, served by one handler on two transports:
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

use eth::{BalanceRequestReader, BalanceResponse};
use ledger::Ledger;

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
}
