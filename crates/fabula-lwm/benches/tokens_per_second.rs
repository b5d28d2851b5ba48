//! CPU decoding speed of the tiny checkpoint: 64 greedily generated tokens per iteration,
//! reported by criterion as tokens per second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fabula_lwm::{GenerateOptions, LoadOptions, Model, chat_prompt, write_tiny};

const NEW_TOKENS: usize = 64;

fn corpus() -> Vec<String> {
    (0..40)
        .map(|i| {
            format!(
                "Kest{i} is a river city-state on the Orun delta, founded in {} by Maro Venn; \
                 its harbour Tesh Quay has {} berths.",
                1100 + i * 7,
                20 + i
            )
        })
        .collect()
}

fn tokens_per_second(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_tiny(dir.path(), 1, &corpus()).expect("the tiny checkpoint is written");
    let mut model = Model::load(dir.path(), &LoadOptions::default()).expect("it loads");
    let prompt = chat_prompt(
        "You render search results.",
        "web_search {\"queries\":[\"kest\"]}",
    );
    let options = GenerateOptions {
        max_new_tokens: NEW_TOKENS,
        stop_tokens: Vec::new(),
        ..GenerateOptions::default()
    };
    let mut group = c.benchmark_group("tiny_qwen3_cpu");
    group.throughput(Throughput::Elements(NEW_TOKENS as u64));
    group.sample_size(20);
    group.bench_function("generate_64_tokens", |b| {
        b.iter(|| {
            let generation = model.generate(&prompt, &options).expect("generation runs");
            std::hint::black_box(generation.tokens.len())
        })
    });
    group.finish();
}

criterion_group!(benches, tokens_per_second);
criterion_main!(benches);
