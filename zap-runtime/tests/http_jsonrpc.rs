//! JSON-RPC 2.0 over a real HTTP server: single calls, batches, notifications, params by
//! name and by position, and every error code.

use crate::http_support;

use http_support::{error_code, request, Server};
use serde_json::{json, Value};
use zap_runtime::http::{code, HttpConfig};

async fn server() -> Server {
    Server::start(HttpConfig::default()).await
}

#[tokio::test]
async fn params_by_name() {
    let server = server().await;
    let (status, body) = server
        .rpc(&request(json!(1), "calc_add", json!({"a": 2, "b": 40})))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"value": 42}})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn params_by_position() {
    let server = server().await;
    let (status, body) = server
        .rpc(&request(json!(7), "calc_add", json!([2, "0x28"])))
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["result"], json!({"value": 42}));
    server.shutdown().await;
}

#[tokio::test]
async fn id_is_echoed_exactly() {
    let server = server().await;
    for id in [
        json!("req-1"),
        json!(null),
        json!(18446744073709551615u64),
        json!(-3),
        json!(1.5),
    ] {
        let (status, body) = server
            .rpc(&request(id.clone(), "calc_add", json!([1, 1])))
            .await;
        assert_eq!(status, 200);
        assert_eq!(body["id"], id);
        assert_eq!(body["result"]["value"], 2);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn method_without_params_or_result() {
    let server = server().await;
    for params in [json!(null), json!([]), json!({})] {
        let (_, body) = server.rpc(&request(json!(1), "calc_ping", params)).await;
        assert_eq!(body, json!({"jsonrpc": "2.0", "id": 1, "result": null}));
    }
    let (_, body) = server
        .rpc(r#"{"jsonrpc":"2.0","id":2,"method":"calc_ping"}"#)
        .await;
    assert_eq!(body["result"], Value::Null);
    server.shutdown().await;
}

#[tokio::test]
async fn batch_answers_in_order() {
    let server = server().await;
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "calc_add", "params": [1, 2]},
        {"jsonrpc": "2.0", "id": "two", "method": "calc_add", "params": {"a": 3, "b": 4}},
        {"jsonrpc": "2.0", "id": 3, "method": "calc_nope"},
    ]);
    let (status, body) = server.rpc(&batch.to_string()).await;
    assert_eq!(status, 200);
    let answers = body.as_array().expect("a batch gets an array");
    assert_eq!(answers.len(), 3);
    assert_eq!(
        answers[0],
        json!({"jsonrpc": "2.0", "id": 1, "result": {"value": 3}})
    );
    assert_eq!(answers[1]["id"], "two");
    assert_eq!(answers[1]["result"]["value"], 7);
    assert_eq!(answers[2]["id"], 3);
    assert_eq!(error_code(&answers[2]), code::METHOD_NOT_FOUND);
    server.shutdown().await;
}

#[tokio::test]
async fn batch_with_notifications_answers_only_the_calls() {
    let server = server().await;
    let batch = json!([
        {"jsonrpc": "2.0", "method": "calc_add", "params": [1, 2]},
        {"jsonrpc": "2.0", "id": 5, "method": "calc_add", "params": [5, 5]},
        {"jsonrpc": "2.0", "method": "calc_nope"},
        {"jsonrpc": "2.0", "method": "calc_add", "params": "wrong"},
    ]);
    let (status, body) = server.rpc(&batch.to_string()).await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!([{"jsonrpc": "2.0", "id": 5, "result": {"value": 10}}])
    );
    server.shutdown().await;
}

#[tokio::test]
async fn notifications_only_get_204_and_no_body() {
    let server = server().await;
    let single = r#"{"jsonrpc":"2.0","method":"calc_add","params":[1,2]}"#;
    let mut client = server.connect().await;
    let response = client.post("/rpc", single).await;
    assert_eq!(response.status, 204);
    assert!(response.body.is_empty());
    let batch = json!([
        {"jsonrpc": "2.0", "method": "calc_ping"},
        {"jsonrpc": "2.0", "method": "calc_add", "params": [1, 2]},
    ]);
    let response = client.post("/rpc", &batch.to_string()).await;
    assert_eq!(response.status, 204);
    assert!(response.body.is_empty());
    server.shutdown().await;
}

