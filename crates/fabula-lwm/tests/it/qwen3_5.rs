//! Qwen3.5 (dense and MoE): the tiny checkpoints load; decoding token by token, or a prompt in
//! two pieces, gives the logits of one prefill (the recurrent and chunked delta rules agree, and
//! the conv state carries over); fused and per-expert weights, and the multimodal layout, load
//! to the same model. Agreement with transformers itself is CI's `tests/python/qwen3_5`.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{Device, Tensor};
use fabula_lwm::{Architecture, LoadOptions, Model, TinyArchitecture, write_tiny_as};

use crate::fixtures::{self, max_abs_diff as max_diff};

/// Enough tokens for two chunks of the chunked delta rule (64 each) and part of a third.
const LONG: usize = 150;

fn tiny(architecture: TinyArchitecture) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_as(
        dir.path(),
        11,
        &fixtures::corpus(&fixtures::world()),
        architecture,
    )
    .unwrap();
    dir
}

fn load(dir: &Path) -> Model {
    Model::load(dir, &LoadOptions::default()).unwrap()
}

/// Token ids spread over the vocabulary, deterministic.
fn prompt(model: &Model, len: usize) -> Vec<u32> {
    let vocab = model.vocab_size() as u64;
    (0..len as u64)
        .map(|i| ((i * 7919 + 13) % vocab) as u32)
        .collect()
}

#[test]
fn tiny_checkpoints_load_as_their_architecture() {
    for (kind, expected) in [
        (TinyArchitecture::Qwen3_5, Architecture::Qwen3_5),
        (TinyArchitecture::Qwen3_5Moe, Architecture::Qwen3_5Moe),
    ] {
        let dir = tiny(kind);
        let model = load(dir.path());
        assert_eq!(model.architecture(), expected);
        assert_eq!(model.context(), 8192);
        let config: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("config.json")).unwrap())
                .unwrap();
        assert_eq!(config["model_type"], expected.model_type());
        assert_eq!(
            config["layer_types"],
            serde_json::json!([
                "linear_attention",
                "linear_attention",
                "linear_attention",
                "full_attention"
            ])
        );
    }
}

#[test]
fn decoding_token_by_token_matches_one_prefill() {
    for kind in [TinyArchitecture::Qwen3_5, TinyArchitecture::Qwen3_5Moe] {
        let dir = tiny(kind);
        let mut model = load(dir.path());
        let tokens = prompt(&model, LONG);
        let whole = model.forward_logits(&tokens, 0).unwrap();

        // The first 100 in one prefill, the rest one at a time (the recurrent rule).
        let split = 100;
        model.forward_logits(&tokens[..split], 0).unwrap();
        let mut last = Vec::new();
        for (i, &token) in tokens[split..].iter().enumerate() {
            last = model.forward_logits(&[token], split + i).unwrap();
        }
        let diff = max_diff(&whole, &last);
        assert!(diff < 1e-4, "{kind:?}: stepwise differs by {diff}");

        // Two prefills: 70 tokens, then 80 more from the state (the chunked rule's initial
        // state and the conv window across the boundary).
        model.forward_logits(&tokens[..70], 0).unwrap();
        let pieces = model.forward_logits(&tokens[70..], 70).unwrap();
        let diff = max_diff(&whole, &pieces);
        assert!(diff < 1e-4, "{kind:?}: two prefills differ by {diff}");

        // A new sequence at offset 0 forgets the old one.
        let again = model.forward_logits(&tokens, 0).unwrap();
        assert_eq!(whole, again);
    }
}

#[test]
fn greedy_continuation_is_deterministic_and_exactly_as_long_as_asked() {
    let dir = tiny(TinyArchitecture::Qwen3_5Moe);
    let mut model = load(dir.path());
    let tokens = prompt(&model, 12);
    let a = model.greedy(&tokens, 8, true).unwrap();
    let b = model.greedy(&tokens, 8, false).unwrap();
    assert_eq!(a.tokens.len(), 8);
    assert_eq!(a.tokens, b.tokens);
    assert_eq!(a.logits.len(), 8);
    assert!(b.logits.is_empty());
    // Each token is the arg-max of the logits it was chosen from.
    for (token, logits) in a.tokens.iter().zip(&a.logits) {
        let best = logits
            .iter()
            .enumerate()
            .fold(0, |best, (i, &x)| if x > logits[best] { i } else { best });
        assert_eq!(*token as usize, best);
    }
    let vocab = model.vocab_size() as u32;
    let err = model.greedy(&[vocab], 2, false).unwrap_err().to_string();
    assert!(err.contains("outside the vocabulary"), "{err}");
}

#[test]
fn a_wrong_offset_is_an_error_not_a_silent_restart() {
    let dir = tiny(TinyArchitecture::Qwen3_5);
    let mut model = load(dir.path());
    let tokens = prompt(&model, 5);
    model.forward_logits(&tokens, 0).unwrap();
    let err = model
        .forward_logits(&tokens[..1], 3)
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds 5 tokens"), "{err}");
}

