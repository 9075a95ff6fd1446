//! JSON into typed structs, with serde_json and with sonic-rs, in two framings (block,
//! balance and nonce as Ethereum quantities, the mapping schemas/eth.zap declares):
//!
//! * [`JsonStr`]: hex kept as strings (borrowed from the input, no allocation): the most
//!   charitable framing for JSON, though a real handler still has to decode the hex;
//! * [`JsonBytes`]: hex decoded to byte arrays (what a handler needs), through stack
//!   buffers ([`crate::hexser`]).
//!
//! The field names are those of the JSON mapping zapc generates for `schemas/eth.zap`,
//! so these are the bytes the JSON-RPC server sees as `params` and sends as `result`.

use core::marker::PhantomData;

use serde::{Deserialize, Serialize};

use super::{Codec, Error, LogsCodec};
use crate::hexser;
use crate::values::{compute, Log, Request, Response, Sink};

/// A JSON library: parse a typed value from bytes, write one into a reused buffer.
pub trait JsonEngine {
    /// Codec names for the two framings.
    const STR_NAME: &'static str;
    const BYTES_NAME: &'static str;
    /// Codec name for the logs record.
    const LOGS_NAME: &'static str;
    fn from_slice<'a, T: Deserialize<'a>>(json: &'a [u8]) -> Result<T, Error>;
    fn write<T: Serialize>(out: &mut Vec<u8>, v: &T);
    /// The `transactionHash` of log `i` of an `eth_getLogs` result, hex decoded, the
    /// fastest way the library offers.
    fn log_hash(json: &[u8], i: usize) -> Result<[u8; 32], Error>;
}

/// A log with nothing but its transaction hash: serde skips every other field.
#[derive(Deserialize)]
struct HashOnly<'a> {
    #[serde(rename = "transactionHash", borrow)]
    transaction_hash: &'a str,
}

/// serde_json.
#[derive(Debug, Default)]
pub struct SerdeJson;

impl JsonEngine for SerdeJson {
    const STR_NAME: &'static str = "serde_json_str";
    const BYTES_NAME: &'static str = "serde_json_bytes";
    const LOGS_NAME: &'static str = "serde_json";
    #[inline]
    fn from_slice<'a, T: Deserialize<'a>>(json: &'a [u8]) -> Result<T, Error> {
        serde_json::from_slice(json).map_err(Error::new)
    }
    #[inline]
    fn write<T: Serialize>(out: &mut Vec<u8>, v: &T) {
        // Writing plain structs into a Vec cannot fail.
        let _ = serde_json::to_writer(out, v);
    }
    /// Parse the logs as a list of transaction hashes (every other field skipped).
    #[inline]
    fn log_hash(json: &[u8], i: usize) -> Result<[u8; 32], Error> {
        let logs: Vec<HashOnly<'_>> = Self::from_slice(json)?;
        let l = logs.get(i).ok_or_else(|| Error(format!("no log {i}")))?;
        fixed(l.transaction_hash)
    }
}

/// sonic-rs (SIMD JSON, serde-compatible).
#[derive(Debug, Default)]
pub struct SonicRs;

impl JsonEngine for SonicRs {
    const STR_NAME: &'static str = "sonic_rs_str";
    const BYTES_NAME: &'static str = "sonic_rs_bytes";
    const LOGS_NAME: &'static str = "sonic_rs";
    #[inline]
    fn from_slice<'a, T: Deserialize<'a>>(json: &'a [u8]) -> Result<T, Error> {
        sonic_rs::from_slice(json).map_err(Error::new)
    }
    #[inline]
    fn write<T: Serialize>(out: &mut Vec<u8>, v: &T) {
        let _ = sonic_rs::to_writer(out, v);
    }
    /// sonic-rs's lazy `get_from_slice` by path: it skips the logs before `i` without
    /// parsing them into values (and without validating them fully).
    #[inline]
    fn log_hash(json: &[u8], i: usize) -> Result<[u8; 32], Error> {
        let v = sonic_rs::get_from_slice(json, &sonic_rs::pointer![i, "transactionHash"])
            .map_err(Error::new)?;
        let raw = v.as_raw_str();
        // A hash has no escapes: anything but a plain string fails to decode as hex.
        let text = raw
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .ok_or_else(|| Error(format!("transactionHash {raw}")))?;
        fixed(text)
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct RequestStr<'a> {
    id: u64,
    #[serde(with = "zap_runtime::json::block_quantity")]
    block: u64,
    account: &'a str,
}

#[derive(Debug, Serialize, Deserialize)]
struct ResponseStr<'a> {
    id: u64,
    #[serde(with = "zap_runtime::json::quantity")]
    balance: u64,
    #[serde(with = "zap_runtime::json::quantity")]
    nonce: u64,
    #[serde(rename = "blockHash")]
    block_hash: &'a str,
}

