//! A to-do list served over ZAP/TCP and JSON-RPC over HTTP by one handler.
//!
//! `build.rs` compiles `schemas/todo.zap` into the [`todo`](mod@todo) module: the `Item`,
//! `AddRequest`, `ItemList` and `CompleteRequest` types (owned structs, zero-copy
//! readers, builders), the `Todos` handler trait, `TodosService` (what the servers
//! serve) and `TodosClient` (what callers call). This file implements the trait and
//! serves it.

use std::io;
use std::sync::{Arc, Mutex};

use tokio::net::TcpListener;
use zap_runtime::http::{HttpConfig, HttpServer};
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::{AppCode, AppError, CallError};

/// The code generated from `schemas/todo.zap`.
pub mod todo {
    zap_runtime::include_schema!("todo");
}

use todo::{AddRequestReader, CompleteRequestReader, Item, ItemList, Todos, TodosService};

/// The application error `complete` answers for an id no item has. Over ZAP it is
/// status 32010; over JSON-RPC, error code -32010.
pub const NO_SUCH_ITEM: AppCode = AppCode::new(10);

/// The longest title `add` accepts, in bytes.
pub const MAX_TITLE: usize = 200;

/// The handler: the items, in memory, in the order they were added.
#[derive(Debug, Default)]
pub struct TodoList {
    items: Mutex<Vec<Item>>,
}

impl Todos for TodoList {
    async fn add(&self, req: AddRequestReader<'_>) -> Result<Item, CallError> {
        let title = req.title();
        if title.len() > MAX_TITLE {
            return Err(CallError::bad_request(format!(
                "a title is at most {MAX_TITLE} bytes, this one has {}",
                title.len()
            )));
        }
        let mut items = self.items.lock().unwrap();
        let item = Item {
            id: items.len() as u64 + 1,
            title: title.to_owned(),
            done: false,
        };
        items.push(item.clone());
        Ok(item)
    }

    async fn list(&self) -> Result<ItemList, CallError> {
        let items = self.items.lock().unwrap().clone();
        Ok(ItemList { items })
    }

    async fn complete(&self, req: CompleteRequestReader<'_>) -> Result<Item, CallError> {
        let id = req.id();
        let mut items = self.items.lock().unwrap();
        let found = items.iter_mut().find(|item| item.id == id);
        let item = found.ok_or_else(|| AppError::new(NO_SUCH_ITEM, format!("no item {id}")))?;
        item.done = true;
        Ok(item.clone())
    }
}

/// Serve one [`TodoList`] on both listeners until `stop` is cancelled, then stop both
/// gracefully (each answers what it has read, then closes).
pub async fn serve(zap: TcpListener, http: TcpListener, stop: CancellationToken) -> io::Result<()> {
    let service = Arc::new(TodosService::new(TodoList::default()));
    let zap = Server::new(zap, service.clone(), ServerConfig::default());
    let http = HttpServer::new(http, service, HttpConfig::default());
    let (zap, http) = tokio::join!(zap.run(stop.clone()), http.run(stop));
    zap.and(http)
}
