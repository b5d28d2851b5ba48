//! Loading Qwen3 and Qwen3.5 checkpoints (dense and MoE safetensors, quantized Qwen3 GGUF) with
//! their tokenizer.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use candle_core::quantized::gguf_file;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::{quantized_qwen3, qwen3, qwen3_moe};
use serde_json::{Map, Value};
use tokenizers::Tokenizer;

use crate::error::{Error, Result, io_error};
use crate::load::{DeviceChoice, LoadOptions, Precision};
use crate::qwen3_5::{self, Qwen35};

/// The architectures the loader understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Architecture {
    /// `Qwen3ForCausalLM` in safetensors.
    Qwen3,
    /// `Qwen3MoeForCausalLM` in safetensors.
    Qwen3Moe,
    /// A quantized Qwen3 GGUF file (`general.architecture = qwen3`).
    QuantizedQwen3,
    /// `Qwen3_5ForCausalLM` (`qwen3_5_text`) or the text part of
    /// `Qwen3_5ForConditionalGeneration`, in safetensors.
    Qwen3_5,
    /// `Qwen3_5MoeForCausalLM` (`qwen3_5_moe_text`) or the text part of
    /// `Qwen3_5MoeForConditionalGeneration` (the seed's world model), in safetensors.
    Qwen3_5Moe,
}

impl Architecture {
    /// The `model_type` of the (text) model.
    pub fn model_type(self) -> &'static str {
        match self {
            Architecture::Qwen3 => "qwen3",
            Architecture::Qwen3Moe => "qwen3_moe",
            Architecture::QuantizedQwen3 => "qwen3 (GGUF)",
            Architecture::Qwen3_5 => "qwen3_5_text",
            Architecture::Qwen3_5Moe => "qwen3_5_moe_text",
        }
    }
}

enum Weights {
    Dense(qwen3::ModelForCausalLM),
    Moe(qwen3_moe::ModelForCausalLM),
    Quantized(quantized_qwen3::ModelWeights),
    Qwen35(Box<Qwen35>),
}

/// A loaded causal language model and its tokenizer.
pub struct Model {
    weights: Weights,
    pub(crate) tokenizer: Tokenizer,
    architecture: Architecture,
    device: Device,
    context: usize,
    vocab_size: usize,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("architecture", &self.architecture)
            .field("device", &self.device)
            .field("context", &self.context)
            .field("vocab_size", &self.vocab_size)
            .finish_non_exhaustive()
    }
}

impl Model {
    /// Loads a checkpoint.
    ///
    /// `path` is either a Hugging Face style folder (`config.json`, `tokenizer.json` and
    /// `model.safetensors` or shards listed in `model.safetensors.index.json`), a folder holding
    /// one `*.gguf` file and `tokenizer.json`, or a `.gguf` file with `tokenizer.json` beside it.
    pub fn load(path: &Path, options: &LoadOptions) -> Result<Model> {
        let device = candle_device(options.device)?;
        if path.is_file() {
            return load_gguf(path, &device);
        }
        if !path.is_dir() {
            return Err(missing(path, "the checkpoint folder or file itself"));
        }
        if path.join("config.json").is_file() {
            return load_safetensors(path, &device, options.dtype);
        }
        let ggufs = files_with_extension(path, "gguf")?;
        match ggufs.as_slice() {
            [gguf] => load_gguf(gguf, &device),
            [] => Err(missing(path, "config.json (or a single *.gguf file)")),
            _ => Err(Error::Unsupported(format!(
                "{} holds {} GGUF files; pass the file to load",
                path.display(),
                ggufs.len()
            ))),
        }
    }

    /// The architecture that was loaded.
    pub fn architecture(&self) -> Architecture {
        self.architecture
    }

    /// The context window in tokens (`max_position_embeddings`).
    pub fn context(&self) -> usize {
        self.context
    }

