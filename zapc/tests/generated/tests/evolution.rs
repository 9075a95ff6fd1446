//! `schemas/evolution.zap` through its generated code: constants, explicit ordinals
//! dispatched over a real socket (reserved and unknown ordinals answered alike, metrics
//! by ordinal), reserved slots kept zero and counted in the layout, and deprecated items
//! still on the wire and in JSON.

use std::sync::Arc;

use zap_runtime::client::Client;
use zap_runtime::metrics::{Metered, Metrics};
use zap_runtime::rpc::Status;
use zap_runtime::server::{serve, CancellationToken, ServerConfig};
use zap_runtime::{CallError, Service, ZapStruct};
use zapc_generated_tests::evolution;

#[test]
fn constants_have_their_types_and_values() {
    let max: u32 = evolution::MAX_ACCOUNTS;
    let name: &'static str = evolution::SERVICE_NAME;
    let strict: bool = evolution::STRICT;
    assert_eq!(max, 1000);
    assert_eq!(name, "ledger v3");
    assert!(strict);
    assert_eq!(evolution::MIN_BALANCE, i64::MIN);
    assert_eq!(evolution::MAX_BALANCE, u64::MAX);
    assert_eq!(evolution::FLAG_FROZEN, 0x80u8);
    // `maxRetries` in the schema: constants are SHOUTY_SNAKE_CASE in Rust.
    assert_eq!(evolution::MAX_RETRIES, 3u16);
    assert_eq!(evolution::OFFSET, -1i8);
}

#[test]
fn explicit_ordinals_number_the_methods() {
    use evolution::LedgerMethod as M;
    let ordinals: Vec<u32> = M::ALL.iter().map(|m| m.ordinal()).collect();
    assert_eq!(
        ordinals,
        [2, 1, 4, 7],
        "declaration order, explicit ordinals"
    );
    for ordinal in 0..10 {
        let method = M::from_ordinal(ordinal);
        assert_eq!(
            method.map(M::ordinal),
            ordinals.contains(&ordinal).then_some(ordinal)
        );
    }
    assert_eq!(M::from_ordinal(3), None, "reserved");
    assert_eq!(M::from_ordinal(5), None, "reserved");
    type Svc = evolution::LedgerService<Ledger>;
    assert_eq!((Svc::GET, Svc::PING, Svc::LOOKUP, Svc::LIST), (2, 1, 4, 7));
    let table: Vec<(u32, &str)> = <Svc as Service>::METHODS
        .iter()
        .map(|m| (m.ordinal, m.json_name))
        .collect();
    assert_eq!(
        table,
        [
            (2, "ledger_get"),
            (1, "ledger_ping"),
            (4, "ledger_lookupLegacy"),
            (7, "ledger_list")
        ]
    );
    type Admin = evolution::AdminService<Archive>;
    assert_eq!((Admin::STATUS, Admin::SHUTDOWN), (2, 3));
}

struct Ledger;

impl evolution::Ledger for Ledger {
    async fn get(&self, q: evolution::QueryReader<'_>) -> Result<evolution::Account, CallError> {
        Ok(account(q.id()))
    }

    async fn ping(&self) -> Result<(), CallError> {
        Ok(())
    }

    #[allow(deprecated)]
    async fn lookup(
        &self,
        q: evolution::LegacyQueryReader<'_>,
    ) -> Result<evolution::Account, CallError> {
        Ok(account(q.id() + 1000))
    }

    async fn list(&self, q: evolution::QueryReader<'_>) -> Result<evolution::Page, CallError> {
        #[allow(deprecated)]
        Ok(evolution::Page {
            accounts: (0..u64::from(q.limit())).map(account).collect(),
            path: vec![
                evolution::Point { x: -1, y: 2 },
                evolution::Point { x: 3, y: -4 },
            ],
            legacy: Some(Box::new(evolution::LegacyQuery { id: q.id() })),
            total: q.limit(),
        })
    }
}

struct Archive;

impl evolution::Admin for Archive {
    #[allow(deprecated)]
    async fn status(&self) -> Result<evolution::Archived, CallError> {
        Ok(evolution::Archived { id: 1, when: 2 })
    }