fn read_tensors(dir: &Path) -> HashMap<String, Tensor> {
    candle_core::safetensors::load(dir.join("model.safetensors"), &Device::Cpu).unwrap()
}

fn write_tensors(dir: &Path, tensors: &HashMap<String, Tensor>) {
    candle_core::safetensors::save(tensors, dir.join("model.safetensors")).unwrap();
}

fn copy_tokenizer(from: &Path, to: &Path) {
    std::fs::copy(from.join("tokenizer.json"), to.join("tokenizer.json")).unwrap();
}

#[test]
fn fused_experts_load_like_per_expert_ones() {
    let dir = tiny(TinyArchitecture::Qwen3_5Moe);
    let mut per_expert = load(dir.path());
    let tokens = prompt(&per_expert, 20);
    let expected = per_expert.forward_logits(&tokens, 0).unwrap();

    // transformers 5's in-memory layout: gate and up stacked per expert, all experts in one.
    let mut tensors = read_tensors(dir.path());
    for layer in 0..4 {
        let p = format!("model.layers.{layer}.mlp.experts");
        let mut gate_up = Vec::new();
        let mut down = Vec::new();
        for e in 0..4 {
            let gate = tensors
                .remove(&format!("{p}.{e}.gate_proj.weight"))
                .unwrap();
            let up = tensors.remove(&format!("{p}.{e}.up_proj.weight")).unwrap();
            gate_up.push(Tensor::cat(&[gate, up], 0).unwrap());
            down.push(
                tensors
                    .remove(&format!("{p}.{e}.down_proj.weight"))
                    .unwrap(),
            );
        }
        tensors.insert(
            format!("{p}.gate_up_proj"),
            Tensor::stack(&gate_up, 0).unwrap(),
        );
        tensors.insert(format!("{p}.down_proj"), Tensor::stack(&down, 0).unwrap());
    }
    let fused = tempfile::tempdir().unwrap();
    write_tensors(fused.path(), &tensors);
    std::fs::copy(
        dir.path().join("config.json"),
        fused.path().join("config.json"),
    )
    .unwrap();
    copy_tokenizer(dir.path(), fused.path());
    let got = load(fused.path()).forward_logits(&tokens, 0).unwrap();
    assert!(max_diff(&expected, &got) < 1e-6);
}

#[test]
fn the_multimodal_layout_loads_its_text_model_only() {
    let dir = tiny(TinyArchitecture::Qwen3_5Moe);
    let mut text_only = load(dir.path());
    let tokens = prompt(&text_only, 20);
    let expected = text_only.forward_logits(&tokens, 0).unwrap();

    // Qwen3_5MoeForConditionalGeneration: tensors under model.language_model, a vision tower and
    // multi-token-prediction layers beside them, the text config nested.
    let tensors: HashMap<String, Tensor> = read_tensors(dir.path())
        .into_iter()
        .map(|(name, t)| match name.strip_prefix("model.") {
            Some(rest) => (format!("model.language_model.{rest}"), t),
            None => (name, t),
        })
        .chain([
            (
                "model.visual.patch_embed.proj.weight".to_string(),
                Tensor::ones((8, 3), candle_core::DType::F32, &Device::Cpu).unwrap(),
            ),
            (
                "mtp.layers.0.input_layernorm.weight".to_string(),
                Tensor::ones(64, candle_core::DType::F32, &Device::Cpu).unwrap(),
            ),
        ])
        .collect();
    let text: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("config.json")).unwrap())
            .unwrap();
    let config = serde_json::json!({
        "architectures": ["Qwen3_5MoeForConditionalGeneration"],
        "model_type": "qwen3_5_moe",
        "text_config": text,
        "vision_config": {"depth": 1, "hidden_size": 8},
        "tie_word_embeddings": false,
    });
    let vl = tempfile::tempdir().unwrap();
    write_tensors(vl.path(), &tensors);
    std::fs::write(vl.path().join("config.json"), config.to_string()).unwrap();
    copy_tokenizer(dir.path(), vl.path());
    let mut model = load(vl.path());
    assert_eq!(model.architecture(), Architecture::Qwen3_5Moe);
    let got = model.forward_logits(&tokens, 0).unwrap();
    assert!(max_diff(&expected, &got) < 1e-6);
}

#[test]
fn unsupported_settings_are_named() {
    let dir = tiny(TinyArchitecture::Qwen3_5);
    let path = dir.path().join("config.json");
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    config["rope_parameters"]["rope_type"] = "yarn".into();
    std::fs::write(&path, config.to_string()).unwrap();
    let err = Model::load(dir.path(), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("rope_type `yarn`"), "{err}");

    config["rope_parameters"]["rope_type"] = "default".into();
    config["layer_types"] = serde_json::json!(["linear_attention"]);
    std::fs::write(&path, config.to_string()).unwrap();
    let err = Model::load(dir.path(), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("1 layer_types for 4 layers"), "{err}");
}
