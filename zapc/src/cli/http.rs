//! `zapc http ADDR PATH`: a curl for servers of HTTP over ZAP frames (zaphttp), the
//! transport of the Go stack's web framework.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use http_body_util::BodyExt as _;
use zap_runtime::zaphttp::{Address, Body, Client, ClientConfig};

use super::remote::{self, Failure};

/// Send one HTTP request over ZAP frames (zaphttp: the wire of Go's zap-proto/http and
/// the zip framework) and print the answer's body as it arrives: a streamed body chunk
/// by chunk, each written out as soon as its frame is read.
///
/// Exit status: 0 when an answer arrived (whatever its status, as curl; with --fail, 22
/// for a status of 400 or more), 1 when the connection or the exchange failed, 2 for a
/// usage error.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    zapc http 127.0.0.1:9653 /health\n  \
    zapc http -i unix:/run/app.sock '/stream?n=3'\n  \
    zapc http -H 'Content-Type: application/json' -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_blockNumber\",\"params\":[]}' 127.0.0.1:8551 /rpc\n\n\
    Against `cargo run -p eth-rpc -- --zaphttp-addr 127.0.0.1:8551`, the HTTP routes (POST /rpc, \
    /health, /metrics) answer over zaphttp as they do over HTTP.")]
pub struct Args {
    /// The server: HOST:PORT, or unix:PATH (or a path with a `/`) for a unix socket.
    #[arg(value_name = "ADDR")]
    addr: String,
    /// The request target: a path with its query, as on an HTTP request line.
    #[arg(value_name = "PATH")]
    path: String,
    /// The method (default GET, or POST with --data).
    #[arg(short = 'X', long = "request", value_name = "METHOD")]
    method: Option<String>,
    /// A request header, `Name: value` (repeat for more; a repeated name is sent twice).
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// A request trailer, `Name: value`, sent in the frame's trailer slot.
    #[arg(long = "trailer", value_name = "NAME: VALUE")]
    trailers: Vec<String>,
    /// The request body; `@FILE` reads it from FILE, `@-` from stdin.
    #[arg(short = 'd', long = "data", value_name = "BODY")]
    data: Option<String>,
    /// Print the status line and the headers before the body, and the trailers after it.
    #[arg(short = 'i', long = "include")]
    include: bool,
    /// Exit 22 (as curl) when the status is 400 or more.
    #[arg(short = 'f', long = "fail")]
    fail: bool,
    /// Seconds allowed to connect, and for each frame of the answer.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    timeout: f64,
}

/// Run `zapc http`.
pub fn run(args: &Args) -> ExitCode {
    match try_run(args) {
        Ok(status) if args.fail && status >= 400 => ExitCode::from(22),
        Ok(_) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}

fn pair(what: &str, text: &str) -> Result<(http::HeaderName, http::HeaderValue), Failure> {
    let bad = |why: &str| Failure::Usage(format!("{what} {text:?}: {why}"));
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| bad("write it as `Name: value`"))?;
    let name = http::HeaderName::from_bytes(name.trim().as_bytes())
        .map_err(|_| bad("not a valid header name"))?;
    let value =
        http::HeaderValue::from_str(value.trim()).map_err(|_| bad("not a valid header value"))?;
    Ok((name, value))
}

fn body(data: Option<&str>) -> Result<Vec<u8>, Failure> {
    match data {
        None => Ok(Vec::new()),
        Some("@-") => {
            let mut body = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut body)
                .map_err(|e| Failure::Call(format!("cannot read the body from stdin: {e}")))?;
            Ok(body)
        }
        Some(data) => match data.strip_prefix('@') {
            Some(file) => std::fs::read(file)
                .map_err(|e| Failure::Usage(format!("--data @{file}: cannot read it: {e}"))),
            None => Ok(data.as_bytes().to_vec()),
        },
    }
}

fn try_run(args: &Args) -> Result<u16, Failure> {
    let timeout = Duration::try_from_secs_f64(args.timeout)
        .map_err(|e| Failure::Usage(format!("--timeout {}: {e}", args.timeout)))?;
    let address: Address = args.addr.as_str().into();
    let method = match (&args.method, &args.data) {
        (Some(m), _) => http::Method::from_bytes(m.as_bytes())
            .map_err(|_| Failure::Usage(format!("-X {m:?}: not an HTTP method")))?,
        (None, Some(_)) => http::Method::POST,
        (None, None) => http::Method::GET,
    };
    let uri: http::Uri = args
        .path
        .parse()
        .map_err(|e| Failure::Usage(format!("PATH {:?}: {e}", args.path)))?;
    if uri.path_and_query().is_none() || !args.path.starts_with('/') {
        return Err(Failure::Usage(format!(
            "PATH {:?}: give the path, starting with `/` (the server is ADDR)",
            args.path
        )));
    }
    let mut request = http::Request::builder().method(method).uri(uri);
    let headers = request.headers_mut().expect("a valid builder so far");
    for text in &args.headers {
        let (name, value) = pair("-H", text)?;
        headers.append(name, value);
    }
    if !headers.contains_key(http::header::HOST) {
        let host = match &address {
            Address::Tcp(addr) => addr.clone(),
            Address::Unix(_) => "localhost".to_owned(),
        };
        let host = http::HeaderValue::from_str(&host)
            .map_err(|_| Failure::Usage(format!("ADDR {host:?} cannot be a Host header")))?;
        headers.insert(http::header::HOST, host);
    }
    let mut trailers = http::HeaderMap::new();
    for text in &args.trailers {
        let (name, value) = pair("--trailer", text)?;
        trailers.append(name, value);
    }
    let request = request
        .body(Body::whole(
            body(args.data.as_deref())?.into(),
            Some(trailers),
        ))
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let config = ClientConfig {
        connect_timeout: timeout,
        read_timeout: timeout,
        write_stall_timeout: timeout,
        ..ClientConfig::default()
    };
    let client = Client::with_config(address, config);
    let runtime = remote::runtime()?;
    let failed = |e: zap_runtime::zaphttp::Error| Failure::Call(format!("{}: {e}", args.addr));
    runtime.block_on(async {
        let response = client.send(request).await.map_err(failed)?;
        let mut out = std::io::stdout().lock();
        let status = response.status();
        if args.include {
            let reason = status.canonical_reason().unwrap_or("");
            let mut head = format!("{:?} {} {reason}\n", response.version(), status.as_u16());
            for (name, value) in response.headers() {
                head.push_str(&format!(
                    "{name}: {}\n",
                    String::from_utf8_lossy(value.as_bytes())
                ));
            }
            head.push('\n');
            write_out(&mut out, head.as_bytes())?;
        }
        let mut body = response.into_body();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(failed)?;
            match frame.into_data() {
                Ok(chunk) => write_out(&mut out, &chunk)?,
                Err(frame) => {
                    let Ok(trailers) = frame.into_trailers() else {
                        continue;
                    };
                    if args.include {
                        let mut text = String::from("\n");
                        for (name, value) in &trailers {
                            text.push_str(&format!(
                                "{name}: {}\n",
                                String::from_utf8_lossy(value.as_bytes())
                            ));
                        }
                        write_out(&mut out, text.as_bytes())?;
                    }
                }
            }
        }
        Ok(status.as_u16())
    })
}

fn write_out(out: &mut std::io::StdoutLock<'_>, bytes: &[u8]) -> Result<(), Failure> {
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Call(format!("cannot write to stdout: {e}")))
}