    async fn shutdown(&self) -> Result<(), CallError> {
        Ok(())
    }
}

#[allow(deprecated)]
fn account(id: u64) -> evolution::Account {
    evolution::Account {
        id,
        name: format!("old-{id}"),
        flags: evolution::FLAG_FROZEN,
        handle: format!("@{id}"),
    }
}

#[tokio::test]
async fn explicit_ordinals_dispatch_over_a_socket_and_reserved_ones_are_unknown() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let metrics = Metrics::new();
    let service = Arc::new(Metered::new(
        Arc::new(evolution::LedgerService::new(Ledger)),
        &metrics,
        "zap",
    ));
    let stop = CancellationToken::new();
    let server = tokio::spawn(serve(
        listener,
        service,
        ServerConfig::default(),
        stop.clone(),
    ));

    let raw = Client::connect(addr).await.unwrap();
    let client = evolution::LedgerClient::new(raw.clone());
    let query = |id, limit| evolution::Query { id, limit };
    assert_eq!(client.get(&query(7, 0)).await.unwrap(), account(7));
    client.ping().await.unwrap();
    #[allow(deprecated)]
    let legacy = client.lookup(&evolution::LegacyQuery { id: 5 }).await;
    assert_eq!(legacy.unwrap(), account(1005));
    let page = client.list(&query(9, 3)).await.unwrap();
    assert_eq!(page.accounts, [account(0), account(1), account(2)]);
    assert_eq!(page.path[1], evolution::Point { x: 3, y: -4 });
    #[allow(deprecated)]
    let (legacy_id, total) = (page.legacy.as_ref().map(|l| l.id), page.total);
    assert_eq!((legacy_id, total), (Some(9), 3));

    // The ordinal on the wire is the explicit one: `get` is 2, `list` is 7.
    let payload = query(11, 0).to_bytes().unwrap();
    let (status, body) = raw.call_raw(2, 0, &payload).await.unwrap();
    assert_eq!(status, Status::OK);
    assert_eq!(evolution::Account::decode(&body).unwrap(), account(11));
    // A reserved ordinal gets the answer of an unknown one.
    let (reserved, reserved_body) = raw.call_raw(3, 0, &payload).await.unwrap();
    let (unknown, unknown_body) = raw.call_raw(6, 0, &payload).await.unwrap();
    assert_eq!((reserved, unknown), (Status::NOT_FOUND, Status::NOT_FOUND));
    assert_eq!(
        String::from_utf8_lossy(&reserved_body),
        "Ledger has no method with ordinal 3"
    );
    assert_eq!(
        String::from_utf8_lossy(&unknown_body),
        "Ledger has no method with ordinal 6"
    );

    // Metrics are kept per method, found by ordinal (not by position).
    let text = metrics.encode();
    for (method, calls) in [
        ("get", 2),
        ("ping", 1),
        ("lookup", 1),
        ("list", 1),
        ("unknown", 2),
    ] {
        let line = format!(
            "zap_calls_total{{service=\"Ledger\",method=\"{method}\",transport=\"zap\"}} {calls}"
        );
        assert!(text.contains(&line), "no `{line}` in\n{text}");
    }

    drop((client, raw));
    stop.cancel();
    server.await.unwrap().unwrap();
}