/// A request with its hex already formatted.
#[derive(Clone, Debug)]
pub struct HexRequest {
    pub id: u64,
    pub block: u64,
    pub account: String,
}

/// A response with its hex already formatted.
#[derive(Clone, Debug)]
pub struct HexResponse {
    pub id: u64,
    pub balance: u64,
    pub nonce: u64,
    pub block_hash: String,
}

/// JSON with hex kept as strings.
#[derive(Debug)]
pub struct JsonStr<E> {
    out: Vec<u8>,
    engine: PhantomData<E>,
}

impl<E> Default for JsonStr<E> {
    fn default() -> Self {
        JsonStr {
            out: Vec::with_capacity(256),
            engine: PhantomData,
        }
    }
}

impl<E: JsonEngine> Codec for JsonStr<E> {
    const NAME: &'static str = E::STR_NAME;
    type RequestIn = HexRequest;
    type ResponseIn = HexResponse;

    fn prepare_request(v: &Request) -> HexRequest {
        HexRequest {
            id: v.id,
            block: v.block,
            account: hexser::encode(&v.account, &mut [0; 66]).to_owned(),
        }
    }

    fn prepare_response(v: &Response) -> HexResponse {
        HexResponse {
            id: v.id,
            balance: v.balance,
            nonce: v.nonce,
            block_hash: hexser::encode(&v.block_hash, &mut [0; 66]).to_owned(),
        }
    }

    #[inline]
    fn encode_request(&mut self, v: &HexRequest) -> &[u8] {
        self.out.clear();
        let wire = RequestStr {
            id: v.id,
            block: v.block,
            account: &v.account,
        };
        E::write(&mut self.out, &wire);
        &self.out
    }

    #[inline]
    fn encode_response(&mut self, v: &HexResponse) -> &[u8] {
        self.out.clear();
        let wire = ResponseStr {
            id: v.id,
            balance: v.balance,
            nonce: v.nonce,
            block_hash: &v.block_hash,
        };
        E::write(&mut self.out, &wire);
        &self.out
    }

    #[inline]
    fn decode_request(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r: RequestStr<'_> = E::from_slice(wire)?;
        sink.request(r.id, r.block, r.account.as_bytes());
        Ok(())
    }

    #[inline]
    fn decode_response(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r: ResponseStr<'_> = E::from_slice(wire)?;
        sink.response(r.id, r.balance, r.nonce, r.block_hash.as_bytes());
        Ok(())
    }

    /// The handler needs the account as bytes and must send the hash as hex: the
    /// strings are converted here, so this costs what [`JsonBytes`] costs.
    #[inline]
    fn handle(&mut self, wire: &[u8]) -> Result<&[u8], Error> {
        let r: RequestStr<'_> = E::from_slice(wire)?;
        let account = hexser::decode::<20>(r.account).map_err(Error::new)?;
        let v = compute(r.id, r.block, &account);
        let mut hash = [0u8; 66];
        let resp = ResponseStr {
            id: v.id,
            balance: v.balance,
            nonce: v.nonce,
            block_hash: hexser::encode(&v.block_hash, &mut hash),
        };
        self.out.clear();
        E::write(&mut self.out, &resp);
        Ok(&self.out)
    }

    fn request_values(&mut self, wire: &[u8]) -> Result<Request, Error> {
        let r: RequestStr<'_> = E::from_slice(wire)?;
        Ok(Request {
            id: r.id,
            block: r.block,
            account: hexser::decode(r.account).map_err(Error::new)?,
        })
    }

    fn response_values(&mut self, wire: &[u8]) -> Result<Response, Error> {
        let r: ResponseStr<'_> = E::from_slice(wire)?;
        Ok(Response {
            id: r.id,
            balance: r.balance,
            nonce: r.nonce,
            block_hash: hexser::decode(r.block_hash).map_err(Error::new)?,
        })
    }
}

