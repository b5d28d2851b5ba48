//! Tiny randomly initialised checkpoints (Qwen3, Qwen3.5 dense and Qwen3.5 MoE) with a BPE
//! tokenizer trained on world text, for tests, demos, benchmarks and CI where no real checkpoint
//! can be downloaded.

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
/// Qwen3.5's tiny shapes: four layers (three Gated DeltaNet, one full attention), two key heads
/// and four value heads in the linear layers, four experts of which two route.
const LAYERS_3_5: usize = 4;
const LINEAR_KEY_HEADS: usize = 2;
const LINEAR_VALUE_HEADS: usize = 4;
const LINEAR_HEAD_DIM: usize = 16;
const CONV_KERNEL: usize = 4;
const EXPERTS: usize = 4;
const EXPERTS_PER_TOKEN: usize = 2;
const EXPERT_WIDTH: usize = 32;

/// The architecture of a tiny checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TinyArchitecture {
    /// `Qwen3ForCausalLM`: 2 layers.
    #[default]
    Qwen3,
    /// `Qwen3_5ForCausalLM`: 4 layers, 3 Gated DeltaNet and 1 gated full attention.
    Qwen3_5,
    /// `Qwen3_5MoeForCausalLM`: as [`TinyArchitecture::Qwen3_5`], with 4 experts (2 routed per
    /// token) and a shared expert in every layer.
    Qwen3_5Moe,
}

/// Writes a tiny Qwen3 checkpoint into `dir` in the Hugging Face layout: `config.json`
/// (`Qwen3ForCausalLM`, hidden size 64, 2 layers, 4 heads, 2 key-value heads, head size 16),
/// `model.safetensors` with the standard tensor names and `tokenizer.json`, a byte-level BPE
/// tokenizer trained on `corpus_text` whose special tokens are [`TINY_SPECIAL_TOKENS`].
///
/// The same seed and corpus give byte-identical files. The weights are random, so the model
/// writes fluent-looking garbage in the corpus's vocabulary.
pub fn write_tiny(dir: &Path, seed: u64, corpus_text: &[String]) -> Result<()> {
    write_tiny_as(dir, seed, corpus_text, TinyArchitecture::Qwen3)
}

/// [`write_tiny`] for any [`TinyArchitecture`]: Qwen3.5 checkpoints follow the layout
/// transformers' `save_pretrained` writes (`qwen3_5_text` or `qwen3_5_moe_text`, `layer_types`,
/// `rope_parameters` with `partial_rotary_factor` 0.25, experts stored one by one), so
/// transformers loads them too.
pub fn write_tiny_as(
    dir: &Path,
    seed: u64,
    corpus_text: &[String],
    architecture: TinyArchitecture,
) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let tokenizer = train_tokenizer(corpus_text)?;
    let vocab_size = tokenizer.get_vocab_size(true);
    let tokenizer_path = dir.join("tokenizer.json");
    tokenizer
        .save(&tokenizer_path, false)
        .map_err(|e| Error::Tokenizer(format!("{}: {e}", tokenizer_path.display())))?;

    let bos = tokenizer.token_to_id("<|endoftext|>");
    let eos = tokenizer.token_to_id("<|im_end|>");
    let (config, shapes) = match architecture {
        TinyArchitecture::Qwen3 => (qwen3_config(vocab_size, bos, eos), qwen3_shapes(vocab_size)),
        TinyArchitecture::Qwen3_5 | TinyArchitecture::Qwen3_5Moe => {
            let moe = architecture == TinyArchitecture::Qwen3_5Moe;
            (
                qwen3_5_config(vocab_size, bos, eos, moe),
                qwen3_5_shapes(vocab_size, moe),
            )
        }
    };
    let config_path = dir.join("config.json");
    let config_text = serde_json::to_string_pretty(&config)?;
    std::fs::write(&config_path, config_text).map_err(io_error(&config_path))?;

    let weights = tiny_weights(seed, shapes)?;
    let weights_path = dir.join("model.safetensors");
    candle_core::safetensors::save(&weights, &weights_path)?;
    Ok(())
}

fn qwen3_config(vocab_size: usize, bos: Option<u32>, eos: Option<u32>) -> serde_json::Value {
    serde_json::json!({
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
        "bos_token_id": bos,
        "eos_token_id": eos,
    })
}

