//! Baseline: `eth_getBalance` served by jsonrpsee (HTTP), the widely used Rust JSON-RPC
//! server, over the example's ledger: the same params (`[address, block]`, the block a
//! quantity or a tag) and the same answer (the balance as a quantity) as `eth-rpc`'s
//! JSON-RPC port, so the two can be compared call for call (`--addr`, default
//! 127.0.0.1:8546). Runs until killed.

use jsonrpsee::server::{RpcModule, Server};
use jsonrpsee::types::{ErrorObjectOwned, Params};

use eth_rpc::ledger::Ledger;
use zap_runtime::json::{block_tag, parse_quantity};

fn invalid_params(message: String) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(-32602, message, None::<()>)
}

/// The balance of `params` = `[address, block]`, as a quantity.
fn get_balance(params: Params<'_>, ledger: &Ledger) -> Result<String, ErrorObjectOwned> {
    let mut seq = params.sequence();
    let address: &str = seq.next().map_err(|e| invalid_params(e.to_string()))?;
    let block: Option<&str> = seq
        .optional_next()
        .map_err(|e| invalid_params(e.to_string()))?;
    let digits = address.strip_prefix("0x").unwrap_or(address);
    let mut account = [0u8; 20];
    hex::decode_to_slice(digits, &mut account)
        .map_err(|e| invalid_params(format!("account: {e}")))?;
    if let Some(block) = block {
        if block_tag::parse(block).is_none() {
            parse_quantity(block, 64).map_err(|e| invalid_params(format!("block: {e}")))?;
        }
    }
    Ok(format!("{:#x}", ledger.account(&account).balance))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = addr_arg("127.0.0.1:8546");
    let server = Server::builder().build(&addr).await?;
    let mut module = RpcModule::new(Ledger::default());
    module.register_method("eth_getBalance", |params, ledger, _| {
        get_balance(params, ledger)
    })?;
    eprintln!("jsonrpsee_eth listening on {}", server.local_addr()?);
    let handle = server.start(module);
    handle.stopped().await;
    Ok(())
}

fn addr_arg(default: &str) -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, addr] if flag == "--addr" => addr.clone(),
        _ => default.to_owned(),
    }
}
