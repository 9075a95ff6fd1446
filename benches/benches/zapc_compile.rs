//! zapc on large schemas: parse + check + lay out + generate + format, for schemas of
//! 125 to 2,000 structs (each with scalars, text, bytes_fixed, a nested pointer and a
//! list, plus an interface). Linear growth shows as a constant time per struct.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use zapc::codegen::{render, Options};

/// A schema of `n` structs; struct i points at struct i-1 and lists struct i-2.
pub fn large_schema(n: usize) -> String {
    let mut s = String::from("package big\n\ntype hash = bytes_fixed[32]\n\n");
    for i in 0..n {
        s.push_str(&format!("# Struct number {i}.\nstruct S{i} {{\n    Id u64\n    Flag bool\n    Name text\n    Hash hash\n    Count u32 @64\n"));
        if i > 0 {
            s.push_str(&format!("    Prev S{}\n", i - 1));
        }
        if i > 1 {
            s.push_str(&format!("    Items list<S{}>\n", i - 2));
        }
        s.push_str("}\n\n");
    }
    s.push_str("interface Big {\n");
    for i in 0..n.min(200) {
        s.push_str(&format!(
            "    call{i}(req: S{i}) returns (resp: S{})\n",
            (i + 1) % n
        ));
    }
    s.push_str("}\n");
    s
}

fn compile(c: &mut Criterion) {
    let mut g = c.benchmark_group("zapc/compile");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(6))
        .warm_up_time(Duration::from_secs(1));
    for n in [125usize, 250, 500, 1000, 2000] {
        let text = large_schema(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("structs", n), &text, |b, text| {
            b.iter(|| {
                let schema = zapc::load_str("big.zap", black_box(text))
                    .expect("the generated schema is valid");
                black_box(render(&schema, &Options::default()).len())
            })
        });
    }
    g.finish();
}

/// The two halves separately, at 1,000 structs: where the time goes.
fn stages(c: &mut Criterion) {
    let mut g = c.benchmark_group("zapc/stages-1000");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    let text = large_schema(1000);
    let schema = zapc::load_str("big.zap", &text).expect("valid");
    g.bench_function("parse+check+layout", |b| {
        b.iter(|| black_box(zapc::load_str("big.zap", black_box(&text)).is_ok()))
    });
    g.bench_function("codegen tokens", |b| {
        b.iter(|| {
            black_box(zapc::codegen::generate(black_box(&schema), &Options::default()).is_empty())
        })
    });
    g.bench_function("codegen+prettyplease", |b| {
        b.iter(|| black_box(render(black_box(&schema), &Options::default()).len()))
    });
    g.finish();
}

criterion_group!(benches, compile, stages);
criterion_main!(benches);