fn qwen3_5_config(
    vocab_size: usize,
    bos: Option<u32>,
    eos: Option<u32>,
    moe: bool,
) -> serde_json::Value {
    let mut layer_types = vec!["linear_attention"; LAYERS_3_5];
    layer_types[LAYERS_3_5 - 1] = "full_attention";
    let mut config = serde_json::json!({
        "architectures": [if moe { "Qwen3_5MoeForCausalLM" } else { "Qwen3_5ForCausalLM" }],
        "model_type": if moe { "qwen3_5_moe_text" } else { "qwen3_5_text" },
        "vocab_size": vocab_size,
        "hidden_size": HIDDEN,
        "num_hidden_layers": LAYERS_3_5,
        "num_attention_heads": HEADS,
        "num_key_value_heads": KV_HEADS,
        "head_dim": HEAD_DIM,
        "layer_types": layer_types,
        "linear_conv_kernel_dim": CONV_KERNEL,
        "linear_key_head_dim": LINEAR_HEAD_DIM,
        "linear_value_head_dim": LINEAR_HEAD_DIM,
        "linear_num_key_heads": LINEAR_KEY_HEADS,
        "linear_num_value_heads": LINEAR_VALUE_HEADS,
        "attention_bias": false,
        "max_position_embeddings": CONTEXT,
        "rope_parameters": {
            "rope_type": "default",
            "rope_theta": 10_000_000.0,
            "partial_rotary_factor": 0.25,
            "mrope_interleaved": true,
            "mrope_section": [1, 1, 0],
        },
        "tie_word_embeddings": false,
        "rms_norm_eps": 1e-6,
        "hidden_act": "silu",
        "dtype": "float32",
        "bos_token_id": bos,
        "eos_token_id": eos,
    });
    if moe {
        config["num_experts"] = EXPERTS.into();
        config["num_experts_per_tok"] = EXPERTS_PER_TOKEN.into();
        config["moe_intermediate_size"] = EXPERT_WIDTH.into();
        config["shared_expert_intermediate_size"] = EXPERT_WIDTH.into();
    } else {
        config["intermediate_size"] = INTERMEDIATE.into();
    }
    config
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

/// The tensors of the tiny Qwen3, with their Hugging Face names.
fn qwen3_shapes(vocab_size: usize) -> Vec<(String, Vec<usize>, Init)> {
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
    shapes
        .into_iter()
        .map(|(name, shape)| {
            let init = if shape.len() == 1 {
                Init::One
            } else {
                Init::Uniform
            };
            (name, shape, init)
        })
        .collect()
}

/// How a tensor is initialised.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Init {
    /// Uniform in ±1/sqrt(fan-in) (the second axis; the last for conv kernels).
    Uniform,
    /// All ones.
    One,
    /// All zeros (Qwen3.5's RMSNorm scales by `1 + weight`).
    Zero,
    /// `log(u)` with `u` uniform in [1, 16] (DeltaNet's `A_log`, as transformers draws it).
    LogDecay,
}

