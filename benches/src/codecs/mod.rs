//! One [`Codec`] per wire format, all with the same interface and the same work:
//!
//! * encode a prepared value into a buffer the codec reuses;
//! * decode and fold every field into a [`Sink`] (no copy into an owned value where
//!   the format does not need one: a ZAP reader is read in place, JSON strings borrow);
//! * a handler: decode a request, [`compute`](crate::values::compute) the answer, encode
//!   the response, as a server does;
//! * for the equivalence test, decode to the format-independent [`values`](crate::values).
//!
//! [`LogsCodec`] is the same for the list-heavy `eth_getLogs` record: encode it, read it
//! fully, read one field of one log.
//!
//! Peers that can read without checking the input (rkyv, Cap'n Proto without a traversal
//! limit) appear twice: the way their documentation asks for untrusted input, and their
//! fastest way, named so (`rkyv_unchecked`, `capnp_unlimited`).
//!
//! Every codec is charitable to itself: output buffers and decode targets are reused,
//! JSON hex goes through stack buffers, prost merges into reused messages.

mod capnp_codec;
mod floor;
mod json;
mod planus_codec;
mod postcard_codec;
mod prost_codec;
mod rkyv_codec;
mod zap;

pub use capnp_codec::{Capnp, CapnpUnlimited};
pub use floor::Floor;
pub use json::{JsonBytes, JsonEngine, JsonLogs, JsonStr, SerdeJson, SonicRs};
pub use planus_codec::Planus;
pub use postcard_codec::Postcard;
pub use prost_codec::Prost;
pub use rkyv_codec::{RkyvChecked, RkyvUnchecked};
pub use zap::{encode_response_direct, ZapFixed, ZapTails};

use crate::values::{Log, Request, Response, Sink};

/// A decode or handler failure (only allocates when something fails).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl Error {
    pub fn new(e: impl core::fmt::Display) -> Self {
        Error(e.to_string())
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// A wire format for the `eth_getBalance` record.
pub trait Codec: Default {
    /// Short name, safe as a directory name (criterion uses it as one).
    const NAME: &'static str;
    /// What the encoder starts from: the values in the codec's own representation
    /// (e.g. hex already formatted), prepared once outside the timed loop.
    type RequestIn;
    type ResponseIn;

    fn prepare_request(v: &Request) -> Self::RequestIn;
    fn prepare_response(v: &Response) -> Self::ResponseIn;

    fn encode_request(&mut self, v: &Self::RequestIn) -> &[u8];
    fn encode_response(&mut self, v: &Self::ResponseIn) -> &[u8];

    /// Decode and fold every field into `sink`.
    fn decode_request(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error>;
    fn decode_response(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error>;

    /// Decode a request, compute the answer, encode the response.
    fn handle(&mut self, wire: &[u8]) -> Result<&[u8], Error>;

    /// Decode to the format-independent values (for the equivalence test).
    fn request_values(&mut self, wire: &[u8]) -> Result<Request, Error>;
    fn response_values(&mut self, wire: &[u8]) -> Result<Response, Error>;
}

/// A wire format for the list-heavy `eth_getLogs` response ([`crate::values::logs`]).
pub trait LogsCodec: Default {
    /// Short name, safe as a directory name.
    const NAME: &'static str;
    /// What the encoder starts from, prepared once outside the timed loop.
    type LogsIn;

    fn prepare_logs(v: &[Log]) -> Self::LogsIn;
    fn encode_logs(&mut self, v: &Self::LogsIn) -> &[u8];

    /// Read every field of every log into `sink` (in [`Sink::log`]'s order, byte fields
    /// as bytes: a JSON codec decodes its hex).
    fn decode_logs(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error>;

    /// Read only the transaction hash of log `i` into `sink`, the fastest way the
    /// format allows.
    fn read_log_hash(&mut self, wire: &[u8], i: usize, sink: &mut Sink) -> Result<(), Error>;

    /// Decode to the format-independent values (for the equivalence test).
    fn logs_values(&mut self, wire: &[u8]) -> Result<Vec<Log>, Error>;
}

/// Call `$f::<Codec>($args)` for every codec, in table order.
#[macro_export]
macro_rules! for_each_codec {
    ($f:ident ( $($arg:expr),* )) => {{
        use $crate::codecs::*;
        $f::<ZapFixed>($($arg),*);
        $f::<ZapTails>($($arg),*);
        $f::<Floor>($($arg),*);
        $f::<Planus>($($arg),*);
        $f::<Capnp>($($arg),*);
        $f::<CapnpUnlimited>($($arg),*);
        $f::<RkyvChecked>($($arg),*);
        $f::<RkyvUnchecked>($($arg),*);
        $f::<Postcard>($($arg),*);
        $f::<Prost>($($arg),*);
        $f::<JsonStr<SonicRs>>($($arg),*);
        $f::<JsonBytes<SonicRs>>($($arg),*);
        $f::<JsonStr<SerdeJson>>($($arg),*);
        $f::<JsonBytes<SerdeJson>>($($arg),*);
    }};
}

/// Call `$f::<LogsCodec>($args)` for every codec of the logs record, in table order.
#[macro_export]
macro_rules! for_each_logs_codec {
    ($f:ident ( $($arg:expr),* )) => {{
        use $crate::codecs::*;
        $f::<ZapFixed>($($arg),*);
        $f::<Planus>($($arg),*);
        $f::<Capnp>($($arg),*);
        $f::<CapnpUnlimited>($($arg),*);
        $f::<RkyvChecked>($($arg),*);
        $f::<RkyvUnchecked>($($arg),*);
        $f::<Postcard>($($arg),*);
        $f::<Prost>($($arg),*);
        $f::<JsonLogs<SonicRs>>($($arg),*);
        $f::<JsonLogs<SerdeJson>>($($arg),*);
    }};
}