    /// The size of the output vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.vocab_size
    }

    /// The tokenizer that came with the checkpoint.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Encodes text without adding any special tokens around it.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        let encoding = self
            .tokenizer
            .encode(text, false)
            .map_err(|e| Error::Tokenizer(e.to_string()))?;
        Ok(encoding.get_ids().to_vec())
    }

    /// Decodes token ids, dropping special tokens.
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        self.tokenizer
            .decode(ids, true)
            .map_err(|e| Error::Tokenizer(e.to_string()))
    }

    /// Empties the KV cache, so the next [`Model::forward_logits`] starts a new sequence.
    pub fn clear_cache(&mut self) {
        match &mut self.weights {
            Weights::Dense(m) => m.clear_kv_cache(),
            Weights::Moe(m) => m.clear_kv_cache(),
            Weights::Quantized(m) => m.clear_kv_cache(),
            Weights::Qwen35(m) => m.clear_cache(),
        }
    }

    /// Runs `tokens` through the model at position `offset` (the number of tokens already in the
    /// KV cache), appends them to the cache, and returns the logits of the last position as f32.
    pub fn forward_logits(&mut self, tokens: &[u32], offset: usize) -> Result<Vec<f32>> {
        if tokens.is_empty() {
            return Err(Error::Unsupported(
                "a forward pass needs at least one token".into(),
            ));
        }
        let input = Tensor::new(tokens, &self.device)?.unsqueeze(0)?;
        let logits = match &mut self.weights {
            Weights::Dense(m) => m.forward(&input, offset)?,
            Weights::Moe(m) => m.forward(&input, offset)?,
            Weights::Quantized(m) => m.forward(&input, offset)?,
            Weights::Qwen35(m) => m.forward(&input, offset)?,
        };
        Ok(logits
            .flatten_all()?
            .to_dtype(DType::F32)?
            .to_vec1::<f32>()?)
    }
}

fn candle_device(choice: DeviceChoice) -> Result<Device> {
    match choice {
        DeviceChoice::Cpu => Ok(Device::Cpu),
        DeviceChoice::Cuda(ordinal) => {
            if !cfg!(feature = "cuda") {
                return Err(Error::Unsupported(
                    "CUDA was requested but fabula-lwm was built without its `cuda` feature".into(),
                ));
            }
            Ok(Device::new_cuda(ordinal)?)
        }
    }
}

fn candle_dtype(precision: Option<Precision>, device: &Device) -> DType {
    match precision {
        Some(Precision::F32) => DType::F32,
        Some(Precision::Bf16) => DType::BF16,
        Some(Precision::F16) => DType::F16,
        None if device.is_cpu() => DType::F32,
        None => DType::BF16,
    }
}

fn missing(path: &Path, what: &str) -> Error {
    Error::Missing {
        path: path.to_path_buf(),
        what: what.to_string(),
    }
}

