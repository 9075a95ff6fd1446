//! `zapc call`: call one method of a running ZAP/TCP server from the command line, with
//! JSON in and out, encoded and decoded through the schema (the grpcurl of ZAP). A
//! stream method is opened as a stream: one JSON line per message received, and with
//! `--send`, one JSON line per message sent, read from stdin.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use serde_json::Value;
use zap_runtime::Transport;
use zapc::ir::{Interface, Method, Schema, Streaming};

use super::dynamic;
use super::inputs::one_schema;
use super::remote::{self, describe_error as describe, ConnectArgs, Failure};

/// Call a method of a ZAP/TCP server: the JSON request is encoded with the schema, the
/// answer decoded and printed as JSON on one line. A stream method prints each message
/// the server sends on a line of its own, as it arrives, until the server ends the
/// stream (or Ctrl-C); with --send, each line of stdin is a message to send on it.
///
/// Exit status: 0 for an answer (or a stream the server ended), 1 for an error answer
/// or a stream that ended with an error (its status and message on stderr: a handler's
/// error, a refusal, a deadline that passed) or a failed connection, 2 for a usage
/// error (an unknown method, JSON that does not fit the request type).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples (against `cargo run -p eth-rpc`):\n  \
    zapc call 127.0.0.1:9999 Eth.chainId                  # the schema by reflection\n  \
    zapc call --schema schemas/eth.zap 127.0.0.1:9999 Eth.getBalance \\\n    \
    '{\"id\":1,\"block\":\"latest\",\"account\":\"0x4725818c202ef848d7d3cce765e30646e63cdca1\"}'\n  \
    zapc call --schema schemas/eth.zap 127.0.0.1:9999 Eth.chainId\n  \
    zapc call --schema schemas/eth.zap 127.0.0.1:9999 Eth.newHeads '{\"count\":3}'\n  \
    zapc call --schema schemas/eth.zap --deadline 2.5 --header request-id=7f3a \\\n    \
    127.0.0.1:9999 Eth.newHeads '{\"count\":0}'\n  \
    zapc call --traceparent 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 \\\n    \
    127.0.0.1:9999 Eth.chainId\n  \
    zapc call --schema schemas/eth.zap --ca ca.pem localhost:9999 Eth.chainId")]
pub struct Args {
    /// The .zap file that declares the interface. Without it, the server is asked for
    /// its schema (reflection), which every zapc server answers.
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
    /// The server: HOST:PORT, or unix:PATH for one on a unix socket.
    #[arg(value_name = "ADDR")]
    addr: String,
    /// The method, `Interface.method` as the schema names them (`Eth.getBalance`).
    #[arg(value_name = "METHOD")]
    method: String,
    /// The request as JSON in the schema's JSON mapping (lowerCamelCase keys, 64-bit
    /// integers also as strings, bytes as 0x hex); `-` reads it from stdin. Omitted for
    /// a method without a request; absent fields are zero.
    #[arg(value_name = "JSON")]
    json: Option<String>,
    #[command(flatten)]
    connect: ConnectArgs,
    /// The call's deadline in seconds, sent to the server with the call: the server
    /// stops the handler when it passes and answers "deadline exceeded" (exit 1). It
    /// bounds a stream too: the stream ends on both sides when it passes.
    #[arg(long, value_name = "SECONDS")]
    deadline: Option<f64>,
    /// Metadata to send with the call, `KEY=VALUE` (repeatable): keys of a-z, 0-9, '-',
    /// '_' and '.'; the value as text. A handler reads it from its call's context.
    #[arg(long = "header", short = 'H', value_name = "KEY=VALUE")]
    headers: Vec<String>,
    /// A W3C trace context to send with the call
    /// (`00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>`): a server that
    /// traces makes its span of the call a child of this parent, in this trace. `new`
    /// starts a trace (sampled) and prints `trace <id>` on stderr, to look it up in the
    /// tracing back end.
    #[arg(long, value_name = "TRACEPARENT|new")]
    traceparent: Option<String>,
    /// For a method with a `stream T` parameter: read the messages to send from stdin,
    /// one JSON object per line, and end the stream at the end of input. Without it
    /// nothing is sent and this side of the stream ends at once.
    #[arg(long)]
    send: bool,
}