#[test]
#[allow(deprecated)] // `Archived`
fn reserved_slots_stay_zero_and_keep_the_layout() {
    assert_eq!(
        evolution::Account::SIZE,
        40,
        "the last reserved slot ends at 40"
    );
    assert_eq!(evolution::Account::HANDLE_OFFSET, 24);
    assert_eq!(evolution::Point::SIZE, 12);
    assert_eq!(evolution::Archived::SIZE, 24);
    let inline = [
        <evolution::Point as ZapStruct>::INLINE,
        // A reserved `text` slot keeps the list framed.
        <evolution::Archived as ZapStruct>::INLINE,
    ];
    assert_eq!(inline, [true, false]);

    let bytes = account(u64::MAX).to_bytes().unwrap();
    let fixed = &bytes[zap_runtime::HEADER_SIZE..zap_runtime::HEADER_SIZE + 40];
    assert_eq!(&fixed[16..20], &[0; 4], "reserved Balance32");
    assert_eq!(&fixed[32..40], &[0; 8], "reserved Legacy");
    assert_eq!(
        evolution::Account::decode(&bytes).unwrap(),
        account(u64::MAX)
    );

    let points = evolution::Page {
        path: (0..5).map(|i| evolution::Point { x: i, y: -i }).collect(),
        ..Default::default()
    };
    let bytes = points.to_bytes().unwrap();
    let read = evolution::PageReader::parse(&bytes).unwrap();
    let path: Vec<(i32, i32)> = read.path().map(|p| (p.x(), p.y())).collect();
    assert_eq!(path, [(0, 0), (1, -1), (2, -2), (3, -3), (4, -4)]);
}

#[test]
#[allow(deprecated)]
fn deprecated_fields_are_on_the_wire_and_in_json() {
    let mut b = zap_runtime::Builder::new();
    let mut builder = evolution::AccountBuilder::new(&mut b);
    builder.set_id(1).set_name("old name").set_handle("@new");
    let bytes = builder.finish_message().unwrap().to_vec();
    let read = evolution::AccountReader::parse(&bytes).unwrap();
    assert_eq!((read.name(), read.handle()), ("old name", "@new"));

    let json = serde_json::to_value(read.to_value()).unwrap();
    assert_eq!(json["n"], "old name", "{json}");
    let back: evolution::Account =
        serde_json::from_str(r#"{"id": 2, "n": "from json", "flags": 1}"#).unwrap();
    assert_eq!(back.name, "from json");
    assert!(
        json.get("balance32").is_none() && json.get("legacy").is_none(),
        "{json}"
    );

    let legacy = evolution::LegacyQuery { id: 3 };
    let read = evolution::LegacyQueryReader::parse(&legacy.to_bytes().unwrap())
        .unwrap()
        .to_value();
    assert_eq!(read, legacy);
}

#[test]
fn json_rpc_names_reach_the_explicit_ordinals() {
    use futures_executor::block_on;
    type Svc = evolution::LedgerService<Ledger>;
    let svc = Svc::new(Ledger);
    let list = Svc::method_by_json_name("ledger_list").unwrap();
    assert_eq!((list.ordinal, list.positional), (7, &["limit"][..]));
    let raw: Box<serde_json::value::RawValue> = serde_json::from_str("[2]").unwrap();
    let mut req = zap_runtime::Builder::new();
    (list.params_to_wire)(Some(&raw), list.positional, &mut req).unwrap();
    let mut out = zap_runtime::Builder::new();
    block_on(svc.call(list.ordinal, req.as_bytes(), &mut out)).unwrap();
    let mut json = Vec::new();
    (list.result_to_json)(out.as_bytes(), list.result_field, &mut json).unwrap();
    let page: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(page["accounts"][1]["n"], "old-1", "{page}");
    assert_eq!(page["total"], 2, "deprecated, still in JSON: {page}");

    let legacy = Svc::method_by_json_name("ledger_lookupLegacy").unwrap();
    assert_eq!((legacy.ordinal, legacy.name), (4, "lookup"));
}

/// An all-inline struct is encoded in one copy, and still refused past the builder's
/// limit, as every other struct is at `finish`.
#[test]
fn an_inline_struct_over_the_builders_limit_is_refused() {
    let point = evolution::Point { x: 3, y: -4 };
    const { assert!(<evolution::Point as ZapStruct>::INLINE) };
    let mut b = zap_runtime::Builder::new();
    b.set_max_len(zap_runtime::HEADER_SIZE + evolution::Point::SIZE - 1);
    assert_eq!(
        point.encode(&mut b),
        Err(zap_runtime::BuildError::TooLarge { len: 28, max: 27 })
    );
    b.set_max_len(zap_runtime::HEADER_SIZE + evolution::Point::SIZE);
    let bytes = point.encode(&mut b).unwrap().to_vec();
    assert_eq!(evolution::Point::decode(&bytes).unwrap(), point);
}
