//! CPU speed of the tiny checkpoints (Qwen3; Qwen3.5 dense and MoE, Gated DeltaNet and gated
//! attention): 64 greedily generated tokens of a chat prompt per iteration, and a 256-token
//! prefill (four chunks of the chunked delta rule), reported by criterion as tokens per second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fabula_lwm::{
    GenerateOptions, LoadOptions, Model, TinyArchitecture, chat_prompt, write_tiny_as,
};

const NEW_TOKENS: usize = 64;
const PREFILL_TOKENS: usize = 256;

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
    for (name, architecture) in [
        ("tiny_qwen3_cpu", TinyArchitecture::Qwen3),
        ("tiny_qwen3_5_cpu", TinyArchitecture::Qwen3_5),
        ("tiny_qwen3_5_moe_cpu", TinyArchitecture::Qwen3_5Moe),
    ] {
        let dir = tempfile::tempdir().expect("a temporary folder");
        write_tiny_as(dir.path(), 1, &corpus(), architecture)
            .expect("the tiny checkpoint is written");
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
        let vocab = model.vocab_size() as u32;
        let long: Vec<u32> = (0..PREFILL_TOKENS as u32)
            .map(|i| (i * 31 + 7) % vocab)
            .collect();
        let mut group = c.benchmark_group(name);
        group.sample_size(20);
        group.throughput(Throughput::Elements(NEW_TOKENS as u64));
        group.bench_function("generate_64_tokens", |b| {
            b.iter(|| {
                let generation = model.generate(&prompt, &options).expect("generation runs");
                std::hint::black_box(generation.tokens.len())
            })
        });
        group.throughput(Throughput::Elements(PREFILL_TOKENS as u64));
        group.bench_function("prefill_256_tokens", |b| {
            b.iter(|| {
                let logits = model.forward_logits(&long, 0).expect("prefill runs");
                std::hint::black_box(logits.len())
            })
        });
        group.finish();
    }
}

criterion_group!(benches, tokens_per_second);
criterion_main!(benches);
