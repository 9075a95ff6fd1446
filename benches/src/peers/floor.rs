//! The typed floor: `eth_getBalance` over ZAP/TCP (the RPC framing) with no framework
//! around it. Each connection reads frames, checks the envelope as the spec requires,
//! reads the request with the generated reader, looks the account up and writes the
//! answer with the generated builder; every answer of one read goes out in one write.
//! What a framework adds (dispatch, limits, metrics, shutdown, pooled buffers) is the
//! distance from here.

use std::sync::Arc;

use eth_rpc::ledger::{block_hash, Ledger};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use zap_runtime::frame::{encode_frame, Direction, FrameDecoder};
use zap_runtime::rpc::{Request, Response, Status};
use zap_runtime::Builder;

use crate::generated::eth::{BalanceRequestReader, BalanceResponseBuilder};

/// Accept connections until the process ends.
pub async fn serve(listener: TcpListener) -> std::io::Result<()> {
    let ledger = Arc::new(Ledger::default());
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        tokio::spawn(connection(stream, ledger.clone()));
    }
}

async fn connection(mut stream: TcpStream, ledger: Arc<Ledger>) -> std::io::Result<()> {
    let mut decoder = FrameDecoder::default();
    let mut read = Vec::with_capacity(64 << 10);
    let mut write = Vec::with_capacity(64 << 10);
    let (mut body, mut envelope) = (Builder::new(), Builder::new());
    loop {
        if read.capacity() - read.len() < 4096 {
            read.reserve(4096);
        }
        if stream.read_buf(&mut read).await? == 0 {
            return Ok(());
        }
        let mut pos = 0;
        while let Some((frame, used)) = decoder
            .decode(&read[pos..])
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?
        {
            let answer = answer(&ledger, frame.dir, frame.envelope, &mut body, &mut envelope)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
            encode_frame(&mut write, Direction::Response, answer)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
            pos += used;
        }
        read.drain(..pos);
        if !write.is_empty() {
            stream.write_all(&write).await?;
            write.clear();
        }
    }
}

/// The response envelope for one request frame: the balance for method 1, a 404 for any
/// other method.
fn answer<'b>(
    ledger: &Ledger,
    dir: Direction,
    frame: &[u8],
    body: &mut Builder,
    envelope: &'b mut Builder,
) -> Result<&'b [u8], String> {
    if dir != Direction::Request {
        return Err(format!("a {dir:?} frame from a client"));
    }
    let request = Request::parse(frame).map_err(|e| e.to_string())?;
    body.clear();
    let (status, answer): (Status, &[u8]) = if request.method == 1 {
        let req = BalanceRequestReader::parse(request.payload).map_err(|e| e.to_string())?;
        let account = ledger.account(req.account());
        let mut resp = BalanceResponseBuilder::new(body);
        resp.set_id(req.id())
            .set_balance(account.balance)
            .set_nonce(account.nonce)
            .set_block_hash(&block_hash(req.block()));
        (
            Status::OK,
            resp.finish_message().map_err(|e| e.to_string())?,
        )
    } else {
        (Status::NOT_FOUND, b"unknown method")
    };
    envelope.clear();
    Response {
        status,
        promise_id: request.promise_id,
        body: answer,
    }
    .encode(envelope)
    .map_err(|e| e.to_string())
}
