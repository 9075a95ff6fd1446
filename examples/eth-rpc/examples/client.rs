//! Ask a running `eth-rpc` server for a balance over ZAP/TCP with the generated client.
//!
//! ```text
//! cargo run -p eth-rpc                      # in one terminal
//! cargo run -p eth-rpc --example client     # in another; or: -- 127.0.0.1:9999 0x<address>
//! # a server started with --tls-cert/--tls-key:
//! cargo run -p eth-rpc --example client -- --tls-ca ca.pem --server-name localhost
//! ```
//!
//! Without an address it asks for the first seeded account.

use clap::Parser;
use eth_rpc::eth::{BalanceRequest, EthClient};
use eth_rpc::ledger::Ledger;
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::json::{from_hex, to_hex};
use zap_runtime::tls::ClientTls;

/// Ask an eth-rpc server for a balance over ZAP/TCP (optionally over TLS).
#[derive(Debug, Parser)]
struct Args {
    /// The server's ZAP/TCP address.
    #[arg(default_value = "127.0.0.1:9999")]
    server: String,
    /// The account (0x + 40 hex digits); default the first seeded account.
    account: Option<String>,
    /// Connect over TLS, trusting the CAs in this PEM file.
    #[arg(long, value_name = "PEM")]
    tls_ca: Option<std::path::PathBuf>,
    /// Connect over TLS, trusting the platform's root certificates.
    #[arg(long, conflicts_with = "tls_ca")]
    tls: bool,
    /// With TLS, the name the server's certificate must carry.
    #[arg(long, default_value = "localhost")]
    server_name: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let account: [u8; 20] = match &args.account {
        Some(hex) => from_hex(hex)?.try_into().map_err(|bytes: Vec<u8>| {
            format!("an address is 20 bytes, {hex} has {}", bytes.len())
        })?,
        None => *Ledger::default().address(0).ok_or("the ledger is empty")?,
    };
    let tls = match (&args.tls_ca, args.tls) {
        (Some(ca), _) => Some(
            ClientTls::builder(&args.server_name)
                .ca_pem_file(ca)
                .build()?,
        ),
        (None, true) => Some(ClientTls::builder(&args.server_name).build()?),
        (None, false) => None,
    };
    let config = ClientConfig {
        tls,
        ..ClientConfig::default()
    };
    let server = &args.server;
    let client = Client::connect_with(server, config).await.map_err(|e| {
        format!("cannot connect to {server} (is `cargo run -p eth-rpc` running?): {e}")
    })?;
    if let Some(info) = client.tls_info() {
        println!(
            "tls       {:?}, key exchange {:?}",
            info.version, info.key_exchange
        );
    }
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
