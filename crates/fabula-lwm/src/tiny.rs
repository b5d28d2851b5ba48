//! A tiny randomly initialised Qwen3 checkpoint with a BPE tokenizer trained on world text, for
//! tests, demos and CI where no real checkpoint can be downloaded.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{Device, Tensor};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokenizers::decoders::DecoderWrapper;
use tokenizers::models::bpe::{BPE, BpeTrainerBuilder};
use tokenizers::normalizers::NormalizerWrapper;
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::processors::PostProcessorWrapper;
use tokenizers::{AddedToken, Tokenizer, TokenizerBuilder};

use crate::error::{Error, Result, io_error};

/// The special tokens every tiny tokenizer holds, with ids 0 to 4.
pub const TINY_SPECIAL_TOKENS: [&str; 5] = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<think>",
    "</think>",
];

const VOCAB_TARGET: usize = 768;
const HIDDEN: usize = 64;
const INTERMEDIATE: usize = 128;
const LAYERS: usize = 2;
const HEADS: usize = 4;
const KV_HEADS: usize = 2;
const HEAD_DIM: usize = 16;
const CONTEXT: usize = 8192;

/// Writes a tiny Qwen3 checkpoint into `dir` in the Hugging Face layout: `config.json`
/// (`Qwen3ForCausalLM`, hidden size 64, 2 layers, 4 heads, 2 key-value heads, head size 16),
/// `model.safetensors` with the standard tensor names and `tokenizer.json`, a byte-level BPE
/// tokenizer trained on `corpus_text` whose special tokens are [`TINY_SPECIAL_TOKENS`].
///
/// The same seed and corpus give byte-identical files. The weights are random, so the model
/// writes fluent-looking garbage in the corpus's vocabulary.
pub fn write_tiny(dir: &Path, seed: u64, corpus_text: &[String]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let tokenizer = train_tokenizer(corpus_text)?;
    let vocab_size = tokenizer.get_vocab_size(true);
    let tokenizer_path = dir.join("tokenizer.json");
    tokenizer
        .save(&tokenizer_path, false)
        .map_err(|e| Error::Tokenizer(format!("{}: {e}", tokenizer_path.display())))?;

    let config = serde_json::json!({
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "vocab_size": vocab_size,
        "hidden_size": HIDDEN,
        "intermediate_size": INTERMEDIATE,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "num_key_value_heads": KV_HEADS,
        "head_dim": HEAD_DIM,
        "attention_bias": false,
        "max_position_embeddings": CONTEXT,
        "max_window_layers": LAYERS,
        "sliding_window": null,
        "use_sliding_window": false,
        "tie_word_embeddings": false,
        "rope_theta": 1_000_000.0,
        "rms_norm_eps": 1e-6,
        "hidden_act": "silu",
        "torch_dtype": "float32",
        "bos_token_id": tokenizer.token_to_id("<|endoftext|>"),
        "eos_token_id": tokenizer.token_to_id("<|im_end|>"),
    });
    let config_path = dir.join("config.json");
    let config_text = serde_json::to_string_pretty(&config)?;
    std::fs::write(&config_path, config_text).map_err(io_error(&config_path))?;

    let weights = tiny_weights(seed, vocab_size)?;
    let weights_path = dir.join("model.safetensors");
    candle_core::safetensors::save(&weights, &weights_path)?;
    Ok(())
}

/// Trains a byte-level BPE tokenizer (Qwen's pre-tokenizer family) on the corpus.
fn train_tokenizer(corpus_text: &[String]) -> Result<Tokenizer> {
    let specials: Vec<AddedToken> = TINY_SPECIAL_TOKENS
        .iter()
        .map(|token| AddedToken::from(*token, true))
        .collect();
    let mut trainer = BpeTrainerBuilder::new()
        .vocab_size(VOCAB_TARGET)
        .min_frequency(2)
        .show_progress(false)
        .special_tokens(specials)
        .initial_alphabet(ByteLevel::alphabet().into_iter().collect())
        .build();
    let mut tokenizer = TokenizerBuilder::<
        BPE,
        NormalizerWrapper,
        PreTokenizerWrapper,
        PostProcessorWrapper,
        DecoderWrapper,
    >::new()
    .with_model(BPE::default())
    .with_pre_tokenizer(Some(ByteLevel::new(false, true, true).into()))
    .with_decoder(Some(ByteLevel::new(false, true, true).into()))
    .build()
    .map_err(|e| Error::Tokenizer(e.to_string()))?;
    tokenizer
        .train(&mut trainer, corpus_text.iter())
        .map_err(|e| Error::Tokenizer(e.to_string()))?;
    Ok(tokenizer.into())
}

/// Random weights with the standard Hugging Face Qwen3 tensor names. Matrices are uniform in
/// ±1/sqrt(fan-in); norm weights are 1. Names are filled in sorted order so the values depend on
/// the seed alone.
fn tiny_weights(seed: u64, vocab_size: usize) -> Result<HashMap<String, Tensor>> {
    let mut shapes: Vec<(String, Vec<usize>)> = vec![
        ("model.embed_tokens.weight".into(), vec![vocab_size, HIDDEN]),
        ("model.norm.weight".into(), vec![HIDDEN]),
        ("lm_head.weight".into(), vec![vocab_size, HIDDEN]),
    ];
    for layer in 0..LAYERS {
        let p = format!("model.layers.{layer}");
        shapes.extend([
            (format!("{p}.input_layernorm.weight"), vec![HIDDEN]),
            (format!("{p}.post_attention_layernorm.weight"), vec![HIDDEN]),
            (
                format!("{p}.self_attn.q_proj.weight"),
                vec![HEADS * HEAD_DIM, HIDDEN],
            ),
            (
                format!("{p}.self_attn.k_proj.weight"),
                vec![KV_HEADS * HEAD_DIM, HIDDEN],
            ),
            (
                format!("{p}.self_attn.v_proj.weight"),
                vec![KV_HEADS * HEAD_DIM, HIDDEN],
            ),
            (
                format!("{p}.self_attn.o_proj.weight"),
                vec![HIDDEN, HEADS * HEAD_DIM],
            ),
            (format!("{p}.self_attn.q_norm.weight"), vec![HEAD_DIM]),
            (format!("{p}.self_attn.k_norm.weight"), vec![HEAD_DIM]),
            (
                format!("{p}.mlp.gate_proj.weight"),
                vec![INTERMEDIATE, HIDDEN],
            ),
            (
                format!("{p}.mlp.up_proj.weight"),
                vec![INTERMEDIATE, HIDDEN],
            ),
            (
                format!("{p}.mlp.down_proj.weight"),
                vec![HIDDEN, INTERMEDIATE],
            ),
        ]);
    }
    shapes.sort();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut weights = HashMap::new();
    for (name, shape) in shapes {
        let n: usize = shape.iter().product();
        let values: Vec<f32> = if shape.len() == 1 {
            vec![1.0; n]
        } else {
            let bound = 1.0 / (shape[1] as f32).sqrt();
            (0..n)
                .map(|_| (rng.random::<f32>() * 2.0 - 1.0) * bound)
                .collect()
        };
        weights.insert(name, Tensor::from_vec(values, shape, &Device::Cpu)?);
    }
    Ok(weights)
}
