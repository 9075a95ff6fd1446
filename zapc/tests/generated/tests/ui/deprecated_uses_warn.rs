//! Naming what `schemas/evolution.zap` marks `deprecated` warns in user code (an error
//! under `deny(deprecated)`): a deprecated struct, a deprecated field's owned member,
//! getter and setter, and a deprecated method's client stub.
#![deny(deprecated)]

use zap_runtime::{Builder, Transport};
use zapc_generated_tests::evolution;

async fn uses<T: Transport>(client: &evolution::LedgerClient<T>) {
    let legacy = evolution::LegacyQuery { id: 1 };
    let _ = client.lookup(&legacy).await;
}

fn main() {
    let account = evolution::Account::default();
    let _ = account.name;
    let bytes = zap_runtime::ZapStruct::to_bytes(&account).unwrap();
    let reader = evolution::AccountReader::parse(&bytes).unwrap();
    let _ = reader.name();
    let mut b = Builder::new();
    evolution::AccountBuilder::new(&mut b).set_name("x");
    let _ = uses::<zap_runtime::Local<evolution::LedgerService<NoHandler>>>;
}

struct NoHandler;

impl evolution::Ledger for NoHandler {
    async fn get(
        &self,
        _: evolution::QueryReader<'_>,
    ) -> Result<evolution::Account, zap_runtime::CallError> {
        Ok(evolution::Account::default())
    }
    async fn ping(&self) -> Result<(), zap_runtime::CallError> {
        Ok(())
    }
    // Implementing a deprecated method does not warn; its deprecated parameter type does.
    async fn lookup(
        &self,
        _: evolution::LegacyQueryReader<'_>,
    ) -> Result<evolution::Account, zap_runtime::CallError> {
        Ok(evolution::Account::default())
    }
    async fn list(
        &self,
        _: evolution::QueryReader<'_>,
    ) -> Result<evolution::Page, zap_runtime::CallError> {
        Ok(evolution::Page::default())
    }
}