/// Run `zapc call`.
pub fn run(args: &Args) -> ExitCode {
    match try_run(args) {
        Ok(Some(answer)) => {
            println!("{answer}");
            ExitCode::SUCCESS
        }
        Ok(None) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}

/// The interface and method `Interface.method` names, or which ones there are.
fn find<'s>(schema: &'s Schema, name: &str) -> Result<(&'s Interface, &'s Method), String> {
    let every = || {
        let all: Vec<String> = schema
            .interfaces
            .iter()
            .flat_map(|i| {
                i.methods
                    .iter()
                    .map(move |m| format!("{}.{}", i.name, m.name))
            })
            .collect();
        if all.is_empty() {
            format!("{} declares no interface", schema.source_name)
        } else {
            format!("{} has: {}", schema.source_name, all.join(", "))
        }
    };
    let (interface, method) = name
        .split_once('.')
        .ok_or_else(|| format!("name the method as Interface.method; {}", every()))?;
    let interface = schema
        .interfaces
        .iter()
        .find(|i| i.name == interface)
        .ok_or_else(|| format!("no interface {interface:?}; {}", every()))?;
    let method = interface
        .methods
        .iter()
        .find(|m| m.name == method)
        .ok_or_else(|| format!("no method {name:?}; {}", every()))?;
    Ok((interface, method))
}

/// The answer to print, or `None` when a stream printed its messages itself.
fn try_run(args: &Args) -> Result<Option<Value>, Failure> {
    // A schema file is read (and the request checked against it) before connecting.
    let given = match &args.schema {
        Some(path) => {
            let path = one_schema(path, "--schema").map_err(Failure::Usage)?;
            let schema = zapc::load_file(path).map_err(|e| Failure::Usage(e.to_string()))?;
            let (_, method) = find(&schema, &args.method).map_err(Failure::Usage)?;
            request(&schema, method, args.json.as_deref()).map_err(Failure::Usage)?;
            Some(schema)
        }
        None => None,
    };
    let deadline = args
        .deadline
        .map(|s| {
            Duration::try_from_secs_f64(s)
                .map_err(|e| Failure::Usage(format!("--deadline {s}: {e}")))
        })
        .transpose()?;
    let options =
        call_options(&args.headers, args.traceparent.as_deref()).map_err(Failure::Usage)?;
    args.connect.timeout()?;
    let runtime = remote::runtime()?;
    runtime.block_on(async {
        let client = args.connect.connect(&args.addr, deadline).await?;
        let schema = match given {
            Some(schema) => schema,
            None => {
                let interface = args.method.split_once('.').map(|(i, _)| i);
                let description = remote::describe(&client, &args.addr).await?;
                let service = remote::service(&description, interface, &args.addr)?;
                remote::load_described(service, &args.addr)?
            }
        };
        let (_, method) = find(&schema, &args.method).map_err(Failure::Usage)?;
        let payload = request(&schema, method, args.json.as_deref()).map_err(Failure::Usage)?;
        if args.send && method.stream_param.is_none() {
            return Err(Failure::Usage(format!(
                "--send: {} takes no stream of messages",
                args.method
            )));
        }
        let stream = method.streaming() != Streaming::Unary;
        let body = options
            .scope(async {
                if stream {
                    run_stream(&client, &schema, method, &payload, args.send).await
                } else {
                    client
                        .call(method.ordinal, &payload)
                        .await
                        .map_err(|e| Failure::Call(describe(&e)))
                }
            })
            .await;
        client.close().await;
        answer(&schema, method, stream, &body?)
    })
}

/// What to print for an answer: nothing for a stream (its messages were printed), the
/// result as JSON for a call.
fn answer(
    schema: &Schema,
    method: &Method,
    stream: bool,
    body: &[u8],
) -> Result<Option<Value>, Failure> {
    if stream {
        return Ok(None);
    }
    let Some(result) = &method.result else {
        return Ok(Some(Value::Object(Default::default())));
    };
    decode(schema, &result.ty, body).map(Some)
}

/// A message of struct `ty` as JSON.
fn decode(schema: &Schema, ty: &str, body: &[u8]) -> Result<Value, Failure> {
    let s = schema
        .struct_named(ty)
        .ok_or_else(|| Failure::Usage(format!("struct {ty} is not in the schema")))?;
    dynamic::decode(schema, s, body).map_err(|e| {
        Failure::Call(format!(
            "the answer is not a {ty} message: {e} ({} bytes)",
            body.len()
        ))
    })
}

