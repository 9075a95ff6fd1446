//! Cap'n Proto RPC: `capnp-rpc`'s two-party VatNetwork over TCP, the `Eth` interface of
//! `schemas/bench.capnp` (the committed generated code the codec benches use). Its RPC
//! system is single-threaded (`Rc`, `spawn_local`), so the server runs one
//! current-thread runtime per core, each accepting from the same listening socket: every
//! core used, as the other servers' multi-threaded runtime uses them.

use std::net::SocketAddr;
use std::rc::Rc;

use capnp_rpc::{rpc_twoparty_capnp::Side, twoparty, RpcSystem};
use eth_rpc::ledger::{block_hash, Ledger};
use futures_util::io::AsyncReadExt;
use tokio::net::TcpStream;
use tokio_util::compat::TokioAsyncReadCompatExt;

use crate::generated::bench_capnp::eth;

struct LedgerEth(Ledger);

impl eth::Server for LedgerEth {
    fn get_balance(
        self: Rc<Self>,
        params: eth::GetBalanceParams,
        mut results: eth::GetBalanceResults,
    ) -> impl std::future::Future<Output = Result<(), capnp::Error>> + 'static {
        let answer = (|| {
            let request = params.get()?.get_request()?;
            let address: [u8; 20] = request
                .get_account()?
                .try_into()
                .map_err(|_| capnp::Error::failed("account is not 20 bytes".into()))?;
            let account = self.0.account(&address);
            let mut response = results.get().init_response();
            response.set_id(request.get_id());
            response.set_balance(account.balance);
            response.set_nonce(account.nonce);
            response.set_block_hash(&block_hash(request.get_block()));
            Ok(())
        })();
        std::future::ready(answer)
    }
}

/// A connection as a two-party vat network.
fn network(
    stream: TcpStream,
    side: Side,
) -> twoparty::VatNetwork<impl futures_util::AsyncRead + Unpin> {
    let _ = stream.set_nodelay(true);
    let (reader, writer) = stream.compat().split();
    twoparty::VatNetwork::new(
        futures_util::io::BufReader::new(reader),
        futures_util::io::BufWriter::new(writer),
        side,
        Default::default(),
    )
}

/// Serve until the process ends, on a current-thread runtime per core.
pub fn serve(addr: SocketAddr) -> std::io::Result<()> {
    let listener = std::net::TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads: Vec<_> = (0..cores)
        .map(|_| {
            let listener = listener.try_clone()?;
            Ok(std::thread::spawn(move || accept_on_this_thread(listener)))
        })
        .collect::<std::io::Result<_>>()?;
    for thread in threads {
        thread
            .join()
            .map_err(|_| std::io::Error::other("a server thread panicked"))??;
    }
    Ok(())
}

fn accept_on_this_thread(listener: std::net::TcpListener) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let service: eth::Client = capnp_rpc::new_client(LedgerEth(Ledger::default()));
        loop {
            let (stream, _) = listener.accept().await?;
            let network = network(stream, Side::Server);
            let system = RpcSystem::new(Box::new(network), Some(service.clone().client));
            tokio::task::spawn_local(system);
        }
    })
}

/// One connection's client: its RPC system runs on the current thread's `LocalSet`.
pub async fn connect(addr: SocketAddr) -> Result<eth::Client, String> {
    let stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("capnp connect to {addr}: {e}"))?;
    let mut system = RpcSystem::new(Box::new(network(stream, Side::Client)), None);
    let client: eth::Client = system.bootstrap(Side::Server);
    tokio::task::spawn_local(system);
    Ok(client)
}

/// `getBalance`: the answer's (id, balance).
pub async fn get_balance(
    client: eth::Client,
    id: u64,
    block: u64,
    account: [u8; 20],
) -> Result<(u64, u64), String> {
    let mut request = client.get_balance_request();
    {
        let mut r = request.get().init_request();
        r.set_id(id);
        r.set_block(block);
        r.set_account(&account);
    }
    let reply = request
        .send()
        .promise
        .await
        .map_err(|e| format!("getBalance {id}: {e}"))?;
    let response = reply
        .get()
        .and_then(|r| r.get_response())
        .map_err(|e| format!("getBalance {id}: {e}"))?;
    Ok((response.get_id(), response.get_balance()))
}
