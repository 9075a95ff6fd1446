//! The generated service and client, through the in-process transport (`Local`): the
//! same `Service::call` the TCP server and the JSON-RPC fallback drive.

use futures_executor::block_on;
use zap_runtime::rpc::Status;
use zap_runtime::{Builder, CallError, ClientError, Local, Reply, Service};
use zapc_generated_tests::{eth, service};

struct Ledger;

impl eth::Eth for Ledger {
    async fn get_balance(
        &self,
        req: eth::BalanceRequestReader<'_>,
    ) -> Result<eth::BalanceResponse, CallError> {
        if req.account() == &[0xff; 20] {
            return Err(CallError::internal("ledger unavailable"));
        }
        Ok(eth::BalanceResponse {
            id: req.id(),
            balance: (u64::from(req.account()[0]) * 1000).wrapping_add(req.block()),
            nonce: 7,
            block_hash: [req.block() as u8; 32],
        })
    }

    async fn chain_id(&self) -> Result<eth::ChainIdResponse, CallError> {
        Ok(eth::ChainIdResponse { chain_id: 1337 })
    }

    async fn block_number(&self) -> Result<eth::BlockNumberResponse, CallError> {
        Ok(eth::BlockNumberResponse { number: 0 })
    }

    async fn net_version(&self) -> Result<eth::VersionResponse, CallError> {
        Ok(eth::VersionResponse {
            version: "1337".into(),
        })
    }

    async fn client_version(&self) -> Result<eth::VersionResponse, CallError> {
        Ok(eth::VersionResponse {
            version: "test".into(),
        })
    }

    async fn new_heads(
        &self,
        _req: zap_runtime::Owned<eth::HeadsRequest>,
        _heads: zap_runtime::stream::Sender<eth::BlockHeader>,
    ) -> Result<(), CallError> {
        Ok(())
    }
}

/// Run JSON-RPC `params` (JSON text) through `method`'s table entry and the service;
/// the JSON result as text.
fn json_call(
    svc: &eth::EthService<Ledger>,
    method: &zap_runtime::MethodInfo,
    params: Option<&str>,
) -> Result<String, zap_runtime::json::ParamsError> {
    let raw: Option<Box<serde_json::value::RawValue>> =
        params.map(|p| serde_json::from_str(p).expect("params are JSON"));
    let mut req = Builder::new();
    (method.params_to_wire)(raw.as_deref(), method.positional, &mut req)?;
    let mut out = Builder::new();
    let payload: &[u8] = if method.request.is_some() {
        req.as_bytes()
    } else {
        &[]
    };
    assert_eq!(
        block_on(svc.call(method.ordinal, payload, &mut out)).unwrap(),
        Reply::Message
    );
    let mut json = Vec::new();
    (method.result_to_json)(out.as_bytes(), method.result_field, &mut json).unwrap();
    Ok(String::from_utf8(json).unwrap())
}

#[test]
fn typed_client_calls_the_handler() {
    let client = eth::EthClient::new(Local(eth::EthService::new(Ledger)));
    let mut account = [0u8; 20];
    account[0] = 3;
    let resp = block_on(client.get_balance(&eth::BalanceRequest {
        id: 9,
        block: 5,
        account,
    }))
    .unwrap();
    assert_eq!(
        resp,
        eth::BalanceResponse {
            id: 9,
            balance: 3005,
            nonce: 7,
            block_hash: [5; 32]
        }
    );

    let err = block_on(client.get_balance(&eth::BalanceRequest {
        id: 1,
        block: 1,
        account: [0xff; 20],
    }))
    .unwrap_err();
    match err {
        ClientError::Status { status, message } => assert_eq!(
            (status, message.as_str()),
            (Status::INTERNAL, "ledger unavailable")
        ),
        other => panic!("expected a 500, got {other:?}"),
    }
}

#[test]
fn dispatch_answers_404_and_400() {
    let svc = eth::EthService::new(Ledger);
    let mut out = Builder::new();
    let err = block_on(svc.call(7, b"", &mut out)).unwrap_err();
    assert_eq!(err.status, Status::NOT_FOUND);
    assert_eq!(err.message, "Eth has no method with ordinal 7");
    // Ordinal 6 is the stream `newHeads`, which a call cannot reach.
    let err = block_on(svc.call(6, b"", &mut out)).unwrap_err();
    assert_eq!(err.status, Status::BAD_REQUEST);
    assert!(
        err.message.contains("`newHeads` is a stream method"),
        "{}",
        err.message
    );
    let err = block_on(svc.call(eth::EthService::<Ledger>::GET_BALANCE, b"garbage", &mut out))
        .unwrap_err();
    assert_eq!(err.status, Status::BAD_REQUEST);
    assert!(
        err.message
            .starts_with("payload is not a valid BalanceRequest message"),
        "{}",
        err.message
    );
}

