//! Baseline: a bare tokio length-delimited echo server (`--addr`, default
//! 127.0.0.1:9998). Runs until killed.

use zap_benches::load::baseline::serve_echo;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = addr_arg("127.0.0.1:9998");
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("baseline_echo listening on {}", listener.local_addr()?);
    serve_echo(listener).await
}

fn addr_arg(default: &str) -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, addr] if flag == "--addr" => addr.clone(),
        _ => default.to_owned(),
    }
}
