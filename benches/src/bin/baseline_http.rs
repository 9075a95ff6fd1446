//! Baseline: a bare hyper HTTP/1.1 server answering every request with a fixed JSON
//! body (`--addr`, default 127.0.0.1:8544). Runs until killed.

use zap_benches::load::baseline::serve_fixed_http;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = addr_arg("127.0.0.1:8544");
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("baseline_http listening on {}", listener.local_addr()?);
    serve_fixed_http(listener).await
}

fn addr_arg(default: &str) -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, addr] if flag == "--addr" => addr.clone(),
        _ => default.to_owned(),
    }
}