#[test]
fn json_rpc_method_table_converts_params_and_results() {
    type Svc = eth::EthService<Ledger>;
    let svc = Svc::new(Ledger);
    let method =
        Svc::method_by_json_name("eth_getBalance").expect("eth_getBalance is in the table");
    assert_eq!((method.ordinal, method.name), (1, "getBalance"));
    assert_eq!(method.positional, ["account", "block"]);
    assert_eq!(method.result_field, Some("balance"));
    let account = format!("\"0x02{}\"", "00".repeat(19));
    // 2 * 1000 + 68943 = 70943 = 0x1151f
    for params in [
        format!(r#"{{"id": 4, "block": "0x10d4f", "account": {account}}}"#),
        format!(r#"[{account}, "0x10d4f"]"#),
        format!(r#"{{"block": "0x10d4f", "account": {account}}}"#),
    ] {
        assert_eq!(
            json_call(&svc, method, Some(&params)).unwrap(),
            r#""0x1151f""#
        );
    }
    // Block tags travel as reserved values: `latest` is u64::MAX here.
    let latest = json_call(&svc, method, Some(&format!(r#"[{account}, "latest"]"#))).unwrap();
    assert_eq!(latest, format!("\"{:#x}\"", 2000u64.wrapping_add(u64::MAX)));
    let e = json_call(&svc, method, None).unwrap_err();
    assert!(e.to_string().starts_with("params are required"), "{e}");
    let e = json_call(&svc, method, Some(&format!(r#"[{account}, "0x1", 4]"#))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "BalanceRequest has 2 fields, but 3 positional params were given"
    );
    let e = json_call(&svc, method, Some(r#"{"account": "0x00"}"#)).unwrap_err();
    assert!(
        e.to_string().contains("account: expected 20 bytes of hex"),
        "{e}"
    );
    for (bad, why) in [
        ("\"0x01\"", "leading zero"),
        ("\"0x\"", "at least one digit"),
        ("\"0x10000000000000000\"", "does not fit 64 bits"),
        ("\"-0x1\"", "must start with 0x"),
        ("\"0xzz\"", "only hex digits"),
        ("5", "expected a quantity"),
        ("\"newest\"", "must start with 0x"),
    ] {
        let e = json_call(&svc, method, Some(&format!("[{account}, {bad}]"))).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("params[1] (block)"), "{bad}: {text}");
        assert!(text.contains(why), "{bad}: {text}");
    }
    assert!(Svc::method_by_json_name("eth_nope").is_none());

    let chain = Svc::method_by_json_name("eth_chainId").unwrap();
    assert_eq!(json_call(&svc, chain, Some("[]")).unwrap(), r#""0x539""#);
    let version = Svc::method_by_json_name("net_version").unwrap();
    assert_eq!(json_call(&svc, version, None).unwrap(), r#""1337""#);
}

/// Methods with and without parameters and results (schemas/service.zap).
struct Store;

impl service::Store for Store {
    async fn get(&self, q: service::QueryReader<'_>) -> Result<service::Answer, CallError> {
        Ok(service::Answer {
            id: q.id(),
            body: format!("got {}", q.id()),
        })
    }
    async fn put(&self, req: service::QueryReader<'_>) -> Result<service::Answer, CallError> {
        Ok(service::Answer {
            id: req.id(),
            body: "put".into(),
        })
    }
    async fn latest(&self) -> Result<service::Answer, CallError> {
        Ok(service::Answer {
            id: 99,
            body: "latest".into(),
        })
    }
    async fn forget(&self, q: service::QueryReader<'_>) -> Result<(), CallError> {
        if q.id() == 0 {
            return Err(CallError::bad_request("cannot forget 0"));
        }
        Ok(())
    }
    async fn ping(&self) -> Result<(), CallError> {
        Ok(())
    }
}

#[test]
fn every_method_shape_works() {
    let client = service::StoreClient::new(Local(service::StoreService::new(Store)));
    let q = service::Query { id: 5 };
    assert_eq!(block_on(client.get(&q)).unwrap().body, "got 5");
    assert_eq!(block_on(client.put(&q)).unwrap().body, "put");
    assert_eq!(block_on(client.latest()).unwrap().id, 99);
    block_on(client.forget(&q)).unwrap();
    block_on(client.ping()).unwrap();
    let err = block_on(client.forget(&service::Query { id: 0 })).unwrap_err();
    assert!(
        matches!(
            err,
            ClientError::Status {
                status: Status::BAD_REQUEST,
                ..
            }
        ),
        "{err:?}"
    );
    type Svc = service::StoreService<Store>;
    let names: Vec<(u32, &str)> = Svc::METHODS
        .iter()
        .map(|m| (m.ordinal, m.json_name))
        .collect();
    assert_eq!(
        names,
        [
            (1, "store_get"),
            (2, "store_put"),
            (3, "store_latest"),
            (4, "store_forget"),
            (5, "store_ping")
        ]
    );
    let ping = Svc::method_by_json_name("store_ping").unwrap();
    let raw =
        |text: &str| -> Box<serde_json::value::RawValue> { serde_json::from_str(text).unwrap() };
    for empty in ["[]", "{}", "null", "[ ]"] {
        (ping.params_to_wire)(Some(&raw(empty)), ping.positional, &mut Builder::new()).unwrap();
    }
    for given in ["[1]", "{\"a\":1}", "5"] {
        assert!(
            (ping.params_to_wire)(Some(&raw(given)), ping.positional, &mut Builder::new()).is_err()
        );
    }
    let mut out = Vec::new();
    (ping.result_to_json)(b"", ping.result_field, &mut out).unwrap();
    assert_eq!(out, b"null");
}

/// A handler that keeps every request it is handed owned (`put_owned`), and answers
/// `get` from them later: the kept messages outlive their calls.
#[derive(Default)]
struct Keeper {
    kept: std::sync::Mutex<Vec<zap_runtime::Owned<service::Query>>>,
}

impl service::Store for Keeper {
    async fn get(&self, q: service::QueryReader<'_>) -> Result<service::Answer, CallError> {
        let kept = self.kept.lock().unwrap();
        let found = kept.iter().find(|k| k.get().id() == q.id());
        Ok(service::Answer {
            id: q.id(),
            body: if found.is_some() { "kept" } else { "unknown" }.into(),
        })
    }
    async fn put(&self, req: service::QueryReader<'_>) -> Result<service::Answer, CallError> {
        // JSON-RPC and pipelined calls borrow: keep a copy.
        let owned = zap_runtime::Owned::copy_from_slice(req.as_object().message_bytes())
            .map_err(|e| CallError::bad_request(e.to_string()))?;
        self.put_owned(owned).await
    }
    async fn put_owned(
        &self,
        req: zap_runtime::Owned<service::Query>,
    ) -> Result<service::Answer, CallError> {
        let id = req.get().id();
        self.kept.lock().unwrap().push(req);
        Ok(service::Answer {
            id,
            body: "put".into(),
        })
    }
    async fn latest(&self) -> Result<service::Answer, CallError> {
        Err(CallError::internal("not kept"))
    }
    async fn forget(&self, _: service::QueryReader<'_>) -> Result<(), CallError> {
        Ok(())
    }
    async fn ping(&self) -> Result<(), CallError> {
        Ok(())
    }
}

#[test]
fn owned_handlers_keep_requests_and_owned_stubs_read_in_place() {
    let client = service::StoreClient::new(Local(service::StoreService::new(Keeper::default())));
    for id in 1..=3 {
        // `put_owned` on the client: the answer read in place; on the server: the
        // request handed to `put_owned` owned (Local's `call_bytes` drives `call_owned`).
        let answer = block_on(client.put_owned(&service::Query { id })).unwrap();
        assert_eq!((answer.get().id(), answer.get().body()), (id, "put"));
        assert_eq!(answer.to_value().body, "put");
    }
    // The plain stub goes through `Service::call`: the borrowed handler, which copies.
    block_on(client.put(&service::Query { id: 4 })).unwrap();
    let kept = &client.transport().0 .0.kept;
    let ids: Vec<u64> = kept.lock().unwrap().iter().map(|k| k.get().id()).collect();
    assert_eq!(ids, [1, 2, 3, 4]);
    assert_eq!(
        block_on(client.get(&service::Query { id: 2 }))
            .unwrap()
            .body,
        "kept"
    );
    let owned = block_on(client.get_owned(&service::Query { id: 9 })).unwrap();
    assert_eq!(owned.get().body(), "unknown");
    // A bad payload is refused before the owned handler runs, as for the borrowed one.
    let mut out = Builder::new();
    let err = block_on(client.transport().0.call_owned(
        service::StoreService::<Keeper>::PUT,
        zap_runtime::Bytes::from_static(b"nope"),
        &mut out,
    ))
    .unwrap_err();
    assert_eq!(err.status, Status::BAD_REQUEST);
    // An error answer is an error for the owned stub too.
    let err = block_on(client.latest_owned()).unwrap_err();
    assert!(matches!(err, ClientError::Status { .. }), "{err}");
}