/// Open the stream, send stdin's lines (with `--send`), print every message received.
async fn run_stream<T: Transport>(
    client: &T,
    schema: &Schema,
    method: &Method,
    open: &[u8],
    send: bool,
) -> Result<Vec<u8>, Failure> {
    let mut io = client
        .open_stream(method.ordinal, open)
        .await
        .map_err(|e| Failure::Call(describe(&e)))?;
    let sending = async {
        if let (true, Some(param)) = (send, &method.stream_param) {
            let lines = tokio::task::spawn_blocking(|| {
                std::io::stdin().lines().collect::<Result<Vec<String>, _>>()
            });
            let lines = lines
                .await
                .map_err(|e| Failure::Call(format!("reading stdin failed: {e}")))?
                .map_err(|e| Failure::Usage(format!("cannot read stdin: {e}")))?;
            for (n, line) in lines
                .iter()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
            {
                let message = request(schema, &with_param(method, param), Some(line))
                    .map_err(|e| Failure::Usage(format!("stdin line {}: {e}", n + 1)))?;
                io.outbound
                    .send(&message)
                    .await
                    .map_err(|e| Failure::Call(e.to_string()))?;
            }
        }
        io.outbound.end();
        Ok::<(), Failure>(())
    };
    let receiving = async {
        let mut received = 0u64;
        while let Some(message) = io
            .inbound
            .next()
            .await
            .map_err(|e| Failure::Call(e.to_string()))?
        {
            received += 1;
            let line = match &method.result {
                Some(result) => decode(schema, &result.ty, &message)?,
                None => Value::Object(Default::default()),
            };
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
        if received == 0 {
            eprintln!("note: the server ended the stream without a message");
        }
        Ok::<(), Failure>(())
    };
    // The first failure ends both: a bad line to send must not wait for the server.
    tokio::try_join!(sending, receiving).map(|_| Vec::new())
}

/// A new sampled trace with random ids (from the standard library's randomly keyed
/// hasher, seeded by the operating system: unique, not secret, as trace ids need).
fn new_trace() -> zap_runtime::trace::TraceParent {
    use std::hash::{BuildHasher, Hasher};
    let random = |n: u64| {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(n);
        hasher.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        hasher.finish().max(1)
    };
    let mut trace_id = [0; 16];
    trace_id[..8].copy_from_slice(&random(1).to_le_bytes());
    trace_id[8..].copy_from_slice(&random(2).to_le_bytes());
    zap_runtime::trace::TraceParent {
        trace_id,
        parent_id: random(3).to_le_bytes(),
        flags: 1,
    }
}

/// The metadata of `--header KEY=VALUE` options and `--traceparent`, as the calls'
/// options.
fn call_options(
    headers: &[String],
    traceparent: Option<&str>,
) -> Result<zap_runtime::context::CallOptions, String> {
    let mut options = zap_runtime::context::CallOptions::new();
    if let Some(text) = traceparent {
        let parent = match text {
            "new" => {
                let parent = new_trace();
                eprintln!("trace {}", parent.trace_id_hex());
                parent
            }
            _ => zap_runtime::trace::TraceParent::parse(text.as_bytes()).ok_or_else(|| {
                format!(
                    "--traceparent {text:?} is not a W3C traceparent: write it as \
                     00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, lowercase, ids not \
                     all zero (or say `new`)"
                )
            })?,
        };
        options = options
            .header(zap_runtime::trace::TRACEPARENT, parent.to_string())
            .map_err(|e| format!("--traceparent: {e}"))?;
    }
    for header in headers {
        let (key, value) = header
            .split_once('=')
            .ok_or_else(|| format!("--header {header:?}: write it as KEY=VALUE"))?;
        options = options
            .header(key, value.as_bytes().to_vec())
            .map_err(|e| format!("--header {header:?}: {e}"))?;
    }
    Ok(options)
}

/// `method` with `param` as its request: a stream message is encoded like a request.
fn with_param(method: &Method, param: &zapc::ir::Param) -> Method {
    Method {
        param: Some(param.clone()),
        ..method.clone()
    }
}

/// The request message for `json` (text, `-` for stdin, `None` for none).
fn request(schema: &Schema, method: &Method, json: Option<&str>) -> Result<Vec<u8>, String> {
    let Some(param) = &method.param else {
        return match json {
            None => Ok(Vec::new()),
            Some(_) => Err(format!("{} takes no request", method.name)),
        };
    };
    let text = match json {
        Some("-") => std::io::read_to_string(std::io::stdin())
            .map_err(|e| format!("cannot read the request from stdin: {e}"))?,
        Some(text) => text.to_owned(),
        None => "{}".to_owned(),
    };
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("the request is not valid JSON: {e}"))?;
    let ty = schema
        .struct_named(&param.ty)
        .ok_or_else(|| format!("struct {} is not in the schema", param.ty))?;
    dynamic::encode(schema, ty, &value).map_err(|e| format!("the request as a {}: {e}", param.ty))
}
