//! Every fuzz target's body, run as an ordinary test on stable: over its seed corpus
//! (generated from the shared vectors by `zap_fuzz::seeds`, as `./seed.sh` writes it for
//! libFuzzer) and over deterministic mutations of it (`zap_fuzz::mutate`, fixed seed per
//! target). No coverage feedback, so this is a smoke test of the harness and a regression
//! net, not a substitute for `cargo +nightly fuzz run`; CI runs it everywhere and the real
//! fuzzer only where a nightly toolchain exists.
//!
//! `FUZZ_MUTATIONS=<n>` runs `n` mutations per target instead of the default (e.g. with
//! `--release` for a longer local run). A failing input is printed as hex with the
//! target's name; `cargo +nightly fuzz run <target> <file>` replays it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use zap_fuzz::mutate::{mutate, parse_dict, Rng};
use zap_fuzz::targets::ALL;

/// Mutations per target, unless `FUZZ_MUTATIONS` says otherwise.
const MUTATIONS: usize = 5000;

fn mutations() -> usize {
    match std::env::var("FUZZ_MUTATIONS") {
        Ok(n) => n.parse().expect("FUZZ_MUTATIONS is a number"),
        Err(_) => MUTATIONS,
    }
}

/// The words the fuzzer is given for `target` (`-dict=`), if any.
fn dictionary(target: &str) -> Vec<Vec<u8>> {
    match target {
        "jsonrpc" => {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("jsonrpc.dict");
            parse_dict(&std::fs::read_to_string(&path).expect("jsonrpc.dict"))
        }
        _ => Vec::new(),
    }
}

/// Run `input` through `target`'s body; on a failure, panic with what reproduces it.
fn run_one(target: &str, body: fn(&[u8]), what: &str, input: &[u8]) {
    if catch_unwind(AssertUnwindSafe(|| body(input))).is_err() {
        let hex: String = input.iter().map(|b| format!("{b:02x}")).collect();
        panic!("`{target}` failed on {what} ({} bytes): {hex}", input.len());
    }
}

/// The seeds of `target`, then `mutations()` mutants of them.
fn run_target(target: &str) {
    let (_, body) = ALL
        .iter()
        .find(|(name, _)| *name == target)
        .unwrap_or_else(|| panic!("no body for `{target}`"));
    let seeds = zap_fuzz::seeds::all()
        .remove(target)
        .unwrap_or_else(|| panic!("no seeds for `{target}`"));
    assert!(seeds.len() >= 5, "`{target}`: only {} seeds", seeds.len());
    for (i, seed) in seeds.iter().enumerate() {
        run_one(target, *body, &format!("seed {i}"), seed);
    }

    let dict = dictionary(target);
    let words: Vec<&[u8]> = dict.iter().map(Vec::as_slice).collect();
    let mut rng = Rng::new(zap_fuzz::seed_of(target.as_bytes()));
    let mut pool = seeds.clone();
    for i in 0..mutations() {
        let parent = pool[rng.below(pool.len())].clone();
        let child = mutate(&mut rng, &parent, &seeds, &words);
        run_one(target, *body, &format!("mutation {i}"), &child);
        // Keep some mutants as parents, so edits stack up over the run.
        if i % 8 == 0 {
            pool.push(child);
        }
    }
}

#[test]
fn reader() {
    run_target("reader");
}

#[test]
fn frame_decoder() {
    run_target("frame_decoder");
}

#[test]
fn envelope() {
    run_target("envelope");
}

#[test]
fn kitchen_reader() {
    run_target("kitchen_reader");
}

#[test]
fn stream_dispatch() {
    run_target("stream_dispatch");
}

#[test]
fn jsonrpc() {
    run_target("jsonrpc");
}

#[test]
fn node_framing() {
    run_target("node_framing");
}

#[test]
fn cap_verify() {
    run_target("cap_verify");
}

#[test]
fn roundtrip() {
    run_target("roundtrip");
}

#[test]
fn http_request() {
    run_target("http_request");
}

#[test]
fn zap_conn() {
    run_target("zap_conn");
}

#[test]
fn ws_session() {
    run_target("ws_session");
}

#[test]
fn quic_stream() {
    run_target("quic_stream");
}

#[test]
fn zaphttp_conn() {
    run_target("zaphttp_conn");
}

