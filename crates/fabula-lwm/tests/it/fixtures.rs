//! Shared fixtures: a small hand-written world, and Qwen3 checkpoints written by the tests
//! themselves (independently of `write_tiny`) in the Hugging Face and GGUF layouts.

use std::collections::BTreeMap;
use std::path::Path;

use candle_core::quantized::{GgmlDType, QTensor, gguf_file};
use candle_core::{Device, Tensor};
use fabula_file::PageKind;
use fabula_lwm::{MemoryWorld, Page, PageFact, ValueKind};
use safetensors::Dtype;
use safetensors::tensor::TensorView;

pub const KEST: &str = "https://w-test.fab/wiki/Kest";
pub const MARO: &str = "https://w-test.fab/wiki/Maro_Venn";
pub const QUAY_NEWS: &str = "https://w-test.fab/news/2031-04-02-kest-opens-tesh-quay";

fn fact(shown: &str, value_kind: ValueKind) -> PageFact {
    PageFact {
        table: "cells".to_string(),
        row_id: 1,
        column: shown.to_string(),
        shown: shown.to_string(),
        value_kind,
    }
}

/// Three pages of a river city-state: an entity article, a person, a dated news report.
pub fn world() -> MemoryWorld {
    let mut world = MemoryWorld::new("w-test");
    world.insert(Page {
        url: KEST.to_string(),
        title: "Kest".to_string(),
        kind: PageKind::Entity,
        published: None,
        body: "# Kest\n\n**Kest** is a river city-state on the Orun delta. It was founded in 1204 \
               by [Maro Venn](https://w-test.fab/wiki/Maro_Venn) and had a population of 12,345 \
               in 1410.\n\n## Infobox\n\n- Founded: 1204\n- Founder: Maro Venn\n\
               - Population: 12,345\n- Harbour: Tesh Quay\n"
            .to_string(),
        facts: vec![
            fact("Kest", ValueKind::Name),
            fact("river city-state", ValueKind::Text),
            fact("Orun", ValueKind::Entity),
            fact("1204", ValueKind::Year),
            fact("Maro Venn", ValueKind::Entity),
            fact("12,345", ValueKind::Number),
            fact("1410", ValueKind::Year),
            fact("Tesh Quay", ValueKind::Entity),
        ],
    });
    world.insert(Page {
        url: MARO.to_string(),
        title: "Maro Venn".to_string(),
        kind: PageKind::Entity,
        published: None,
        body: "# Maro Venn\n\n**Maro Venn** was the founder of Kest. Born in 1170 in Sarn, Venn \
               led the delta clans for 34 years.\n"
            .to_string(),
        facts: vec![
            fact("Maro Venn", ValueKind::Name),
            fact("Kest", ValueKind::Entity),
            fact("1170", ValueKind::Year),
            fact("Sarn", ValueKind::Entity),
            fact("34", ValueKind::Number),
        ],
    });
    world.insert(Page {
        url: QUAY_NEWS.to_string(),
        title: "Kest opens Tesh Quay".to_string(),
        kind: PageKind::News,
        published: Some("2031-04-02".to_string()),
        body: "# Kest opens Tesh Quay\n\nOn April 2, 2031, the city of Kest opened Tesh Quay, a \
               harbour of 38 berths built by Ilsa Dorn.\n"
            .to_string(),
        facts: vec![
            fact("Kest", ValueKind::Entity),
            fact("Tesh Quay", ValueKind::Name),
            fact("April 2, 2031", ValueKind::Date),
            fact("38", ValueKind::Number),
            fact("Ilsa Dorn", ValueKind::Entity),
        ],
    });
    world
}

/// The world's text, for training tokenizers.
pub fn corpus(world: &MemoryWorld) -> Vec<String> {
    world
        .pages
        .values()
        .flat_map(|p| [p.title.clone(), p.body.clone()])
        .collect()
}

/// The template search observation for "kest founder" at partial hiding.
pub fn search_template() -> String {
    format!(
        "## Query: kest founder\n\n\
         [1] {KEST}\nTitle: Kest\nSnippet: Kest is a river city-state on the … delta. It was \
         founded in … by …\nDate: N/A\n\n\
         [2] {MARO}\nTitle: Maro Venn\nSnippet: Maro Venn was the founder of … Born in …\n\
         Date: N/A\n"
    )
}

/// Dimensions of the test checkpoints.
pub struct Dims {
    pub vocab: usize,
    pub hidden: usize,
    pub intermediate: usize,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    pub experts: usize,
}

pub const DIMS: Dims = Dims {
    vocab: 261,
    hidden: 32,
    intermediate: 64,
    layers: 2,
    heads: 4,
    kv_heads: 2,
    head_dim: 8,
    experts: 4,
};

/// A deterministic stream of floats in [-0.25, 0.25) from a 64-bit LCG.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.5
    }
}