/// The request with the account as bytes.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct RequestBytes {
    id: u64,
    #[serde(with = "zap_runtime::json::block_quantity")]
    block: u64,
    #[serde(with = "hexser")]
    account: [u8; 20],
}

/// The response with the block hash as bytes.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct ResponseBytes {
    id: u64,
    #[serde(with = "zap_runtime::json::quantity")]
    balance: u64,
    #[serde(with = "zap_runtime::json::quantity")]
    nonce: u64,
    #[serde(rename = "blockHash", with = "hexser")]
    block_hash: [u8; 32],
}

impl From<Response> for ResponseBytes {
    #[inline]
    fn from(v: Response) -> Self {
        ResponseBytes {
            id: v.id,
            balance: v.balance,
            nonce: v.nonce,
            block_hash: v.block_hash,
        }
    }
}

/// JSON with hex decoded to byte arrays.
#[derive(Debug)]
pub struct JsonBytes<E> {
    out: Vec<u8>,
    engine: PhantomData<E>,
}

impl<E> Default for JsonBytes<E> {
    fn default() -> Self {
        JsonBytes {
            out: Vec::with_capacity(256),
            engine: PhantomData,
        }
    }
}

impl<E: JsonEngine> Codec for JsonBytes<E> {
    const NAME: &'static str = E::BYTES_NAME;
    type RequestIn = RequestBytes;
    type ResponseIn = ResponseBytes;

    fn prepare_request(v: &Request) -> RequestBytes {
        RequestBytes {
            id: v.id,
            block: v.block,
            account: v.account,
        }
    }

    fn prepare_response(v: &Response) -> ResponseBytes {
        (*v).into()
    }

    #[inline]
    fn encode_request(&mut self, v: &RequestBytes) -> &[u8] {
        self.out.clear();
        E::write(&mut self.out, v);
        &self.out
    }

    #[inline]
    fn encode_response(&mut self, v: &ResponseBytes) -> &[u8] {
        self.out.clear();
        E::write(&mut self.out, v);
        &self.out
    }

    #[inline]
    fn decode_request(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r: RequestBytes = E::from_slice(wire)?;
        sink.request(r.id, r.block, &r.account);
        Ok(())
    }

    #[inline]
    fn decode_response(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r: ResponseBytes = E::from_slice(wire)?;
        sink.response(r.id, r.balance, r.nonce, &r.block_hash);
        Ok(())
    }

    #[inline]
    fn handle(&mut self, wire: &[u8]) -> Result<&[u8], Error> {
        let r: RequestBytes = E::from_slice(wire)?;
        let resp = ResponseBytes::from(compute(r.id, r.block, &r.account));
        self.out.clear();
        E::write(&mut self.out, &resp);
        Ok(&self.out)
    }

    fn request_values(&mut self, wire: &[u8]) -> Result<Request, Error> {
        let r: RequestBytes = E::from_slice(wire)?;
        Ok(Request {
            id: r.id,
            block: r.block,
            account: r.account,
        })
    }

    fn response_values(&mut self, wire: &[u8]) -> Result<Response, Error> {
        let r: ResponseBytes = E::from_slice(wire)?;
        Ok(Response {
            id: r.id,
            balance: r.balance,
            nonce: r.nonce,
            block_hash: r.block_hash,
        })
    }
}

/// One log in the Ethereum JSON-RPC form: quantities and byte strings as `0x` hex.
/// (A node also sends `blockHash` and `removed`; the record here has neither.)
#[derive(Debug, Serialize, Deserialize)]
struct LogHex<'a> {
    address: &'a str,
    #[serde(borrow)]
    topics: Vec<&'a str>,
    data: &'a str,
    #[serde(rename = "blockNumber")]
    block_number: &'a str,
    #[serde(rename = "transactionHash")]
    transaction_hash: &'a str,
    #[serde(rename = "transactionIndex")]
    transaction_index: &'a str,
    #[serde(rename = "logIndex")]
    log_index: &'a str,
}

/// A log with its hex already formatted (what the encoder starts from).
#[derive(Clone, Debug, Serialize)]
pub struct LogText {
    address: String,
    topics: Vec<String>,
    data: String,
    #[serde(rename = "blockNumber")]
    block_number: String,
    #[serde(rename = "transactionHash")]
    transaction_hash: String,
    #[serde(rename = "transactionIndex")]
    transaction_index: String,
    #[serde(rename = "logIndex")]
    log_index: String,
}