/// The `zaphttp_conn` harness is not vacuous: a request is answered with its echo, a
/// streamed one with a head, data and an end, and a lie with a 400.
#[test]
fn zaphttp_conn_reaches_the_service() {
    use zap_fuzz::seeds::zaphttp_request;
    let sent = [
        zaphttp_request(b"POST", b"/echo", b"hi"),
        zaphttp_request(b"GET", b"/stream", b"abcd"),
    ]
    .concat();
    let answer = zap_fuzz::support::over_duplex(
        move |io| async move {
            let service =
                tower::service_fn(|r: http::Request<zap_runtime::zaphttp::Body>| async move {
                    Ok::<_, std::convert::Infallible>(http::Response::new(r.into_body()))
                });
            zap_runtime::zaphttp::serve_stream(service, Default::default(), io).await
        },
        &[&sent],
    );
    let frames = zap_fuzz::targets::zaphttp_conn::frames(&answer);
    assert_eq!(frames.len(), 2, "two whole answers");
    zap_fuzz::targets::zaphttp_conn::run(&[&[0u8][..], &sent].concat());
}

/// The `quic_stream` harness is not vacuous: a call is answered with its PromiseID, a
/// server stream sends its messages.
#[test]
fn quic_stream_reaches_the_service() {
    use zap_fuzz::seeds::{frame, request};
    use zap_fuzz::targets::quic_stream::exchange;
    let answer = exchange(&frame(1, &request(1, 42, b"hi", 0))).expect("an answer");
    let response = zap_runtime::rpc::Response::parse(&answer[4..]).expect("a response");
    assert_eq!((response.status.0, response.promise_id), (200, 42));
    let streamed = exchange(&frame(2, &request(3, 43, &[2], 0))).expect("messages");
    // Two messages: [len][message] each.
    let first = u32::from_le_bytes(streamed[..4].try_into().unwrap()) as usize;
    assert_eq!(streamed.len(), 2 * (4 + first), "{streamed:?}");
}

