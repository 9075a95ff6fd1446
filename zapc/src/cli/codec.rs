//! `zapc encode` and `zapc decode`: JSON <-> wire bytes for any struct of a schema.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::dynamic;
use super::inputs::one_schema;
use zapc::ir::{Schema, Struct};
use zapc::load_file;

/// Encode JSON (stdin) as a ZAP message of one struct (stdout).
///
/// The JSON is an object in the schema's JSON mapping: lowerCamelCase keys, integers as
/// numbers (64-bit ones also as decimal or 0x strings), bytes as "0x…" hex, lists as
/// arrays, a missing child as null. Absent fields are zero.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  echo '{\"id\":1,\"block\":\"0x10d4f\",\"account\":\"0xdeadbeef00112233445566778899aabbccddeeff\"}' \\\n    | zapc encode --schema schemas/eth.zap --type BalanceRequest --hex"
)]
pub struct EncodeArgs {
    #[command(flatten)]
    message: MessageType,
    /// Write lower-case hex (and a newline) instead of raw bytes.
    #[arg(long)]
    hex: bool,
}

/// Decode a ZAP message of one struct (stdin) as JSON (stdout).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  zapc encode --schema schemas/eth.zap --type BalanceRequest --hex < req.json \\\n    | zapc decode --schema schemas/eth.zap --type BalanceRequest --hex"
)]
pub struct DecodeArgs {
    #[command(flatten)]
    message: MessageType,
    /// Read hex (whitespace ignored, optional 0x) instead of raw bytes.
    #[arg(long)]
    hex: bool,
}

/// Which struct of which schema the message is.
#[derive(Debug, clap::Args)]
struct MessageType {
    /// The .zap file that declares the type.
    #[arg(long, value_name = "FILE")]
    schema: PathBuf,
    /// The struct, as named in the schema.
    #[arg(long = "type", value_name = "NAME")]
    type_name: String,
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    let text = message.to_string();
    eprint!("{text}");
    if !text.ends_with('\n') {
        eprintln!();
    }
    ExitCode::FAILURE
}

/// The schema and the struct named `type_name` in it, or a message saying what is wrong.
fn load_type(schema: &Path, type_name: &str) -> Result<(Schema, Struct), String> {
    let schema = one_schema(schema, "--schema").map_err(|m| format!("error: {m}"))?;
    let schema = load_file(schema).map_err(|e| e.to_string())?;
    match schema.struct_named(type_name) {
        Some(ty) => {
            let ty = ty.clone();
            Ok((schema, ty))
        }
        None => {
            let known: Vec<&str> = schema.structs.iter().map(|s| s.name.as_str()).collect();
            Err(format!(
                "error: {} has no struct named {type_name:?}; it declares: {}",
                schema.source_name,
                if known.is_empty() {
                    "no structs".to_string()
                } else {
                    known.join(", ")
                }
            ))
        }
    }
}

fn read_stdin() -> Result<Vec<u8>, String> {
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| format!("error: cannot read stdin: {e}"))?;
    Ok(input)
}

/// The schema, the struct and the bytes on stdin that `zapc encode`/`decode` work on.
fn load_input(message: &MessageType) -> Result<(Schema, Struct, Vec<u8>), String> {
    let (schema, ty) = load_type(&message.schema, &message.type_name)?;
    Ok((schema, ty, read_stdin()?))
}

/// Run `zapc encode`.
pub fn encode(args: &EncodeArgs) -> ExitCode {
    finish(try_encode(args))
}

/// Run `zapc decode`.
pub fn decode(args: &DecodeArgs) -> ExitCode {
    finish(try_decode(args))
}

fn finish(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => fail(message),
    }
}

fn try_encode(args: &EncodeArgs) -> Result<(), String> {
    let (schema, ty, input) = load_input(&args.message)?;
    let json: serde_json::Value = serde_json::from_slice(&input)
        .map_err(|e| format!("error: stdin is not valid JSON: {e}"))?;
    let wire = dynamic::encode(&schema, &ty, &json)
        .map_err(|e| format!("error: JSON does not match {}: {e}", ty.name))?;
    let mut out = std::io::stdout().lock();
    let written = if args.hex {
        writeln!(
            out,
            "{}",
            zap_runtime::json::to_hex(&wire).trim_start_matches("0x")
        )
    } else {
        out.write_all(&wire)
    };
    written
        .and_then(|()| out.flush())
        .map_err(|e| format!("error: cannot write stdout: {e}"))
}

fn try_decode(args: &DecodeArgs) -> Result<(), String> {
    let (schema, ty, input) = load_input(&args.message)?;
    let wire = if args.hex {
        let text: String = String::from_utf8_lossy(&input).split_whitespace().collect();
        zap_runtime::json::from_hex(&text).map_err(|e| format!("error: stdin is not hex: {e}"))?
    } else {
        input
    };
    let json = dynamic::decode(&schema, &ty, &wire)
        .map_err(|e| format!("error: input is not a ZAP message: {e}"))?;
    println!(
        "{}",
        serde_json::to_string_pretty(&json).unwrap_or_default()
    );
    Ok(())
}