fn hex_bytes(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}

/// An Ethereum quantity (`0x`, no leading zeros) to a number.
fn quantity(s: &str) -> Result<u64, Error> {
    let digits = s
        .strip_prefix("0x")
        .ok_or_else(|| Error(format!("quantity {s:?} without 0x")))?;
    u64::from_str_radix(digits, 16).map_err(Error::new)
}

fn quantity32(s: &str) -> Result<u32, Error> {
    u32::try_from(quantity(s)?).map_err(Error::new)
}

fn fixed<const N: usize>(s: &str) -> Result<[u8; N], Error> {
    hexser::decode(s).map_err(Error::new)
}

/// `0x…` of any length into `buf` (reused); returns the bytes.
fn variable<'b>(s: &str, buf: &'b mut Vec<u8>) -> Result<&'b [u8], Error> {
    let digits = s.strip_prefix("0x").unwrap_or(s);
    buf.clear();
    buf.resize(digits.len() / 2, 0);
    hex::decode_to_slice(digits, buf).map_err(Error::new)?;
    Ok(buf)
}

/// The `eth_getLogs` result as Ethereum JSON. Reading it fully parses the logs (strings
/// borrowed from the input) and decodes every hex string, into stack arrays and one
/// reused buffer for the data: the bytes a reader of the logs needs, as every other
/// codec delivers them.
#[derive(Debug)]
pub struct JsonLogs<E> {
    out: Vec<u8>,
    data: Vec<u8>,
    engine: PhantomData<E>,
}

impl<E> Default for JsonLogs<E> {
    fn default() -> Self {
        JsonLogs {
            out: Vec::with_capacity(64 * 1024),
            data: Vec::with_capacity(256),
            engine: PhantomData,
        }
    }
}

impl<E: JsonEngine> LogsCodec for JsonLogs<E> {
    const NAME: &'static str = E::LOGS_NAME;
    type LogsIn = Vec<LogText>;

    fn prepare_logs(v: &[Log]) -> Vec<LogText> {
        v.iter()
            .map(|l| LogText {
                address: hex_bytes(&l.address),
                topics: l.topics.iter().map(|t| hex_bytes(t)).collect(),
                data: hex_bytes(&l.data),
                block_number: format!("{:#x}", l.block_number),
                transaction_hash: hex_bytes(&l.transaction_hash),
                transaction_index: format!("{:#x}", l.transaction_index),
                log_index: format!("{:#x}", l.log_index),
            })
            .collect()
    }

    #[inline]
    fn encode_logs(&mut self, v: &Vec<LogText>) -> &[u8] {
        self.out.clear();
        E::write(&mut self.out, v);
        &self.out
    }

    #[inline]
    fn decode_logs(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let logs: Vec<LogHex<'_>> = E::from_slice(wire)?;
        for l in &logs {
            sink.log_head(
                quantity(l.block_number)?,
                quantity32(l.transaction_index)?,
                quantity32(l.log_index)?,
            );
            for t in &l.topics {
                sink.bytes(&fixed::<32>(t)?);
            }
            sink.bytes(variable(l.data, &mut self.data)?);
            sink.bytes(&fixed::<20>(l.address)?);
            sink.bytes(&fixed::<32>(l.transaction_hash)?);
        }
        Ok(())
    }

    #[inline]
    fn read_log_hash(&mut self, wire: &[u8], i: usize, sink: &mut Sink) -> Result<(), Error> {
        sink.bytes(&E::log_hash(wire, i)?);
        Ok(())
    }

    fn logs_values(&mut self, wire: &[u8]) -> Result<Vec<Log>, Error> {
        let logs: Vec<LogHex<'_>> = E::from_slice(wire)?;
        logs.iter()
            .map(|l| {
                Ok(Log {
                    block_number: quantity(l.block_number)?,
                    transaction_index: quantity32(l.transaction_index)?,
                    log_index: quantity32(l.log_index)?,
                    topics: l
                        .topics
                        .iter()
                        .map(|t| fixed::<32>(t))
                        .collect::<Result<_, _>>()?,
                    data: variable(l.data, &mut self.data)?.to_vec(),
                    address: fixed(l.address)?,
                    transaction_hash: fixed(l.transaction_hash)?,
                })
            })
            .collect()
    }
}