/// The `ws_session` harness is not vacuous: a call is answered and a subscription
/// delivers its notifications.
#[test]
fn ws_session_reaches_the_service() {
    use zap_fuzz::targets::ws_session::{client_frames, config, exchange, frame, server_frames};
    let sent = [
        frame(0x81, br#"{"jsonrpc":"2.0","id":1,"method":"ticker_ping"}"#),
        frame(
            0x81,
            br#"{"jsonrpc":"2.0","id":2,"method":"ticker_subscribe","params":["ticks"]}"#,
        ),
    ]
    .concat();
    let answer = exchange(config(0), &client_frames(&sent));
    let end = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("the 101")
        + 4;
    let texts: Vec<String> = server_frames(&answer[end..])
        .into_iter()
        .filter(|(opcode, _)| *opcode == 1)
        .map(|(_, payload)| String::from_utf8(payload).unwrap())
        .collect();
    assert!(
        texts[0].contains(r#""id":1"#) && texts[0].contains(r#""result":null"#),
        "{texts:?}"
    );
    assert!(texts[1].contains(r#""id":2"#), "{texts:?}");
    let notifications = texts
        .iter()
        .filter(|t| t.contains("ticker_subscription"))
        .count();
    assert_eq!(notifications, 3, "{texts:?}");
}

/// The `zap_conn` harness is not vacuous: a call, a server stream and the health check
/// through it are answered.
#[test]
fn zap_conn_reaches_the_service() {
    use zap_fuzz::seeds::{frame, request};
    use zap_fuzz::targets::zap_conn::{config, exchange};
    let sent = [
        frame(1, &request(1, 7, &[], 0)),
        frame(3, &request(3, 9, &[2], 0)),
        frame(1, &request(0xFFFF_FF02, 11, &[], 0)),
    ]
    .concat();
    let answer = exchange(config(0), &sent);
    let mut decoder = zap_runtime::frame::FrameDecoder::new(u32::MAX);
    let (mut at, mut dirs) = (0, Vec::new());
    while let Ok(Some((frame, used))) = decoder.decode(&answer[at..]) {
        dirs.push(frame.dir as u8);
        at += used;
    }
    dirs.sort_unstable();
    // Two responses (the call, the health check), two stream messages and the end.
    assert_eq!(dirs, [2, 2, 4, 4, 5], "{answer:?}");
}

/// The `http_request` harness is not vacuous: a call through it is answered with the
/// handler's result, a forged capability with 401, and a batch over the answer limit
/// with -32005.
#[test]
fn http_request_reaches_the_handler() {
    use zap_fuzz::targets::http_request::{authorization, config, exchange};
    let post = |extra: &str, body: &str| {
        format!(
            "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let call = r#"{"jsonrpc":"2.0","method":"store_get","params":{"id":5},"id":1}"#;
    let text = |control, sent: String| {
        String::from_utf8(exchange(config(control), sent.as_bytes())).unwrap()
    };
    let answer = text(0, post("", call));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(r#""body":"get 5""#), "{answer}");
    let forged = text(1, post(&format!("{}\r\n", authorization(true)), call));
    assert!(forged.contains("-32001"), "{forged}");
    let signed = text(1, post(&format!("{}\r\n", authorization(false)), call));
    assert!(signed.contains(r#""body":"get 5""#), "{signed}");
    let batch = format!("[{}]", vec![call; 40].join(","));
    let limited = text(8, post("", &batch));
    assert!(limited.contains("-32005"), "{limited}");
}

/// Every file in `fuzz_targets/` is a target with a body here and a test above, and
/// calls that body: a new target cannot be left out of CI.
#[test]
fn every_fuzz_target_has_a_body_that_this_file_runs() {
    let this = include_str!("corpus.rs");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz_targets");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("fuzz_targets/")
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    let mut names: Vec<&str> = ALL.iter().map(|(name, _)| *name).collect();
    names.sort();
    let stems: Vec<&str> = files.iter().map(|f| f.trim_end_matches(".rs")).collect();
    assert_eq!(
        stems, names,
        "fuzz_targets/ and zap_fuzz::targets::ALL differ"
    );
    for name in names {
        let file = std::fs::read_to_string(dir.join(format!("{name}.rs"))).unwrap();
        assert!(
            file.contains(&format!("zap_fuzz::targets::{name}::run(data)")),
            "fuzz_targets/{name}.rs does not call its body"
        );
        assert!(
            this.contains(&format!("fn {name}() {{\n    run_target(\"{name}\");")),
            "no test runs `{name}`"
        );
    }
}

/// Mutations are a pure function of the seed: the same run on every machine.
#[test]
fn mutations_are_deterministic() {
    let seeds = zap_fuzz::seeds::all();
    let corpus = &seeds["reader"];
    let run = || {
        let mut rng = Rng::new(7);
        (0..200)
            .map(|i| mutate(&mut rng, &corpus[i % corpus.len()], corpus, &[b"ZAP\0"]))
            .collect::<Vec<_>>()
    };
    let first = run();
    assert_eq!(first, run());
    assert!(
        first.iter().any(|m| !corpus.contains(m)),
        "nothing was mutated"
    );
}

/// The `http_request` findings kept in the corpus (`corpora/http_request/finding-*`),
/// each replayed through the target's body: a 400 for a malformed pipelined request was
/// written inside the body of the large answer before it (hyper's queued write buffers;
/// the server now flattens its answers).
#[test]
fn http_request_findings() {
    let (_, body) = ALL
        .iter()
        .find(|(name, _)| *name == "http_request")
        .expect("the http_request target");
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/http_request");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&folder).expect("the http_request corpus") {
        let path = entry.expect("a corpus entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("finding-") {
            let input = std::fs::read(&path).expect("a finding");
            run_one("http_request", *body, &name, &input);
            replayed += 1;
        }
    }
    assert!(replayed >= 2, "the findings are in {}", folder.display());
}

/// The `ws_session` findings kept in the corpus (`corpora/ws_session/finding-*`), each
/// replayed through the target's body: a subscribe sent as a notification (no `id`)
/// opened a subscription whose notifications then came under an id the client never
/// learned (such a subscribe is now refused, silently as any failed notification).
#[test]
fn ws_session_findings() {
    let (_, body) = ALL
        .iter()
        .find(|(name, _)| *name == "ws_session")
        .expect("the ws_session target");
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/ws_session");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&folder).expect("the ws_session corpus") {
        let path = entry.expect("a corpus entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("finding-") {
            run_one(
                "ws_session",
                *body,
                &name,
                &std::fs::read(&path).expect("a finding"),
            );
            replayed += 1;
        }
    }
    assert!(replayed > 0, "no finding in {}", folder.display());
}

/// A health watch whose client lets it go (STOP_SENDING) ends on the server at once: a
/// QUIC connection allows 100 streams at a time, so 150 watches dropped one after the
/// other, then a call, are all served only if each was ended. (Found by `quic_stream`:
/// the watch learnt of its client's leaving only when it next wrote, after a change
/// that may never come.)
#[test]
fn quic_watches_let_go_free_their_streams() {
    use zap_fuzz::seeds::{frame, request};
    use zap_fuzz::targets::quic_stream::exchange;
    let watch = frame(2, &request(0xFFFF_FF03, 1, b"", 0));
    for n in 0..150 {
        assert!(exchange(&watch).is_some(), "watch {n} got its first status");
    }
    let answer = exchange(&frame(1, &request(1, 2, b"", 0))).expect("an answer");
    let response = zap_runtime::rpc::Response::parse(&answer[4..]).expect("a response");
    assert_eq!(response.status.0, 200);
}
