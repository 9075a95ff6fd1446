//! Call a running `todo` server over ZAP/TCP with the generated client:
//! `cargo run -p todo --example todo_client [ZAP_ADDR]`.

use todo::todo::{AddRequest, CompleteRequest, TodosClient};
use zap_runtime::client::Client;
use zap_runtime::ClientError;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args().nth(1).unwrap_or("127.0.0.1:9000".into());
    let todos = TodosClient::new(Client::connect(&addr).await?);

    let milk = todos
        .add(&AddRequest {
            title: "buy milk".into(),
        })
        .await?;
    todos
        .add(&AddRequest {
            title: "write the guide".into(),
        })
        .await?;
    todos.complete(&CompleteRequest { id: milk.id }).await?;
    for item in todos.list().await?.items {
        let mark = if item.done { 'x' } else { ' ' };
        println!("[{mark}] {} {}", item.id, item.title);
    }

    // An id no item has: the service's own error, with its code.
    match todos.complete(&CompleteRequest { id: 999 }).await {
        Err(ClientError::App(e)) if e.code == todo::NO_SUCH_ITEM => println!("{e}"),
        other => return Err(format!("expected no item 999, got {other:?}").into()),
    }
    Ok(())
}
