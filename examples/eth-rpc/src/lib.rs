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
pub use serve::{Config, QuicListen, Servers, UnixSocket};

use zap_runtime::CallError;

use std::sync::Arc;
use std::time::Duration;

use eth::{
    BalanceRequestReader, BalanceResponse, BlockHeader, BlockNumberResponse, ChainIdResponse,
    HeadsRequest, VersionResponse,
};
use ledger::Ledger;
use tokio::sync::watch;
use zap_runtime::stream::Sender;
use zap_runtime::Owned;

/// The chain id `eth_chainId` answers (and `net_version`, in decimal): 1337, the id
/// Ethereum development chains use, so that no wallet mistakes this ledger for a real
/// network.
pub const CHAIN_ID: u64 = 1337;

/// The block the chain starts at: `eth_blockNumber` answers it until the chain advances
/// (see [`LedgerEth::with_block_time`]). The ledger does not change over time, so every
/// block number (this one, smaller, larger, or a tag) sees the same balances.
pub const HEAD_BLOCK: u64 = 68943;

/// The timestamp of [`HEAD_BLOCK`] (seconds since 1970): 2026-01-01T00:00:00Z. Each
/// later block is one block time later (one second when the chain stands still).
pub const HEAD_TIMESTAMP: u64 = 1_767_225_600;

/// What `web3_clientVersion` answers.
pub const CLIENT_VERSION: &str = concat!("eth-rpc/v", env!("CARGO_PKG_VERSION"), "/zapc");

/// The code zapc generates for `schemas/eth.zap`: `BalanceRequest`/`BalanceResponse`
/// (owned types, readers, builders), the `Eth` handler trait, `EthService` and
/// `EthClient`.
pub mod eth {
    zap_runtime::include_schema!("eth");
}

/// The handler: answers `getBalance` from a [`Ledger`], and follows a chain whose head
/// starts at [`HEAD_BLOCK`] and, once [`with_block_time`](Self::with_block_time) set a
/// block time, advances by one block each block time.
#[derive(Clone, Debug)]
pub struct LedgerEth {
    ledger: Ledger,
    /// Keeps the chain's sender (and so the head) alive; advances it if a block time is
    /// set. Shared by clones; the chain stops when the last one is dropped.
    chain: Arc<Chain>,
}

/// The sending side of the head, and the task advancing it, if any.
#[derive(Debug)]
struct Chain {
    head: watch::Sender<u64>,
    block_time: Option<Duration>,
    ticker: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for Chain {
    fn drop(&mut self) {
        if let Some(ticker) = &self.ticker {
            ticker.abort();
        }
    }
}

impl Default for LedgerEth {
    fn default() -> Self {
        LedgerEth::new(Ledger::default())
    }
}

impl LedgerEth {
    /// A handler over `ledger`, its chain standing still at [`HEAD_BLOCK`].
    pub fn new(ledger: Ledger) -> Self {
        let (head, _) = watch::channel(HEAD_BLOCK);
        LedgerEth {
            ledger,
            chain: Arc::new(Chain {
                head,
                block_time: None,
                ticker: None,
            }),
        }
    }

    /// The same handler with a chain that advances by one block every `block_time`,
    /// from the head it is at now (`newHeads` streams each head). Spawns the task that
    /// advances it: call it inside a tokio runtime.
    pub fn with_block_time(self, block_time: Duration) -> Self {
        let (head, _) = watch::channel(self.head());
        let advance = head.clone();
        let ticker = tokio::spawn(async move {
            let mut every = tokio::time::interval(block_time);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            every.tick().await;
            loop {
                every.tick().await;
                advance.send_modify(|n| *n += 1);
            }
        });
        LedgerEth {
            ledger: self.ledger,
            chain: Arc::new(Chain {
                head,
                block_time: Some(block_time),
                ticker: Some(ticker),
            }),
        }
    }

    /// The ledger it answers from.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// The head's number now.
    pub fn head(&self) -> u64 {
        *self.chain.head.borrow()
    }

    /// The header of block `number`: its hash and its parent's from
    /// [`ledger::block_hash`], its time one block time after the block before.
    pub fn header(&self, number: u64) -> BlockHeader {
        let step = self.chain.block_time.map_or(1, |t| t.as_secs().max(1));
        BlockHeader {
            number,
            timestamp: HEAD_TIMESTAMP
                .wrapping_add(number.wrapping_sub(HEAD_BLOCK).wrapping_mul(step)),
            hash: ledger::block_hash(number),
            parent_hash: ledger::block_hash(number.wrapping_sub(1)),
        }
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

    /// The head's number: [`HEAD_BLOCK`] until the chain advances.
    async fn block_number(&self) -> Result<BlockNumberResponse, CallError> {
        Ok(BlockNumberResponse {
            number: self.head(),
        })
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

    /// The head now, then each new one (the latest, when the chain advanced more than
    /// one block since the last was sent), `count` heads in all or until the stream is
    /// dropped when `count` is 0. A chain that stands still sends its head once and
    /// then nothing more.
    async fn new_heads(
        &self,
        req: Owned<HeadsRequest>,
        mut output: Sender<BlockHeader>,
    ) -> Result<(), CallError> {
        let count = req.get().count();
        let mut head = self.chain.head.subscribe();
        let mut sent = 0u32;
        loop {
            let number = *head.borrow_and_update();
            output.send(&self.header(number)).await?;
            sent += 1;
            if count != 0 && sent >= count {
                return Ok(());
            }
            if head.changed().await.is_err() {
                // The chain is gone (its handler dropped): no more heads.
                return Ok(());
            }
        }
    }
}