/// The tensors of a tiny Qwen3.5 (dense or MoE), with their Hugging Face names.
fn qwen3_5_shapes(vocab_size: usize, moe: bool) -> Vec<(String, Vec<usize>, Init)> {
    use Init::{LogDecay, One, Uniform, Zero};
    let key = LINEAR_KEY_HEADS * LINEAR_HEAD_DIM;
    let value = LINEAR_VALUE_HEADS * LINEAR_HEAD_DIM;
    let channels = 2 * key + value;
    let mut shapes = vec![
        (
            "model.embed_tokens.weight".to_string(),
            vec![vocab_size, HIDDEN],
            Uniform,
        ),
        ("model.norm.weight".to_string(), vec![HIDDEN], Zero),
        (
            "lm_head.weight".to_string(),
            vec![vocab_size, HIDDEN],
            Uniform,
        ),
    ];
    let mut add = |name: String, shape: Vec<usize>, init: Init| shapes.push((name, shape, init));
    for layer in 0..LAYERS_3_5 {
        let p = format!("model.layers.{layer}");
        add(format!("{p}.input_layernorm.weight"), vec![HIDDEN], Zero);
        add(
            format!("{p}.post_attention_layernorm.weight"),
            vec![HIDDEN],
            Zero,
        );
        if layer == LAYERS_3_5 - 1 {
            let a = format!("{p}.self_attn");
            add(
                format!("{a}.q_proj.weight"),
                vec![2 * HEADS * HEAD_DIM, HIDDEN],
                Uniform,
            );
            add(
                format!("{a}.k_proj.weight"),
                vec![KV_HEADS * HEAD_DIM, HIDDEN],
                Uniform,
            );
            add(
                format!("{a}.v_proj.weight"),
                vec![KV_HEADS * HEAD_DIM, HIDDEN],
                Uniform,
            );
            add(
                format!("{a}.o_proj.weight"),
                vec![HIDDEN, HEADS * HEAD_DIM],
                Uniform,
            );
            add(format!("{a}.q_norm.weight"), vec![HEAD_DIM], Zero);
            add(format!("{a}.k_norm.weight"), vec![HEAD_DIM], Zero);
        } else {
            let l = format!("{p}.linear_attn");
            add(
                format!("{l}.in_proj_qkv.weight"),
                vec![channels, HIDDEN],
                Uniform,
            );
            add(
                format!("{l}.in_proj_z.weight"),
                vec![value, HIDDEN],
                Uniform,
            );
            add(
                format!("{l}.in_proj_b.weight"),
                vec![LINEAR_VALUE_HEADS, HIDDEN],
                Uniform,
            );
            add(
                format!("{l}.in_proj_a.weight"),
                vec![LINEAR_VALUE_HEADS, HIDDEN],
                Uniform,
            );
            add(
                format!("{l}.conv1d.weight"),
                vec![channels, 1, CONV_KERNEL],
                Uniform,
            );
            add(format!("{l}.A_log"), vec![LINEAR_VALUE_HEADS], LogDecay);
            add(format!("{l}.dt_bias"), vec![LINEAR_VALUE_HEADS], One);
            add(format!("{l}.norm.weight"), vec![LINEAR_HEAD_DIM], One);
            add(format!("{l}.out_proj.weight"), vec![HIDDEN, value], Uniform);
        }
        let m = format!("{p}.mlp");
        let mut mlp = |prefix: &str, width: usize| {
            add(
                format!("{prefix}.gate_proj.weight"),
                vec![width, HIDDEN],
                Uniform,
            );
            add(
                format!("{prefix}.up_proj.weight"),
                vec![width, HIDDEN],
                Uniform,
            );
            add(
                format!("{prefix}.down_proj.weight"),
                vec![HIDDEN, width],
                Uniform,
            );
        };
        if moe {
            for e in 0..EXPERTS {
                mlp(&format!("{m}.experts.{e}"), EXPERT_WIDTH);
            }
            mlp(&format!("{m}.shared_expert"), EXPERT_WIDTH);
            add(format!("{m}.gate.weight"), vec![EXPERTS, HIDDEN], Uniform);
            add(
                format!("{m}.shared_expert_gate.weight"),
                vec![1, HIDDEN],
                Uniform,
            );
        } else {
            mlp(&m, INTERMEDIATE);
        }
    }
    shapes
}

/// Random weights for `shapes`, filled in name order so the values depend on the seed alone.
fn tiny_weights(
    seed: u64,
    mut shapes: Vec<(String, Vec<usize>, Init)>,
) -> Result<HashMap<String, Tensor>> {
    shapes.sort_by(|a, b| a.0.cmp(&b.0));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut weights = HashMap::new();
    for (name, shape, init) in shapes {
        let n: usize = shape.iter().product();
        let values: Vec<f32> = match init {
            Init::One => vec![1.0; n],
            Init::Zero => vec![0.0; n],
            Init::LogDecay => (0..n)
                .map(|_| (1.0 + 15.0 * rng.random::<f32>()).ln())
                .collect(),
            Init::Uniform => {
                let fan_in = if shape.len() == 3 { shape[2] } else { shape[1] };
                let bound = 1.0 / (fan_in as f32).sqrt();
                (0..n)
                    .map(|_| (rng.random::<f32>() * 2.0 - 1.0) * bound)
                    .collect()
            }
        };
        weights.insert(name, Tensor::from_vec(values, shape, &Device::Cpu)?);
    }
    Ok(weights)
}
