//! What recording a call in the metrics costs: the same service called directly and
//! through `zap_runtime::metrics::Metered` (in-flight gauge, call counter, duration
//! histogram, two clock reads, the disabled `tracing` span), side by side in one group
//! so that each round measures both. The recording cost is the difference per call.
//!
//! `cargo bench -p zap-benches --bench metrics`

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use criterion::{criterion_group, criterion_main, Criterion};
use eth_rpc::eth::{BalanceRequest, EthService};
use eth_rpc::LedgerEth;
use zap_runtime::metrics::{Metered, Metrics};
use zap_runtime::{Builder, CallError, MethodInfo, Reply, Service, ZapStruct};

/// Method 1 answers an empty body at once: the call itself costs next to nothing, so
/// what `Metered` adds stands out.
struct Ping;

impl Service for Ping {
    const NAME: &'static str = "Ping";
    const METHODS: &'static [MethodInfo] = &[];
    async fn call<'a>(
        &'a self,
        ordinal: u32,
        _: &'a [u8],
        _: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        match ordinal {
            1 => Ok(Reply::Empty),
            n => Err(CallError::unknown_method(Self::NAME, n)),
        }
    }
}

/// Run a call that never waits to its end.
fn now<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("the call waited"),
    }
}

fn bench<S: Service>(c: &mut Criterion, name: &str, service: S, ordinal: u32, payload: &[u8]) {
    let service = Arc::new(service);
    let metered = Metered::new(service.clone(), &Metrics::new(), "zap");
    let mut out = Builder::new();
    let mut group = c.benchmark_group(name);
    group.bench_function("direct", |b| {
        b.iter(|| {
            out.clear();
            now(service.call(black_box(ordinal), black_box(payload), &mut out))
        })
    });
    group.bench_function("metered", |b| {
        b.iter(|| {
            out.clear();
            now(metered.call(black_box(ordinal), black_box(payload), &mut out))
        })
    });
    group.finish();
}

fn metrics(c: &mut Criterion) {
    bench(c, "metrics/ping", Ping, 1, b"");
    let ledger = LedgerEth::default();
    let account = *ledger.ledger().address(5).expect("a seeded account");
    let request = BalanceRequest {
        id: 1,
        block: 68943,
        account,
    }
    .to_bytes()
    .expect("encode");
    bench(
        c,
        "metrics/eth_getBalance",
        EthService::new(ledger),
        1,
        &request,
    );
}

criterion_group!(benches, metrics);
criterion_main!(benches);
