//! Ask a running `eth-rpc` server for a balance over ZAP/TCP with the generated client.
//!
//! ```text
//! cargo run -p eth-rpc                      # in one terminal
//! cargo run -p eth-rpc --example client     # in another; or: -- 127.0.0.1:9999 0x<address>
//! ```
//!
//! Without an address it asks for the first seeded account.

use eth_rpc::eth::{BalanceRequest, EthClient};
use eth_rpc::ledger::Ledger;
use zap_runtime::client::Client;
use zap_runtime::json::{from_hex, to_hex};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let server = args.next().unwrap_or_else(|| "127.0.0.1:9999".to_string());
    let account: [u8; 20] = match args.next() {
        Some(hex) => from_hex(&hex)?.try_into().map_err(|bytes: Vec<u8>| {
            format!("an address is 20 bytes, {hex} has {}", bytes.len())
        })?,
        None => *Ledger::default().address(0).ok_or("the ledger is empty")?,
    };
    let client = Client::connect(&server).await.map_err(|e| {
        format!("cannot connect to {server} (is `cargo run -p eth-rpc` running?): {e}")
    })?;
    let eth = EthClient::new(client);
    let answer = eth
        .get_balance(&BalanceRequest {
            id: 1,
            block: 68943,
            account,
        })
        .await?;
    println!("account   {}", to_hex(&account));
    println!("balance   {} wei", answer.balance);
    println!("nonce     {}", answer.nonce);
    println!("blockHash {}", to_hex(&answer.block_hash));
    Ok(())
}
