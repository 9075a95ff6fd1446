//! Subscriptions over WebSocket in a namespace of the service's own: `calc_subscribe`
//! opens the `counter` stream of the hand-written `Calc` service, its messages arrive
//! as `calc_subscription` notifications, and `eth_subscribe` is not a method there.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{client_async, WebSocketStream};
use zap_runtime::http::HttpConfig;

use crate::http_support::Server;

type Socket = WebSocketStream<TcpStream>;

async fn connect(server: &Server) -> Socket {
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let host = server.addr;
    let (socket, response) = client_async(format!("ws://{host}/"), tcp)
        .await
        .expect("the upgrade is accepted");
    assert_eq!(response.status(), 101);
    socket
}

/// The next text frame as JSON, within 10 s.
async fn next_json(socket: &mut Socket) -> Value {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("a frame within 10 s")
            .expect("the socket is open")
            .expect("a valid frame");
        match frame {
            Message::Text(text) => return serde_json::from_str(text.as_str()).unwrap(),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("expected a text frame, got {other:?}"),
        }
    }
}

async fn call(socket: &mut Socket, id: u64, method: &str, params: Value) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    socket
        .send(Message::text(request.to_string()))
        .await
        .unwrap();
    next_json(socket).await
}

#[tokio::test]
async fn a_subscription_lives_in_its_methods_namespace() {
    let server = Server::start(HttpConfig::default()).await;
    let mut socket = connect(&server).await;

    // Ethereum's namespace is not this service's.
    let answer = call(&mut socket, 1, "eth_subscribe", json!(["counter"])).await;
    assert_eq!(answer["error"]["code"], -32601, "{answer}");

    // The wrong name in the right namespace lists the ones there are.
    let answer = call(&mut socket, 2, "calc_subscribe", json!(["heads"])).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("counter"), "{message}");

    let answer = call(
        &mut socket,
        3,
        "calc_subscribe",
        json!(["counter", {"value": 3}]),
    )
    .await;
    let id = answer["result"]
        .as_str()
        .expect("a subscription id")
        .to_owned();
    assert!(id.starts_with("0x"), "{answer}");
    for value in 1..=3 {
        let note = next_json(&mut socket).await;
        assert_eq!(note["method"], "calc_subscription", "{note}");
        assert_eq!(note["params"]["subscription"], id.as_str(), "{note}");
        assert_eq!(note["params"]["result"]["value"], value, "{note}");
    }

    // A second one, ended by the client before its stream ends.
    let answer = call(
        &mut socket,
        4,
        "calc_subscribe",
        json!(["counter", {"value": 1000000}]),
    )
    .await;
    let second = answer["result"]
        .as_str()
        .expect("a subscription id")
        .to_owned();
    let request =
        json!({"jsonrpc": "2.0", "id": 5, "method": "calc_unsubscribe", "params": [second]});
    socket
        .send(Message::text(request.to_string()))
        .await
        .unwrap();
    // Notifications of the second subscription may come before the answer.
    let mut answer = next_json(&mut socket).await;
    while answer.get("id").is_none() {
        assert_eq!(answer["method"], "calc_subscription", "{answer}");
        answer = next_json(&mut socket).await;
    }
    assert_eq!(answer["id"], 5, "{answer}");
    assert_eq!(answer["result"], true, "{answer}");
    server.shutdown().await;
}