#[tokio::test]
async fn parse_error() {
    let server = server().await;
    for body in [r#"{"jsonrpc":"2.0","method":"#, "", "[1,", "nul"] {
        let (status, answer) = server.rpc(body).await;
        assert_eq!(status, 200, "{body:?}");
        assert_eq!(answer["id"], Value::Null);
        assert_eq!(error_code(&answer), code::PARSE_ERROR, "{body:?}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn deep_nesting_is_a_parse_error_not_a_crash() {
    let server = server().await;
    let body = "[".repeat(100_000);
    let (status, answer) = server.rpc(&body).await;
    assert_eq!(status, 200);
    assert_eq!(error_code(&answer), code::PARSE_ERROR);
    server.shutdown().await;
}

#[tokio::test]
async fn invalid_requests() {
    let server = server().await;
    let cases = [
        (r#"42"#, Value::Null),
        (r#""calc_add""#, Value::Null),
        (r#"{"id":1,"method":"calc_ping"}"#, json!(1)),
        (r#"{"jsonrpc":"1.0","id":1,"method":"calc_ping"}"#, json!(1)),
        (r#"{"jsonrpc":2.0,"id":1,"method":"calc_ping"}"#, json!(1)),
        (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, json!(1)),
        (r#"{"jsonrpc":"2.0","id":1}"#, json!(1)),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"calc_ping"}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":[1],"method":"calc_ping"}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"calc_ping"}"#,
            Value::Null,
        ),
        (r#"[]"#, Value::Null),
    ];
    for (body, id) in cases {
        let (status, answer) = server.rpc(body).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            error_code(&answer),
            code::INVALID_REQUEST,
            "{body}: {answer}"
        );
        assert_eq!(answer["id"], id, "{body}");
        assert!(answer["error"]["message"].as_str().unwrap().len() > 20);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn invalid_members_of_a_batch_each_get_an_error() {
    let server = server().await;
    let (status, body) = server.rpc("[1, 2, {\"foo\": \"boo\"}]").await;
    assert_eq!(status, 200);
    let answers = body.as_array().unwrap();
    assert_eq!(answers.len(), 3);
    for answer in answers {
        assert_eq!(error_code(answer), code::INVALID_REQUEST);
        assert_eq!(answer["id"], Value::Null);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn batch_over_the_limit_is_refused_whole() {
    let config = HttpConfig {
        max_batch: 3,
        ..HttpConfig::default()
    };
    let server = Server::start(config).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "calc_ping"});
    let (_, ok) = server.rpc(&json!([call, call, call]).to_string()).await;
    assert_eq!(ok.as_array().unwrap().len(), 3);
    let (status, refused) = server
        .rpc(&json!([call, call, call, call]).to_string())
        .await;
    assert_eq!(status, 200);
    assert_eq!(error_code(&refused), code::INVALID_REQUEST);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("limit of 3"), "{message}");
    server.shutdown().await;
}

#[tokio::test]
async fn method_not_found_names_the_known_methods() {
    let server = server().await;
    let (_, answer) = server
        .rpc(&request(json!(1), "eth_getBalance", json!([])))
        .await;
    assert_eq!(error_code(&answer), code::METHOD_NOT_FOUND);
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("eth_getBalance"), "{message}");
    assert!(message.contains("calc_add"), "{message}");
    server.shutdown().await;
}

#[tokio::test]
async fn invalid_params() {
    let server = server().await;
    let cases = [
        ("calc_add", json!(null), "required"),
        ("calc_add", json!([1, 2, 3]), "3 positional params"),
        ("calc_add", json!("1,2"), "object or an array"),
        ("calc_add", json!({"a": "x"}), "Pair"),
        ("calc_add", json!({"a": -1}), "Pair"),
        ("calc_ping", json!([1]), "takes no params"),
    ];
    for (method, params, expected) in cases {
        let (status, answer) = server.rpc(&request(json!(1), method, params.clone())).await;
        assert_eq!(status, 200);
        assert_eq!(error_code(&answer), code::INVALID_PARAMS, "{params}");
        assert_eq!(answer["id"], 1);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{params}: {message}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn handler_errors_map_to_codes() {
    let server = server().await;
    let cases = [
        (400, code::INVALID_PARAMS),
        (401, code::UNAUTHORIZED),
        (403, code::FORBIDDEN),
        (404, code::METHOD_NOT_FOUND),
        (500, code::INTERNAL_ERROR),
        (499, code::CANCELLED),
        (503, code::OVERLOADED),
        (504, code::DEADLINE_EXCEEDED),
        (502, code::SERVER_ERROR),
    ];
    for (status, expected) in cases {
        let (http, answer) = server
            .rpc(&request(json!(9), "calc_fail", json!([status])))
            .await;
        assert_eq!(http, 200);
        assert_eq!(error_code(&answer), expected, "status {status}");
        assert_eq!(answer["error"]["data"]["status"], status);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("failing with {status} as asked")),
            "{message}"
        );
    }
    server.shutdown().await;
}

/// A response that cannot be read, or read but not written as JSON, is answered -32603
/// with the reason, for the request's id: never an empty 200 body or a `null` result.
#[tokio::test]
async fn responses_that_cannot_become_json_are_internal_errors() {
    let server = server().await;
    for (method, reason) in [
        ("calc_broken", "not a valid Number message"),
        ("calc_unserializable", "refuses to be JSON"),
    ] {
        let (status, answer) = server.rpc(&request(json!(4), method, json!(null))).await;
        assert_eq!(status, 200, "{method}");
        assert_eq!(error_code(&answer), code::INTERNAL_ERROR, "{method}");
        assert_eq!(answer["id"], 4, "{method}");
        assert!(answer.get("result").is_none(), "{method}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(reason), "{method}: {message}");
    }
    server.shutdown().await;
}