fn metadata_error(path: &Path, message: impl Into<String>) -> Error {
    Error::Metadata {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

fn files_with_extension(dir: &Path, extension: &str) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
        let path = entry.map_err(io_error(dir))?.path();
        if path.is_file() && path.extension().is_some_and(|e| e == extension) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Loads `tokenizer.json` from `dir`.
pub(crate) fn load_tokenizer(dir: &Path) -> Result<Tokenizer> {
    let path = dir.join("tokenizer.json");
    if !path.is_file() {
        return Err(missing(dir, "tokenizer.json"));
    }
    Tokenizer::from_file(&path).map_err(|e| Error::Tokenizer(format!("{}: {e}", path.display())))
}

fn read_json(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(io_error(path))?;
    serde_json::from_str(&text).map_err(|e| metadata_error(path, e.to_string()))
}

fn load_safetensors(dir: &Path, device: &Device, precision: Option<Precision>) -> Result<Model> {
    let config_path = dir.join("config.json");
    let config = read_json(&config_path)?;
    let architecture = architecture_of(&config_path, &config)?;
    let tokenizer = load_tokenizer(dir)?;
    let tensors = read_weights(dir, device)?;
    let dtype = candle_dtype(precision, device);
    let vb = VarBuilder::from_tensors(tensors, dtype, device);
    if matches!(
        architecture,
        Architecture::Qwen3_5 | Architecture::Qwen3_5Moe
    ) {
        let cfg = qwen3_5::Config::from_json(&config)
            .map_err(|e| metadata_error(&config_path, e.to_string()))?;
        let architecture = if cfg.is_moe() {
            Architecture::Qwen3_5Moe
        } else {
            Architecture::Qwen3_5
        };
        return Ok(Model {
            weights: Weights::Qwen35(Box::new(Qwen35::new(&cfg, vb)?)),
            tokenizer,
            architecture,
            device: device.clone(),
            context: cfg.max_position_embeddings,
            vocab_size: cfg.vocab_size,
        });
    }
    let config = with_defaults(&config_path, config)?;
    let context = usize_field(&config, "max_position_embeddings");
    let vocab_size = usize_field(&config, "vocab_size");
    let weights = match architecture {
        Architecture::Qwen3 => {
            let cfg: qwen3::Config = serde_json::from_value(config)
                .map_err(|e| metadata_error(&config_path, e.to_string()))?;
            Weights::Dense(qwen3::ModelForCausalLM::new(&cfg, vb)?)
        }
        Architecture::Qwen3Moe => {
            let cfg: qwen3_moe::Config = serde_json::from_value(config)
                .map_err(|e| metadata_error(&config_path, e.to_string()))?;
            Weights::Moe(qwen3_moe::ModelForCausalLM::new(&cfg, vb)?)
        }
        Architecture::QuantizedQwen3 | Architecture::Qwen3_5 | Architecture::Qwen3_5Moe => {
            unreachable!("GGUF and Qwen3.5 checkpoints load above")
        }
    };
    Ok(Model {
        weights,
        tokenizer,
        architecture,
        device: device.clone(),
        context,
        vocab_size,
    })
}

fn usize_field(config: &Value, name: &str) -> usize {
    config[name].as_u64().unwrap_or(0) as usize
}

/// Reads the `architectures` entry of a `config.json`.
fn architecture_of(path: &Path, config: &Value) -> Result<Architecture> {
    let Some(names) = config.get("architectures").and_then(Value::as_array) else {
        return Err(metadata_error(path, "no `architectures` list"));
    };
    let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
    for name in &names {
        match *name {
            "Qwen3ForCausalLM" => return Ok(Architecture::Qwen3),
            "Qwen3MoeForCausalLM" => return Ok(Architecture::Qwen3Moe),
            // Dense or MoE is read off the config (its expert counts) once it is parsed.
            "Qwen3_5ForCausalLM" | "Qwen3_5ForConditionalGeneration" => {
                return Ok(Architecture::Qwen3_5);
            }
            "Qwen3_5MoeForCausalLM" | "Qwen3_5MoeForConditionalGeneration" => {
                return Ok(Architecture::Qwen3_5Moe);
            }
            _ => {}
        }
    }
    Err(Error::Unsupported(format!(
        "{}: architectures {names:?}; supported are Qwen3ForCausalLM, Qwen3MoeForCausalLM, \
         Qwen3_5ForCausalLM, Qwen3_5MoeForCausalLM and their ForConditionalGeneration forms \
         (text only)",
        path.display()
    )))
}

/// Fills the fields candle's Qwen3 configs require but some `config.json` files leave out, with
/// the values Hugging Face transformers assumes for them.
fn with_defaults(path: &Path, config: Value) -> Result<Value> {
    let Value::Object(mut map) = config else {
        return Err(metadata_error(path, "config.json is not a JSON object"));
    };
    for field in [
        "vocab_size",
        "hidden_size",
        "intermediate_size",
        "num_hidden_layers",
        "num_attention_heads",
    ] {
        if !map.get(field).is_some_and(Value::is_u64) {
            return Err(metadata_error(
                path,
                format!("missing or invalid `{field}`"),
            ));
        }
    }
    let get = |map: &Map<String, Value>, name: &str| map[name].as_u64().unwrap_or(0);
    let heads = get(&map, "num_attention_heads");
    let layers = get(&map, "num_hidden_layers");
    let hidden = get(&map, "hidden_size");
    let defaults = [
        ("head_dim", Value::from(hidden / heads.max(1))),
        ("num_key_value_heads", Value::from(heads)),
        ("attention_bias", Value::from(false)),
        ("max_position_embeddings", Value::from(32768)),
        ("max_window_layers", Value::from(layers)),
        ("tie_word_embeddings", Value::from(false)),
        ("rope_theta", Value::from(1_000_000.0)),
        ("rms_norm_eps", Value::from(1e-6)),
        ("use_sliding_window", Value::from(false)),
        ("hidden_act", Value::from("silu")),
        ("decoder_sparse_step", Value::from(1)),
        ("norm_topk_prob", Value::from(true)),
    ];
    for (name, value) in defaults {
        if map.get(name).is_none_or(Value::is_null) {
            map.insert(name.to_string(), value);
        }
    }
    Ok(Value::Object(map))
}

/// Reads `model.safetensors`, or every shard named by `model.safetensors.index.json`.
fn read_weights(dir: &Path, device: &Device) -> Result<HashMap<String, Tensor>> {
    let index_path = dir.join("model.safetensors.index.json");
    if index_path.is_file() {
        return read_sharded(dir, &index_path, device);
    }
    let single = dir.join("model.safetensors");
    if single.is_file() {
        return read_safetensors_file(&single, device);
    }
    Err(missing(
        dir,
        "model.safetensors (or model.safetensors.index.json with its shards)",
    ))
}

fn read_sharded(dir: &Path, index_path: &Path, device: &Device) -> Result<HashMap<String, Tensor>> {
    let index = read_json(index_path)?;
    let Some(weight_map) = index.get("weight_map").and_then(Value::as_object) else {
        return Err(metadata_error(index_path, "no `weight_map` object"));
    };
    let mut shards = BTreeSet::new();
    for (name, file) in weight_map {
        let Some(file) = file.as_str() else {
            return Err(metadata_error(
                index_path,
                format!("`{name}` maps to a non-string"),
            ));
        };
        shards.insert(file.to_string());
    }
    for shard in &shards {
        if !dir.join(shard).is_file() {
            return Err(missing(dir, &format!("shard {shard} listed in the index")));
        }
    }
    let mut tensors = HashMap::new();
    for shard in &shards {
        tensors.extend(read_safetensors_file(&dir.join(shard), device)?);
    }
    for name in weight_map.keys() {
        if !tensors.contains_key(name) {
            return Err(missing(
                dir,
                &format!("tensor {name} (the index names {})", weight_map[name]),
            ));
        }
    }
    Ok(tensors)
}

/// Reads one safetensors file into memory. The file is read rather than memory-mapped because the
/// workspace forbids `unsafe`; this costs one copy of the weights in host memory while loading.
fn read_safetensors_file(path: &Path, device: &Device) -> Result<HashMap<String, Tensor>> {
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    candle_core::safetensors::load_buffer(&bytes, device)
        .map_err(|e| metadata_error(path, format!("not a readable safetensors file: {e}")))
}

fn load_gguf(path: &Path, device: &Device) -> Result<Model> {
    if path.extension().is_none_or(|e| e != "gguf") {
        return Err(Error::Unsupported(format!(
            "{}: a checkpoint file must be a .gguf file",
            path.display()
        )));
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let tokenizer = load_tokenizer(dir)?;
    let mut file = std::fs::File::open(path).map_err(io_error(path))?;
    let content = gguf_file::Content::read(&mut file)
        .map_err(|e| metadata_error(path, format!("not a readable GGUF file: {e}")))?;
    let architecture = content
        .metadata
        .get("general.architecture")
        .and_then(|v| v.to_string().ok())
        .cloned()
        .unwrap_or_default();
    if architecture != "qwen3" {
        return Err(Error::Unsupported(format!(
            "{}: GGUF architecture {architecture:?}; supported is qwen3",
            path.display()
        )));
    }
    let context = content
        .metadata
        .get("qwen3.context_length")
        .and_then(|v| v.to_u32().ok())
        .unwrap_or(0) as usize;
    let vocab_size = content
        .tensor_infos
        .get("token_embd.weight")
        .map(|info| info.shape.dims()[0])
        .ok_or_else(|| missing(path, "tensor token_embd.weight"))?;
    let weights = quantized_qwen3::ModelWeights::from_gguf(content, &mut file, device)?;
    Ok(Model {
        weights: Weights::Quantized(weights),
        tokenizer,
        architecture: Architecture::QuantizedQwen3,
        device: device.clone(),
        context,
        vocab_size,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_architecture_is_named() {
        let config = serde_json::json!({"architectures": ["LlamaForCausalLM"]});
        let err = architecture_of(Path::new("config.json"), &config).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("LlamaForCausalLM"), "{message}");
        assert!(message.contains("Qwen3ForCausalLM"), "{message}");
    }

    #[test]
    fn defaults_fill_missing_fields_only() {
        let config = serde_json::json!({
            "vocab_size": 10, "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "rope_theta": 10000.0,
        });
        let filled = with_defaults(Path::new("config.json"), config).unwrap();
        assert_eq!(filled["head_dim"], 16);
        assert_eq!(filled["rope_theta"], 10000.0);
        assert_eq!(filled["hidden_act"], "silu");
    }

    #[test]
    fn cuda_without_feature_is_a_clear_error() {
        if cfg!(feature = "cuda") {
            return;
        }
        let err = candle_device(DeviceChoice::Cuda(0)).unwrap_err();
        assert!(err.to_string().contains("`cuda` feature"));
    }
}
