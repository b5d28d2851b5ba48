//! Loading checkpoints written by the tests: single and sharded safetensors, MoE, GGUF, and the
//! errors for what is missing or unsupported.

use fabula_lwm::{Architecture, Error, LoadOptions, Model, Precision};

use crate::fixtures::{self, DIMS, max_abs_diff};

fn load(dir: &std::path::Path) -> fabula_lwm::Result<Model> {
    Model::load(dir, &LoadOptions::default())
}

const TOKENS: [u32; 6] = [257, 10, 200, 45, 3, 99];

#[test]
fn single_file_checkpoint_loads_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write_checkpoint(dir.path(), "Qwen3ForCausalLM", 1, 1);
    let mut model = load(dir.path()).unwrap();
    assert_eq!(model.architecture(), Architecture::Qwen3);
    assert_eq!(model.vocab_size(), DIMS.vocab);
    assert_eq!(model.context(), 512);
    let logits = model.forward_logits(&TOKENS, 0).unwrap();
    assert_eq!(logits.len(), DIMS.vocab);
    assert!(logits.iter().all(|x| x.is_finite()));
    assert_eq!(model.encode("<|im_start|>").unwrap(), [257]);
}

#[test]
fn sharded_checkpoint_matches_single_file() {
    let single = tempfile::tempdir().unwrap();
    let sharded = tempfile::tempdir().unwrap();
    fixtures::write_checkpoint(single.path(), "Qwen3ForCausalLM", 2, 1);
    fixtures::write_checkpoint(sharded.path(), "Qwen3ForCausalLM", 2, 3);
    assert!(
        sharded
            .path()
            .join("model-00003-of-00003.safetensors")
            .is_file()
    );
    let a = load(single.path())
        .unwrap()
        .forward_logits(&TOKENS, 0)
        .unwrap();
    let b = load(sharded.path())
        .unwrap()
        .forward_logits(&TOKENS, 0)
        .unwrap();
    assert_eq!(a, b);
}

#[test]
fn missing_shard_is_named() {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write_checkpoint(dir.path(), "Qwen3ForCausalLM", 2, 3);
    std::fs::remove_file(dir.path().join("model-00002-of-00003.safetensors")).unwrap();
    let err = load(dir.path()).unwrap_err();
    assert!(matches!(err, Error::Missing { .. }), "{err}");
    assert!(
        err.to_string().contains("model-00002-of-00003.safetensors"),
        "{err}"
    );
}

#[test]
fn unknown_architecture_is_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write_checkpoint(dir.path(), "LlamaForCausalLM", 1, 1);
    let err = load(dir.path()).unwrap_err();
    assert!(matches!(err, Error::Unsupported(_)), "{err}");
    assert!(err.to_string().contains("LlamaForCausalLM"), "{err}");
}

#[test]
fn missing_pieces_are_named() {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write_checkpoint(dir.path(), "Qwen3ForCausalLM", 1, 1);
    std::fs::remove_file(dir.path().join("tokenizer.json")).unwrap();
    let err = load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("tokenizer.json"), "{err}");

    fixtures::write_tokenizer(dir.path());
    std::fs::remove_file(dir.path().join("model.safetensors")).unwrap();
    let err = load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("model.safetensors"), "{err}");

    let empty = tempfile::tempdir().unwrap();
    let err = load(empty.path()).unwrap_err();
    assert!(err.to_string().contains("config.json"), "{err}");

    let err = load(&empty.path().join("nowhere")).unwrap_err();
    assert!(matches!(err, Error::Missing { .. }), "{err}");
}

#[test]
fn missing_tensor_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write_checkpoint(dir.path(), "Qwen3ForCausalLM", 1, 1);
    let mut config = fixtures::config_json("Qwen3ForCausalLM");
    config["num_hidden_layers"] = 3.into();
    std::fs::write(dir.path().join("config.json"), config.to_string()).unwrap();
    let err = load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("model.layers.2"), "{err}");
}

#[test]
fn moe_checkpoint_loads_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write_checkpoint(dir.path(), "Qwen3MoeForCausalLM", 3, 2);
    let mut model = load(dir.path()).unwrap();
    assert_eq!(model.architecture(), Architecture::Qwen3Moe);
    let logits = model.forward_logits(&TOKENS, 0).unwrap();
    assert_eq!(logits.len(), DIMS.vocab);
    assert!(logits.iter().all(|x| x.is_finite()));
}

#[test]
fn gguf_matches_the_dense_model_within_quantization_error() {
    let dense_dir = tempfile::tempdir().unwrap();
    fixtures::write_checkpoint(dense_dir.path(), "Qwen3ForCausalLM", 4, 1);
    let gguf_dir = tempfile::tempdir().unwrap();
    let gguf = fixtures::write_gguf(gguf_dir.path(), 4);

    for path in [gguf.as_path(), gguf_dir.path()] {
        let mut quantized = load(path).unwrap();
        assert_eq!(quantized.architecture(), Architecture::QuantizedQwen3);
        assert_eq!(quantized.vocab_size(), DIMS.vocab);
        let q = quantized.forward_logits(&TOKENS, 0).unwrap();
        let f = load(dense_dir.path())
            .unwrap()
            .forward_logits(&TOKENS, 0)
            .unwrap();
        let scale = f.iter().map(|x| x.abs()).fold(0.0, f32::max);
        let diff = max_abs_diff(&q, &f);
        assert!(diff < 0.05 * scale, "max diff {diff} against scale {scale}");
    }
}

#[test]
fn gguf_of_another_architecture_is_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write_tokenizer(dir.path());
    let path = dir.path().join("other.gguf");
    let arch = candle_core::quantized::gguf_file::Value::String("llama".into());
    let mut file = std::fs::File::create(&path).unwrap();
    candle_core::quantized::gguf_file::write(&mut file, &[("general.architecture", &arch)], &[])
        .unwrap();
    let err = load(&path).unwrap_err();
    assert!(err.to_string().contains("llama"), "{err}");
}

#[test]
fn bf16_on_cpu_is_close_to_f32() {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write_checkpoint(dir.path(), "Qwen3ForCausalLM", 5, 1);
    let f32_logits = load(dir.path())
        .unwrap()
        .forward_logits(&TOKENS, 0)
        .unwrap();
    let options = LoadOptions {
        dtype: Some(Precision::Bf16),
        ..LoadOptions::default()
    };
    let bf16_logits = Model::load(dir.path(), &options)
        .unwrap()
        .forward_logits(&TOKENS, 0)
        .unwrap();
    let scale = f32_logits.iter().map(|x| x.abs()).fold(0.0, f32::max);
    assert!(max_abs_diff(&f32_logits, &bf16_logits) < 0.1 * scale.max(1.0));
}
