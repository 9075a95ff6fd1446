//! Every codec encodes and decodes the same values: what one encodes, it decodes back
//! to the same request and response; its handler answers what `compute` says; the ZAP
//! layouts match the shared vectors byte for byte; the JSON codecs write the JSON
//! mapping zapc generates; prost's bytes decode with plain `Message::decode`. The same
//! for the peers (FlatBuffers, Cap'n Proto, rkyv, postcard) and for the logs record.

use zap_benches::codecs::{Codec, JsonBytes, JsonStr, LogsCodec, SerdeJson, SonicRs};
use zap_benches::values::{compute, logs, request, response, Request, Response, Sink, LOGS, PICK};
use zap_benches::{flat_vector, for_each_codec, for_each_logs_codec, generated};

/// The vector values and a few others (an unknown account, extreme numbers).
fn requests() -> Vec<Request> {
    let mut all = vec![request()];
    for (i, id) in [0, 2, u64::MAX].into_iter().enumerate() {
        all.push(Request {
            id,
            block: u64::MAX - i as u64,
            account: [i as u8 * 51; 20],
        });
    }
    all
}

fn responses() -> Vec<Response> {
    requests()
        .iter()
        .map(|r| compute(r.id, r.block, &r.account))
        .chain([Response {
            id: u64::MAX,
            balance: u64::MAX,
            nonce: 0,
            block_hash: [0xff; 32],
        }])
        .collect()
}

fn round_trips<C: Codec>() {
    let mut codec = C::default();
    for req in requests() {
        let wire = codec.encode_request(&C::prepare_request(&req)).to_vec();
        assert_eq!(codec.request_values(&wire), Ok(req), "{}", C::NAME);
        assert!(codec.decode_request(&wire, &mut Sink::default()).is_ok());

        let answer = codec.handle(&wire).unwrap().to_vec();
        let want = compute(req.id, req.block, &req.account);
        assert_eq!(
            codec.response_values(&answer),
            Ok(want),
            "{} handler",
            C::NAME
        );
        let encoded = codec.encode_response(&C::prepare_response(&want)).to_vec();
        assert_eq!(answer, encoded, "{}: handler and encoder differ", C::NAME);
    }
    for resp in responses() {
        let wire = codec.encode_response(&C::prepare_response(&resp)).to_vec();
        assert_eq!(codec.response_values(&wire), Ok(resp), "{}", C::NAME);
        assert!(codec.decode_response(&wire, &mut Sink::default()).is_ok());
    }
    // Garbage is an error, not a panic and not a value.
    assert!(codec.request_values(b"{garbage").is_err(), "{}", C::NAME);
    assert!(codec.response_values(b"{garbage").is_err(), "{}", C::NAME);
}

#[test]
fn every_codec_round_trips_the_same_values() {
    for_each_codec!(round_trips());
}

/// The folded sink is the same for a given codec whatever the run: decode reads values,
/// not addresses.
fn sink_is_deterministic<C: Codec>() {
    let mut codec = C::default();
    let wire = codec
        .encode_request(&C::prepare_request(&request()))
        .to_vec();
    let (mut a, mut b) = (Sink::default(), Sink::default());
    codec.decode_request(&wire, &mut a).unwrap();
    codec.decode_request(&wire, &mut b).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, Sink::default());
}

#[test]
fn decoding_folds_every_field() {
    for_each_codec!(sink_is_deterministic());
}

fn encode_request<C: Codec>(v: &Request) -> Vec<u8> {
    C::default().encode_request(&C::prepare_request(v)).to_vec()
}

fn encode_response<C: Codec>(v: &Response) -> Vec<u8> {
    C::default()
        .encode_response(&C::prepare_response(v))
        .to_vec()
}

#[test]
fn zap_layouts_match_the_shared_vectors() {
    use zap_benches::codecs::{ZapFixed, ZapTails};
    assert_eq!(
        encode_request::<ZapFixed>(&request()),
        flat_vector("eth_request_fixed")
    );
    assert_eq!(
        encode_response::<ZapFixed>(&response()),
        flat_vector("eth_response_fixed")
    );
    // The hand-written floor writes the very bytes of the generated code.
    use zap_benches::codecs::Floor;
    assert_eq!(
        encode_request::<Floor>(&request()),
        flat_vector("eth_request_fixed")
    );
    assert_eq!(
        encode_response::<Floor>(&response()),
        flat_vector("eth_response_fixed")
    );
    assert_eq!(
        encode_request::<ZapTails>(&request()),
        flat_vector("eth_request_tails")
    );
    assert_eq!(
        encode_response::<ZapTails>(&response()),
        flat_vector("eth_response_tails")
    );
}