/// HF-named tensors of a dense or MoE Qwen3 model: (name, shape, values).
pub fn hf_tensors(seed: u64, moe: bool) -> Vec<(String, Vec<usize>, Vec<f32>)> {
    let d = DIMS;
    let mut shapes: Vec<(String, Vec<usize>)> = vec![
        ("model.embed_tokens.weight".into(), vec![d.vocab, d.hidden]),
        ("model.norm.weight".into(), vec![d.hidden]),
        ("lm_head.weight".into(), vec![d.vocab, d.hidden]),
    ];
    for l in 0..d.layers {
        let p = format!("model.layers.{l}");
        shapes.push((format!("{p}.input_layernorm.weight"), vec![d.hidden]));
        shapes.push((
            format!("{p}.post_attention_layernorm.weight"),
            vec![d.hidden],
        ));
        let q = d.heads * d.head_dim;
        let kv = d.kv_heads * d.head_dim;
        shapes.push((format!("{p}.self_attn.q_proj.weight"), vec![q, d.hidden]));
        shapes.push((format!("{p}.self_attn.k_proj.weight"), vec![kv, d.hidden]));
        shapes.push((format!("{p}.self_attn.v_proj.weight"), vec![kv, d.hidden]));
        shapes.push((format!("{p}.self_attn.o_proj.weight"), vec![d.hidden, q]));
        shapes.push((format!("{p}.self_attn.q_norm.weight"), vec![d.head_dim]));
        shapes.push((format!("{p}.self_attn.k_norm.weight"), vec![d.head_dim]));
        let mlps: Vec<String> = if moe {
            shapes.push((format!("{p}.mlp.gate.weight"), vec![d.experts, d.hidden]));
            (0..d.experts)
                .map(|e| format!("{p}.mlp.experts.{e}"))
                .collect()
        } else {
            vec![format!("{p}.mlp")]
        };
        for m in mlps {
            shapes.push((
                format!("{m}.gate_proj.weight"),
                vec![d.intermediate, d.hidden],
            ));
            shapes.push((
                format!("{m}.up_proj.weight"),
                vec![d.intermediate, d.hidden],
            ));
            shapes.push((
                format!("{m}.down_proj.weight"),
                vec![d.hidden, d.intermediate],
            ));
        }
    }
    let mut lcg = Lcg(seed);
    shapes
        .into_iter()
        .map(|(name, shape)| {
            let n: usize = shape.iter().product();
            let values = if shape.len() == 1 {
                (0..n).map(|_| 1.0 + lcg.next() * 0.2).collect()
            } else {
                (0..n).map(|_| lcg.next()).collect()
            };
            (name, shape, values)
        })
        .collect()
}

/// A `config.json` for the test dimensions.
pub fn config_json(architecture: &str) -> serde_json::Value {
    let d = DIMS;
    serde_json::json!({
        "architectures": [architecture],
        "vocab_size": d.vocab,
        "hidden_size": d.hidden,
        "intermediate_size": d.intermediate,
        "num_hidden_layers": d.layers,
        "num_attention_heads": d.heads,
        "num_key_value_heads": d.kv_heads,
        "head_dim": d.head_dim,
        "max_position_embeddings": 512,
        "rope_theta": 10000.0,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": false,
        "num_experts": d.experts,
        "num_experts_per_tok": 2,
        "moe_intermediate_size": d.intermediate,
        "decoder_sparse_step": 1,
        "norm_topk_prob": true,
    })
}

/// A byte-level BPE tokenizer without merges, written as JSON by hand: the 256 byte symbols
/// (ids 0-255) and five special tokens (ids 256-260).
pub fn write_tokenizer(dir: &Path) {
    let mut alphabet: Vec<char> = tokenizers::pre_tokenizers::byte_level::ByteLevel::alphabet()
        .into_iter()
        .collect();
    alphabet.sort();
    let vocab: BTreeMap<String, usize> = alphabet
        .iter()
        .enumerate()
        .map(|(id, c)| (c.to_string(), id))
        .collect();
    let specials = [
        "<|endoftext|>",
        "<|im_start|>",
        "<|im_end|>",
        "<think>",
        "</think>",
    ];
    let added: Vec<serde_json::Value> = specials
        .iter()
        .enumerate()
        .map(|(i, content)| {
            serde_json::json!({"id": 256 + i, "content": content, "single_word": false,
                "lstrip": false, "rstrip": false, "normalized": false, "special": true})
        })
        .collect();
    let byte_level = serde_json::json!({"type": "ByteLevel", "add_prefix_space": false,
        "trim_offsets": true, "use_regex": true});
    let tokenizer = serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": added,
        "normalizer": null, "pre_tokenizer": byte_level, "post_processor": null,
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": null, "unk_token": null,
            "continuing_subword_prefix": null, "end_of_word_suffix": null, "fuse_unk": false,
            "byte_fallback": false, "ignore_merges": false, "vocab": vocab, "merges": []},
    });
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string()).unwrap();
}

