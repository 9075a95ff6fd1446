//! Forged capability chains against the real binary: what they cost the server, counted
//! by its `zap_cap_signature_checks_total` (its CPU time, from `/proc/PID/stat`, is
//! printed beside the counts).
//!
//! The attacker knows a trusted issuer's id (any capability names it) and builds the
//! longest chain allowed, eight ML-DSA-65 links: seven validly signed with keys of its
//! own, hung from a root that claims the trusted issuer but is signed with another key.
//! Each request is a batch of 1,000 notifications under that chain in the
//! `Authorization` header: all refused (401), nothing to read. Checked leaf first and
//! per member, that is thousands of signature checks per request; the bound here is
//! one: the root is checked first, and a batch's header is checked once.

use crate::process;

use std::time::{Duration, Instant};

use base64::Engine as _;
use process::{now, EthRpc};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zap_runtime::cap::*;

const TARGET: [u8; 32] = [0x42; 32];
const NOW_SLACK: u64 = 3600;
/// Requests per round.
const REQUESTS: u64 = 20;
/// Members of each batch.
const BATCH: usize = 1000;

fn mldsa(n: u8) -> SigningKey {
    SigningKey::from_secret(Scheme::MlDsa65, &[n; 32]).unwrap()
}

/// The trusted issuer (its key in the server's trust file).
fn trusted() -> SigningKey {
    mldsa(1)
}

/// The attacker's seven links over a forged root. `salt` changes the leaf, so each
/// chain is new to the server.
struct Forger {
    /// Links from the root's child down to the leaf's parent, each with its signer's
    /// public key; the leaf is made per chain.
    links: Vec<(Vec<u8>, PublicKey)>,
    root: Vec<u8>,
    leaf_signer: SigningKey,
}

impl Forger {
    fn new() -> Forger {
        let mut attacker: Vec<SigningKey> = (10..18).map(mldsa).collect();
        let t = now();
        // A root "issued" by the trusted key: made with the attacker's first key, then
        // its Issuer rewritten to the trusted id (so its signature cannot verify).
        let mut root = issue(
            &Issuance {
                kind: 1,
                target: TARGET,
                holder: *attacker[1].id(),
                permissions: PERM_ATTENUATE | 0xff,
                issued_at: t - 10,
                expires_at: t + NOW_SLACK,
                ..Default::default()
            },
            &attacker[0],
        )
        .unwrap();
        let at = u32::from_le_bytes(root[8..12].try_into().unwrap()) as usize + offset::ISSUER;
        root[at..at + 32].copy_from_slice(trusted().id());
        // Six delegates below it, each signed by the holder of its parent.
        let mut links = Vec::new();
        let mut parent = root.clone();
        for i in 1..7 {
            let child = attenuate(
                &Capability::decode(&parent).unwrap(),
                &Attenuation {
                    holder: *attacker[i + 1].id(),
                    permissions: PERM_ATTENUATE | 0xff,
                    issued_at: t - 5,
                    expires_at: t + NOW_SLACK,
                    caveats: &[],
                },
                &attacker[i],
            )
            .unwrap();
            links.push((child.clone(), attacker[i].public_key().clone()));
            parent = child;
        }
        Forger {
            links,
            root,
            leaf_signer: attacker.remove(7),
        }
    }

    /// An eight-link chain, leaf first, its leaf made with `salt`.
    fn chain(&self, salt: u64) -> Vec<u8> {
        let parent = &self.links.last().unwrap().0;
        let leaf = attenuate(
            &Capability::decode(parent).unwrap(),
            &Attenuation {
                holder: [0xee; 32],
                permissions: 0x01,
                issued_at: now() - 100 - salt,
                expires_at: now() + 60,
                caveats: &[],
            },
            &self.leaf_signer,
        )
        .unwrap();
        let mut chain = vec![ChainLink {
            cap: &leaf,
            issuer_key: self.leaf_signer.public_key().as_bytes(),
        }];
        for (cap, key) in self.links.iter().rev() {
            chain.push(ChainLink {
                cap,
                issuer_key: key.as_bytes(),
            });
        }
        chain.push(ChainLink {
            cap: &self.root,
            issuer_key: &[],
        });
        assert_eq!(chain.len(), MAX_CHAIN_LINKS);
        encode_chain(&chain).unwrap()
    }
}

/// The server's user + system CPU time so far.
fn cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name (which is in parentheses): utime is the 14th field
    // of the line, stime the 15th.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    let hz = 100; // USER_HZ on Linux
    Duration::from_millis(ticks * 1000 / hz)
}

