//! The generated service and client, through the in-process transport (`Local`): the
//! same `Service::call` the TCP server and the JSON-RPC fallback drive.

use futures_executor::block_on;
use serde_json::json;
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
            balance: u64::from(req.account()[0]) * 1000 + req.block(),
            nonce: 7,
            block_hash: [req.block() as u8; 32],
        })
    }
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
    let err = block_on(svc.call(2, b"", &mut out)).unwrap_err();
    assert_eq!(err.status, Status::NOT_FOUND);
    assert_eq!(err.message, "Eth has no method with ordinal 2");
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
    let account = format!("0x02{}", "00".repeat(19));
    for params in [
        json!({"id": 4, "block": 68943, "account": account}),
        json!([4, 68943, account]),
        json!({"id": "4", "block": "0x10d4f", "account": account}),
    ] {
        let mut req = Builder::new();
        (method.params_to_wire)(Some(&params), &mut req).unwrap();
        let mut out = Builder::new();
        assert_eq!(
            block_on(svc.call(method.ordinal, req.as_bytes(), &mut out)).unwrap(),
            Reply::Message
        );
        let result = (method.result_to_json)(out.as_bytes()).unwrap();
        assert_eq!(result["id"], 4);
        assert_eq!(result["balance"], 2000 + 68943);
        assert_eq!(result["blockHash"], format!("0x{}", "4f".repeat(32)));
    }
    let mut b = Builder::new();
    let e = (method.params_to_wire)(None, &mut b).unwrap_err();
    assert!(e.to_string().starts_with("params are required"), "{e}");
    let e = (method.params_to_wire)(Some(&json!([1, 2, account, 4])), &mut b).unwrap_err();
    assert_eq!(
        e.to_string(),
        "BalanceRequest has 3 fields, but 4 positional params were given"
    );
    let e = (method.params_to_wire)(Some(&json!({"account": "0x00"})), &mut b).unwrap_err();
    assert!(e.to_string().contains("expected 20 bytes of hex"), "{e}");
    assert!(Svc::method_by_json_name("eth_nope").is_none());
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
    (ping.params_to_wire)(Some(&json!([])), &mut Builder::new()).unwrap();
    assert!((ping.params_to_wire)(Some(&json!([1])), &mut Builder::new()).is_err());
    assert_eq!((ping.result_to_json)(b"").unwrap(), serde_json::Value::Null);
}