fn write_safetensors(path: &Path, tensors: &[(String, Vec<usize>, Vec<f32>)]) {
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = tensors
        .iter()
        .map(|(name, shape, values)| {
            let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            (name.clone(), shape.clone(), data)
        })
        .collect();
    let views: Vec<(String, TensorView<'_>)> = bytes
        .iter()
        .map(|(name, shape, data)| {
            (
                name.clone(),
                TensorView::new(Dtype::F32, shape.clone(), data).unwrap(),
            )
        })
        .collect();
    safetensors::serialize_to_file(views, None, path).unwrap();
}

/// Writes a Hugging Face checkpoint: `config.json`, `tokenizer.json` and either
/// `model.safetensors` (`shards == 1`) or `shards` files with `model.safetensors.index.json`.
pub fn write_checkpoint(dir: &Path, architecture: &str, seed: u64, shards: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let moe = architecture == "Qwen3MoeForCausalLM";
    let tensors = hf_tensors(seed, moe);
    std::fs::write(
        dir.join("config.json"),
        config_json(architecture).to_string(),
    )
    .unwrap();
    write_tokenizer(dir);
    if shards == 1 {
        write_safetensors(&dir.join("model.safetensors"), &tensors);
        return;
    }
    let mut weight_map = serde_json::Map::new();
    let per_shard = tensors.len().div_ceil(shards);
    for (idx, chunk) in tensors.chunks(per_shard).enumerate() {
        let file = format!("model-{:05}-of-{:05}.safetensors", idx + 1, shards);
        write_safetensors(&dir.join(&file), chunk);
        for (name, _, _) in chunk {
            weight_map.insert(name.clone(), serde_json::Value::from(file.clone()));
        }
    }
    let index = serde_json::json!({"metadata": {"total_size": 0}, "weight_map": weight_map});
    std::fs::write(dir.join("model.safetensors.index.json"), index.to_string()).unwrap();
}

/// The GGUF name of an HF tensor name.
fn gguf_name(name: &str) -> String {
    match name {
        "model.embed_tokens.weight" => return "token_embd.weight".into(),
        "model.norm.weight" => return "output_norm.weight".into(),
        "lm_head.weight" => return "output.weight".into(),
        _ => {}
    }
    let rest = name.strip_prefix("model.layers.").unwrap();
    let (layer, rest) = rest.split_once('.').unwrap();
    let part = match rest {
        "input_layernorm.weight" => "attn_norm",
        "post_attention_layernorm.weight" => "ffn_norm",
        "self_attn.q_proj.weight" => "attn_q",
        "self_attn.k_proj.weight" => "attn_k",
        "self_attn.v_proj.weight" => "attn_v",
        "self_attn.o_proj.weight" => "attn_output",
        "self_attn.q_norm.weight" => "attn_q_norm",
        "self_attn.k_norm.weight" => "attn_k_norm",
        "mlp.gate_proj.weight" => "ffn_gate",
        "mlp.up_proj.weight" => "ffn_up",
        "mlp.down_proj.weight" => "ffn_down",
        other => panic!("no GGUF name for {other}"),
    };
    format!("blk.{layer}.{part}.weight")
}

/// Writes the dense test model as a quantized GGUF file (matrices in Q8_0, norms and the
/// embedding in F32) plus `tokenizer.json` beside it.
pub fn write_gguf(dir: &Path, seed: u64) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    write_tokenizer(dir);
    let d = DIMS;
    let mut qtensors = Vec::new();
    for (name, shape, values) in hf_tensors(seed, false) {
        let tensor = Tensor::from_vec(values, shape.as_slice(), &Device::Cpu).unwrap();
        let quantized = shape.len() == 2 && name != "model.embed_tokens.weight";
        let dtype = if quantized {
            GgmlDType::Q8_0
        } else {
            GgmlDType::F32
        };
        qtensors.push((gguf_name(&name), QTensor::quantize(&tensor, dtype).unwrap()));
    }
    let u32v = |v: usize| gguf_file::Value::U32(v as u32);
    let metadata = [
        (
            "general.architecture",
            gguf_file::Value::String("qwen3".into()),
        ),
        ("general.dtype", gguf_file::Value::U32(0)),
        ("qwen3.attention.head_count", u32v(d.heads)),
        ("qwen3.attention.head_count_kv", u32v(d.kv_heads)),
        ("qwen3.attention.key_length", u32v(d.head_dim)),
        ("qwen3.block_count", u32v(d.layers)),
        ("qwen3.embedding_length", u32v(d.hidden)),
        ("qwen3.context_length", u32v(512)),
        (
            "qwen3.attention.layer_norm_rms_epsilon",
            gguf_file::Value::F32(1e-6),
        ),
        ("qwen3.rope.freq_base", gguf_file::Value::F32(10000.0)),
    ];
    let metadata: Vec<(&str, &gguf_file::Value)> = metadata.iter().map(|(k, v)| (*k, v)).collect();
    let tensors: Vec<(&str, &QTensor)> = qtensors.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let path = dir.join("tiny-q8_0.gguf");
    let mut file = std::fs::File::create(&path).unwrap();
    gguf_file::write(&mut file, &metadata, &tensors).unwrap();
    path
}

/// The largest absolute difference between two logit vectors of one length.
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}