/// POST `body` with `authorization` (if any); the status of the answer.
async fn post(server: &EthRpc, body: &str, authorization: Option<&str>) -> u16 {
    let mut stream = TcpStream::connect(server.http).await.unwrap();
    let auth = authorization
        .map(|a| format!("Authorization: {a}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    String::from_utf8_lossy(&answer[9..12]).parse().unwrap()
}

/// One ML-DSA-65 signature check's time, in this build: the median of a few of a
/// capability verified in full (no cache), each a single root.
fn one_verification() -> Duration {
    let root = issue(
        &Issuance {
            kind: 1,
            target: TARGET,
            permissions: 1,
            issued_at: now() - 10,
            ..Default::default()
        },
        &trusted(),
    )
    .unwrap();
    let policy = Policy::builder(TARGET)
        .trust(trusted().public_key().clone())
        .cache_capacity(0)
        .refusal_memory(0)
        .build();
    let mut times: Vec<Duration> = (0..7)
        .map(|_| {
            let t = Instant::now();
            policy.check(&root, 0, now()).unwrap();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// `zap_cap_signature_checks_total` from the server's admin listener.
async fn signature_checks(server: &EthRpc) -> u64 {
    let text = process::get_body(server.metrics.unwrap(), "/metrics")
        .await
        .expect("the admin listener answers /metrics");
    text.lines()
        .find_map(|l| l.strip_prefix("zap_cap_signature_checks_total "))
        .expect("the server reports zap_cap_signature_checks_total")
        .parse()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_chain_costs_one_signature_check_per_request() {
    let dir = tempfile::tempdir().unwrap();
    let trust = dir.path().join("issuers.txt");
    std::fs::write(&trust, trust_file_line(trusted().public_key()) + "\n").unwrap();
    let server = EthRpc::start(&[
        "--cap-trust",
        trust.to_str().unwrap(),
        "--cap-target",
        &hex::encode(TARGET),
        "--metrics-addr",
        "127.0.0.1:0",
    ])
    .await;
    let forger = Forger::new();
    let batch = format!(
        "[{}]",
        vec![r#"{"jsonrpc":"2.0","method":"eth_chainId"}"#; BATCH].join(",")
    );
    let header = |chain: &[u8]| {
        format!(
            "ZAP-Cap {}",
            base64::engine::general_purpose::STANDARD.encode(chain)
        )
    };
    // Every chain fresh (a new leaf each), so no memory of an earlier refusal helps.
    let fresh: Vec<String> = (0..REQUESTS).map(|i| header(&forger.chain(i))).collect();
    let repeated = header(&forger.chain(REQUESTS));
    let verify = one_verification();

    // Each round: the signatures the server checked and its CPU time, per request.
    let round = |auth: Vec<Option<String>>| {
        let server = &server;
        let batch = &batch;
        async move {
            let (checks, cpu_before) = (signature_checks(server).await, cpu(server.pid));
            for a in &auth {
                // All notifications, all refused: 204, nothing to read.
                assert_eq!(post(server, batch, a.as_deref()).await, 204);
            }
            let n = auth.len() as u32;
            let cpu = (cpu(server.pid) - cpu_before) / n;
            (signature_checks(server).await - checks, cpu)
        }
    };
    let (bare_checks, bare) = round(vec![None; REQUESTS as usize]).await;
    let (forged_checks, forged) = round(fresh.into_iter().map(Some).collect()).await;
    let (again_checks, again) = round(vec![Some(repeated); REQUESTS as usize]).await;
    // For the record (CPU time is noisy on a shared machine; the counts are exact).
    let in_checks = |more: Duration, than: Duration| {
        more.saturating_sub(than).as_secs_f64() / verify.as_secs_f64()
    };
    eprintln!(
        "per request of {BATCH} notifications: no capability {bare:?}, a fresh forged \
         chain {forged:?}, the same forged chain again {again:?}; one ML-DSA-65 check \
         {verify:?}, so a fresh chain's capability work is {:.2} checks' worth",
        in_checks(forged, bare)
    );
    assert_eq!(bare_checks, 0, "no capability, no signature to check");
    // The root first, refused at once: one check per request, not eight links' worth
    // and not one per batch member.
    assert_eq!(
        forged_checks, REQUESTS,
        "{REQUESTS} fresh forged chains cost {forged_checks} signature checks"
    );
    // The same chain again is remembered as refused: checked once, the first time.
    assert!(
        again_checks <= 1,
        "one forged chain sent {REQUESTS} times cost {again_checks} signature checks"
    );
}
