//! Decoding: the KV cache agrees with full forward passes, sampling is seeded, and a figure for
//! CPU tokens per second of the tiny model.

use fabula_lwm::{FinishReason, GenerateOptions, LoadOptions, Model, chat_prompt, write_tiny};

use crate::fixtures;

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn check_kv_cache(architecture: &str) {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write_checkpoint(dir.path(), architecture, 11, 1);
    let mut model = Model::load(dir.path(), &LoadOptions::default()).unwrap();
    let tokens: Vec<u32> = (0..24).map(|i| (i * 37 + 5) % 256).collect();
    let prefill = 9;
    model.clear_cache();
    let mut incremental = model.forward_logits(&tokens[..prefill], 0).unwrap();
    for end in prefill..=tokens.len() {
        model.clear_cache();
        let full = model.forward_logits(&tokens[..end], 0).unwrap();
        assert!(
            max_abs_diff(&full, &incremental) < 1e-4,
            "{architecture}: logits after {end} tokens differ by {}",
            max_abs_diff(&full, &incremental)
        );
        if end == tokens.len() {
            break;
        }
        // Rebuild the cache up to `end` and take one cached step.
        model.clear_cache();
        model.forward_logits(&tokens[..end], 0).unwrap();
        incremental = model.forward_logits(&tokens[end..=end], end).unwrap();
    }
}

#[test]
fn kv_cache_matches_full_forward_dense() {
    check_kv_cache("Qwen3ForCausalLM");
}

#[test]
fn kv_cache_matches_full_forward_moe() {
    check_kv_cache("Qwen3MoeForCausalLM");
}

#[test]
fn kv_cache_matches_over_a_long_incremental_run() {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write_checkpoint(dir.path(), "Qwen3ForCausalLM", 12, 1);
    let mut model = Model::load(dir.path(), &LoadOptions::default()).unwrap();
    let tokens: Vec<u32> = (0..40).map(|i| (i * 53 + 7) % 256).collect();
    model.clear_cache();
    let mut last = model.forward_logits(&tokens[..1], 0).unwrap();
    for (pos, &token) in tokens.iter().enumerate().skip(1) {
        last = model.forward_logits(&[token], pos).unwrap();
    }
    model.clear_cache();
    let full = model.forward_logits(&tokens, 0).unwrap();
    assert!(max_abs_diff(&full, &last) < 1e-4);
}

fn tiny_model() -> (tempfile::TempDir, Model) {
    let dir = tempfile::tempdir().unwrap();
    write_tiny(dir.path(), 7, &fixtures::corpus(&fixtures::world())).unwrap();
    let model = Model::load(dir.path(), &LoadOptions::default()).unwrap();
    (dir, model)
}

#[test]
fn seeded_generation_is_reproducible() {
    let (_dir, mut model) = tiny_model();
    let prompt = chat_prompt("You render pages.", "Open the page about Kest.");
    let sampled = |seed| GenerateOptions {
        max_new_tokens: 24,
        temperature: 0.9,
        top_p: 0.95,
        seed,
        ..GenerateOptions::default()
    };
    let a = model.generate(&prompt, &sampled(5)).unwrap();
    let b = model.generate(&prompt, &sampled(5)).unwrap();
    let c = model.generate(&prompt, &sampled(6)).unwrap();
    assert_eq!(a.tokens, b.tokens);
    assert_eq!(a.text, b.text);
    assert_ne!(a.tokens, c.tokens);

    let greedy = GenerateOptions {
        max_new_tokens: 24,
        ..GenerateOptions::default()
    };
    let g1 = model.generate(&prompt, &greedy).unwrap();
    let g2 = model.generate(&prompt, &greedy).unwrap();
    assert_eq!(g1.tokens, g2.tokens);
}

#[test]
fn generation_honours_limits() {
    let (_dir, mut model) = tiny_model();
    let prompt = chat_prompt("s", "u");
    let options = GenerateOptions {
        max_new_tokens: 5,
        stop_tokens: Vec::new(),
        ..GenerateOptions::default()
    };
    let generation = model.generate(&prompt, &options).unwrap();
    assert_eq!(generation.tokens.len(), 5);
    assert_eq!(generation.finish, FinishReason::MaxTokens);

    let options = GenerateOptions {
        max_new_tokens: 1000,
        stop_tokens: Vec::new(),
        time_budget: Some(std::time::Duration::ZERO),
        ..GenerateOptions::default()
    };
    let generation = model.generate(&prompt, &options).unwrap();
    assert_eq!(generation.finish, FinishReason::TimeBudget);
    assert!(generation.tokens.is_empty());

    let options = GenerateOptions {
        max_new_tokens: 10_000,
        ..GenerateOptions::default()
    };
    let err = model.generate(&prompt, &options).unwrap_err();
    assert!(
        matches!(err, fabula_lwm::Error::PromptTooLong { .. }),
        "{err}"
    );
}

/// Prints the tiny model's CPU decoding speed (run with `--nocapture` to see it).
#[test]
fn tiny_model_tokens_per_second() {
    let (_dir, mut model) = tiny_model();
    let prompt = chat_prompt("You render search results.", "web_search kest founder");
    let options = GenerateOptions {
        max_new_tokens: 200,
        stop_tokens: Vec::new(),
        ..GenerateOptions::default()
    };
    let generation = model.generate(&prompt, &options).unwrap();
    assert_eq!(generation.tokens.len(), 200);
    let rate = generation.tokens.len() as f64 / generation.seconds;
    println!(
        "tiny model on CPU: {rate:.0} tokens/s (200 tokens in {:.3} s)",
        generation.seconds
    );
    assert!(rate > 1.0);
}
