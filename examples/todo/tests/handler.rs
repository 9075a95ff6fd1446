//! The handler alone, in-process: `Local` serves it to the generated client without a
//! socket, so a test calls it exactly as a remote caller would.

use todo::todo::{AddRequest, CompleteRequest, TodosClient, TodosService};
use todo::{TodoList, NO_SUCH_ITEM};
use zap_runtime::{ClientError, Local};

#[tokio::test]
async fn complete_marks_the_item_done() {
    let todos = TodosClient::new(Local(TodosService::new(TodoList::default())));
    let added = todos
        .add(&AddRequest {
            title: "buy milk".into(),
        })
        .await
        .unwrap();
    assert_eq!((added.id, added.done), (1, false));

    let completed = todos.complete(&CompleteRequest { id: 1 }).await.unwrap();
    assert!(completed.done);
    assert_eq!(todos.list().await.unwrap().items, [completed]);
}

#[tokio::test]
async fn an_unknown_id_is_no_such_item() {
    let todos = TodosClient::new(Local(TodosService::new(TodoList::default())));
    match todos.complete(&CompleteRequest { id: 7 }).await {
        Err(ClientError::App(e)) => assert_eq!((e.code, &*e.message), (NO_SUCH_ITEM, "no item 7")),
        other => panic!("expected no such item, got {other:?}"),
    }
}