#[test]
fn json_codecs_write_the_generated_json_mapping() {
    use generated::eth::{BalanceRequest, BalanceResponse};
    let req = encode_request::<JsonBytes<SerdeJson>>(&request());
    assert_eq!(req, encode_request::<JsonStr<SerdeJson>>(&request()));
    assert_eq!(req, encode_request::<JsonBytes<SonicRs>>(&request()));
    assert_eq!(req, encode_request::<JsonStr<SonicRs>>(&request()));
    let parsed: BalanceRequest = serde_json::from_slice(&req).unwrap();
    assert_eq!(
        (parsed.id, parsed.block, parsed.account),
        (request().id, request().block, request().account)
    );

    let resp = encode_response::<JsonBytes<SerdeJson>>(&response());
    assert_eq!(resp, encode_response::<JsonStr<SerdeJson>>(&response()));
    assert_eq!(resp, encode_response::<JsonBytes<SonicRs>>(&response()));
    assert_eq!(resp, encode_response::<JsonStr<SonicRs>>(&response()));
    let parsed: BalanceResponse = serde_json::from_slice(&resp).unwrap();
    let want = response();
    assert_eq!(
        (parsed.id, parsed.balance, parsed.nonce, parsed.block_hash),
        (want.id, want.balance, want.nonce, want.block_hash)
    );
}

#[test]
fn prost_bytes_decode_with_plain_decode() {
    use prost::Message as _;
    use zap_benches::codecs::Prost;
    let wire = encode_request::<Prost>(&request());
    let req = generated::pb::BalanceRequest::decode(&wire[..]).unwrap();
    assert_eq!(req.account, request().account);
    let wire = encode_response::<Prost>(&response());
    let resp = generated::pb::BalanceResponse::decode(&wire[..]).unwrap();
    assert_eq!(resp.block_hash, response().block_hash);
}

/// The logs record: what each codec encodes, it decodes back to the same logs; reading
/// it fully folds exactly what folding the values folds (so every codec, JSON included,
/// delivers the same numbers and bytes); the single-field read folds the 50th log's
/// transaction hash; garbage is an error.
fn logs_agree<C: LogsCodec>() {
    let values = logs();
    let mut codec = C::default();
    let wire = codec.encode_logs(&C::prepare_logs(&values)).to_vec();
    assert_eq!(
        codec.logs_values(&wire).as_ref(),
        Ok(&values),
        "{}",
        C::NAME
    );

    let mut want = Sink::default();
    for l in &values {
        want.log(l);
    }
    let mut got = Sink::default();
    codec.decode_logs(&wire, &mut got).unwrap();
    assert_eq!(got, want, "{}: full read", C::NAME);

    let mut want = Sink::default();
    want.bytes(&values[PICK].transaction_hash);
    let mut got = Sink::default();
    codec.read_log_hash(&wire, PICK, &mut got).unwrap();
    assert_eq!(got, want, "{}: one field", C::NAME);
    assert!(
        codec.read_log_hash(&wire, LOGS, &mut got).is_err(),
        "{}",
        C::NAME
    );

    assert!(codec.logs_values(b"{garbage").is_err(), "{}", C::NAME);
    // Encoding twice with the reused buffers gives the same bytes.
    assert_eq!(codec.encode_logs(&C::prepare_logs(&values)), &wire[..]);
}

#[test]
fn every_logs_codec_reads_the_same_logs() {
    for_each_logs_codec!(logs_agree());
}

#[test]
fn the_logs_record_has_every_shape() {
    let all = logs();
    assert_eq!(all.len(), LOGS);
    for n in 1..=4 {
        assert!(all.iter().any(|l| l.topics.len() == n), "{n} topics");
    }
    assert!(all.iter().any(|l| l.data.is_empty()));
    assert!(all.iter().any(|l| l.data.len() == 256));
    // The picked log is unlike its neighbours, so reading the wrong one fails the test.
    assert_ne!(all[PICK].transaction_hash, all[PICK - 1].transaction_hash);
    assert_ne!(all[PICK].transaction_hash, all[PICK + 1].transaction_hash);
}

#[test]
fn json_logs_are_in_the_ethereum_form() {
    use zap_benches::codecs::{JsonLogs, SerdeJson, SonicRs};
    let values = logs();
    let json = JsonLogs::<SerdeJson>::default()
        .encode_logs(&JsonLogs::<SerdeJson>::prepare_logs(&values))
        .to_vec();
    let sonic = JsonLogs::<SonicRs>::default()
        .encode_logs(&JsonLogs::<SonicRs>::prepare_logs(&values))
        .to_vec();
    assert_eq!(json, sonic);
    let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let log = &doc[PICK];
    assert_eq!(
        log["blockNumber"],
        format!("{:#x}", values[PICK].block_number)
    );
    assert_eq!(
        log["transactionHash"],
        format!("0x{}", hex::encode(values[PICK].transaction_hash))
    );
    assert_eq!(
        log["topics"].as_array().unwrap().len(),
        values[PICK].topics.len()
    );
    assert_eq!(
        log["data"],
        format!("0x{}", hex::encode(&values[PICK].data))
    );
}
