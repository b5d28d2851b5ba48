//! Qwen3.5 text models in candle: `qwen3_5_text` (dense) and `qwen3_5_moe_text` (sparse MoE),
//! the architecture of the seed's world model (Qwen-AgentWorld-35B-A3B, `qwen3_5_moe`).
//!
//! candle-transformers 0.11 has no Qwen3.5, and no crate offers it on candle as a library
//! (mistral.rs's and vllm.rs's ports live inside their engines), so the model is written here,
//! following Hugging Face transformers' reference (`modeling_qwen3_5*.py`), which CI checks it
//! against (`tests/python/qwen3_5`):
//!
//! - **Hybrid layers.** `layer_types` (or every `full_attention_interval`-th layer) picks a
//!   Gated DeltaNet linear-attention layer or a full-attention layer; every layer ends in the
//!   same MLP (dense, or routed experts plus a sigmoid-gated shared expert).
//! - **Gated DeltaNet.** A depthwise causal conv1d (width `linear_conv_kernel_dim`, SiLU) over
//!   the projected q, k, v; L2-normalised q and k (repeated to the value heads); the gated delta
//!   rule with decay `g = -exp(A_log) * softplus(a + dt_bias)` and write strength
//!   `beta = sigmoid(b)`; a gated RMSNorm (`norm(o) * silu(z)`) and the output projection. A
//!   prompt runs through the chunked form (64-token chunks, the within-chunk system solved by
//!   forward substitution), a decoded token through the recurrent form; both carry a conv state
//!   (the last `kernel - 1` inputs) and a recurrent state (`[heads, key dim, value dim]`), kept
//!   in f32 whatever the weights' type.
//! - **Gated attention.** `q_proj` yields the query and a per-head output gate
//!   (`o * sigmoid(gate)`), q and k get a per-head RMSNorm, and rotary embeddings turn only the
//!   first `partial_rotary_factor` of each head. Text positions are equal on all three M-RoPE
//!   axes, so interleaved M-RoPE is plain RoPE here.
//! - **RMSNorm** scales by `1 + weight` (weights are stored zero-centred), except the gated
//!   norm inside DeltaNet, which scales by `weight`.
//!
//! The checkpoint may be the text model alone (`Qwen3_5ForCausalLM`, tensors under `model.`) or
//! the multimodal one (`Qwen3_5MoeForConditionalGeneration`, `text_config` nested, tensors under
//! `model.language_model.`): the vision tower (`model.visual.*`) and the multi-token-prediction
//! layers (`mtp.*`) are not loaded. Experts load per expert (`experts.{i}.gate_proj`, the layout
//! of released checkpoints) or fused (`experts.gate_up_proj`, transformers 5's in-memory one).

use candle_core::{D, DType, Device, Module, Tensor};
use candle_nn::{Embedding, Linear, VarBuilder};
use serde::Deserialize;
use serde_json::Value;

use crate::error::{Error, Result};

/// The chunk length of the chunked delta rule (the reference's and FLA's).
const CHUNK: usize = 64;

/// Which token mixer a layer has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum LayerKind {
    LinearAttention,
    FullAttention,
}

/// The rotary settings (`rope_parameters` in transformers 5's configs).
#[derive(Debug, Clone, Deserialize)]
struct RopeParameters {
    #[serde(default)]
    rope_type: Option<String>,
    #[serde(default)]
    rope_theta: Option<f64>,
    #[serde(default)]
    partial_rotary_factor: Option<f64>,
}

/// The text model's `config.json` fields (the `text_config` object of a multimodal one).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub num_key_value_heads: usize,
    #[serde(default)]
    head_dim: Option<usize>,
    #[serde(default = "default_eps")]
    rms_norm_eps: f64,
    #[serde(default = "default_context")]
    pub max_position_embeddings: usize,
    #[serde(default)]
    tie_word_embeddings: Option<bool>,
    #[serde(default)]
    attention_bias: bool,
    #[serde(default = "default_act")]
    hidden_act: String,
    #[serde(default)]
    rope_parameters: Option<RopeParameters>,
    #[serde(default)]
    rope_theta: Option<f64>,
    #[serde(default)]
    partial_rotary_factor: Option<f64>,
    #[serde(default)]
    layer_types: Option<Vec<LayerKind>>,
    #[serde(default)]
    full_attention_interval: Option<usize>,
    #[serde(default = "default_conv")]
    linear_conv_kernel_dim: usize,
    linear_key_head_dim: usize,
    linear_value_head_dim: usize,
    linear_num_key_heads: usize,
    linear_num_value_heads: usize,
    // Dense models.
    #[serde(default)]
    intermediate_size: Option<usize>,
    // MoE models.
    #[serde(default)]
    num_experts: Option<usize>,
    #[serde(default)]
    num_experts_per_tok: Option<usize>,
    #[serde(default)]
    moe_intermediate_size: Option<usize>,
    #[serde(default)]
    shared_expert_intermediate_size: Option<usize>,
}

fn default_eps() -> f64 {
    1e-6
}
fn default_context() -> usize {
    32768
}
fn default_act() -> String {
    "silu".into()
}
fn default_conv() -> usize {
    4
}

impl Config {
    /// The text config of a `config.json`: the object itself, or its `text_config`. A top-level
    /// `tie_word_embeddings` applies when the text config leaves it out.
    pub(crate) fn from_json(config: &Value) -> Result<Config> {
        let text = config.get("text_config").unwrap_or(config);
        let mut parsed: Config = serde_json::from_value(text.clone())
            .map_err(|e| Error::Unsupported(format!("Qwen3.5 config: {e}")))?;
        if parsed.tie_word_embeddings.is_none() {
            parsed.tie_word_embeddings = config.get("tie_word_embeddings").and_then(Value::as_bool);
        }
        parsed.check()?;
        Ok(parsed)
    }

    fn check(&self) -> Result<()> {
        if self.hidden_act != "silu" {
            return Err(Error::Unsupported(format!(
                "Qwen3.5 hidden_act `{}`; supported is silu",
                self.hidden_act
            )));
        }
        if let Some(kind) = self
            .rope_parameters
            .as_ref()
            .and_then(|r| r.rope_type.as_deref())
            && kind != "default"
        {
            return Err(Error::Unsupported(format!(
                "Qwen3.5 rope_type `{kind}`; supported is default"
            )));
        }
        let layers = self.layer_kinds();
        if layers.len() != self.num_hidden_layers {
            return Err(Error::Unsupported(format!(
                "Qwen3.5 config: {} layer_types for {} layers",
                layers.len(),
                self.num_hidden_layers
            )));
        }
        let divides = |a: usize, b: usize| b > 0 && a.is_multiple_of(b);
        if !divides(self.num_attention_heads, self.num_key_value_heads)
            || !divides(self.linear_num_value_heads, self.linear_num_key_heads)
        {
            return Err(Error::Unsupported(
                "Qwen3.5 config: query heads must be a multiple of key-value heads".into(),
            ));
        }
        if self.moe().is_none() && self.intermediate_size.is_none() {
            return Err(Error::Unsupported(
                "Qwen3.5 config: neither `intermediate_size` (dense) nor the MoE sizes".into(),
            ));
        }
        if !self.rotary_dim().is_multiple_of(2) || self.rotary_dim() > self.head_dim() {
            return Err(Error::Unsupported(format!(
                "Qwen3.5 config: a rotary width of {} in heads of {}",
                self.rotary_dim(),
                self.head_dim()
            )));
        }
        Ok(())
    }

    fn head_dim(&self) -> usize {
        self.head_dim
            .unwrap_or(self.hidden_size / self.num_attention_heads.max(1))
    }

    fn rope_theta(&self) -> f64 {
        self.rope_parameters
            .as_ref()
            .and_then(|r| r.rope_theta)
            .or(self.rope_theta)
            .unwrap_or(10_000.0)
    }

    /// The rotated width of a head: `int(head_dim * partial_rotary_factor)`, 0.25 by default.
    fn rotary_dim(&self) -> usize {
        let factor = self
            .rope_parameters
            .as_ref()
            .and_then(|r| r.partial_rotary_factor)
            .or(self.partial_rotary_factor)
            .unwrap_or(0.25);
        (self.head_dim() as f64 * factor) as usize
    }

    pub(crate) fn layer_kinds(&self) -> Vec<LayerKind> {
        if let Some(kinds) = &self.layer_types {
            return kinds.clone();
        }
        let interval = self.full_attention_interval.unwrap_or(4).max(1);
        (0..self.num_hidden_layers)
            .map(|i| {
                if (i + 1) % interval == 0 {
                    LayerKind::FullAttention
                } else {
                    LayerKind::LinearAttention
                }
            })
            .collect()
    }

    /// `(experts, experts per token, expert width, shared expert width)` of an MoE model.
    fn moe(&self) -> Option<(usize, usize, usize, usize)> {
        Some((
            self.num_experts?,
            self.num_experts_per_tok?,
            self.moe_intermediate_size?,
            self.shared_expert_intermediate_size?,
        ))
    }

    /// Whether the MLPs are routed experts.
    pub(crate) fn is_moe(&self) -> bool {
        self.moe().is_some()
    }
}

/// RMSNorm scaling by `1 + weight`.
#[derive(Debug, Clone)]
struct RmsNorm {
    /// `1 + weight`, f32 (the norm runs in f32 whatever the weights' type).
    scale: Tensor,
    eps: f32,
}

impl RmsNorm {
    fn new(size: usize, eps: f64, vb: VarBuilder) -> Result<RmsNorm> {
        let weight = vb.get(size, "weight")?;
        Ok(RmsNorm {
            scale: (weight.to_dtype(DType::F32)? + 1.0)?,
            eps: eps as f32,
        })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let dtype = x.dtype();
        let normed = candle_nn::ops::rms_norm(
            &x.to_dtype(DType::F32)?.contiguous()?,
            &self.scale,
            self.eps,
        )?;
        Ok(normed.to_dtype(dtype)?)
    }
}

fn linear(input: usize, output: usize, bias: bool, vb: VarBuilder) -> Result<Linear> {
    Ok(if bias {
        candle_nn::linear(input, output, vb)?
    } else {
        candle_nn::linear_no_bias(input, output, vb)?
    })
}

/// The rotary tables for positions `offset..offset + len`, `[len, rotary_dim / 2]` each.
fn rotary(config: &Config, offset: usize, len: usize, device: &Device) -> Result<(Tensor, Tensor)> {
    let dim = config.rotary_dim();
    let theta = config.rope_theta() as f32;
    let inv_freq: Vec<f32> = (0..dim)
        .step_by(2)
        .map(|i| 1.0 / theta.powf(i as f32 / dim as f32))
        .collect();
    let inv_freq = Tensor::from_vec(inv_freq, (1, dim / 2), device)?;
    let positions: Vec<f32> = (offset..offset + len).map(|p| p as f32).collect();
    let positions = Tensor::from_vec(positions, (len, 1), device)?;
    let freqs = positions.matmul(&inv_freq)?;
    Ok((freqs.cos()?, freqs.sin()?))
}

/// Rotates the first `cos.dim(1) * 2` features of every head of `x` (`[b, heads, len, dim]`).
fn partial_rope(x: &Tensor, cos: &Tensor, sin: &Tensor) -> Result<Tensor> {
    let rotary = cos.dim(1)? * 2;
    let head = x.dim(D::Minus1)?;
    if rotary == 0 {
        return Ok(x.clone());
    }
    let dtype = x.dtype();
    let turned = candle_nn::rotary_emb::rope(
        &x.narrow(D::Minus1, 0, rotary)?
            .to_dtype(DType::F32)?
            .contiguous()?,
        cos,
        sin,
    )?
    .to_dtype(dtype)?;
    if rotary == head {
        return Ok(turned);
    }
    Ok(Tensor::cat(
        &[turned, x.narrow(D::Minus1, rotary, head - rotary)?],
        D::Minus1,
    )?)
}

/// Gated full attention with a KV cache.
#[derive(Debug, Clone)]
struct Attention {
    q_proj: Linear,
    k_proj: Linear,
    v_proj: Linear,
    o_proj: Linear,
    q_norm: RmsNorm,
    k_norm: RmsNorm,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    cache: Option<(Tensor, Tensor)>,
}

impl Attention {
    fn new(config: &Config, vb: VarBuilder) -> Result<Attention> {
        let (h, d) = (config.hidden_size, config.head_dim());
        let (heads, kv_heads) = (config.num_attention_heads, config.num_key_value_heads);
        let bias = config.attention_bias;
        Ok(Attention {
            q_proj: linear(h, heads * d * 2, bias, vb.pp("q_proj"))?,
            k_proj: linear(h, kv_heads * d, bias, vb.pp("k_proj"))?,
            v_proj: linear(h, kv_heads * d, bias, vb.pp("v_proj"))?,
            o_proj: linear(heads * d, h, bias, vb.pp("o_proj"))?,
            q_norm: RmsNorm::new(d, config.rms_norm_eps, vb.pp("q_norm"))?,
            k_norm: RmsNorm::new(d, config.rms_norm_eps, vb.pp("k_norm"))?,
            heads,
            kv_heads,
            head_dim: d,
            cache: None,
        })
    }

    fn forward(&mut self, x: &Tensor, cos: &Tensor, sin: &Tensor) -> Result<Tensor> {
        let (b, len, _) = x.dims3()?;
        let d = self.head_dim;
        let both = self
            .q_proj
            .forward(x)?
            .reshape((b, len, self.heads, 2 * d))?;
        let q = both.narrow(D::Minus1, 0, d)?;
        let gate = both
            .narrow(D::Minus1, d, d)?
            .reshape((b, len, self.heads * d))?;
        let q = self.q_norm.forward(&q)?.transpose(1, 2)?;
        let k = self
            .k_norm
            .forward(
                &self
                    .k_proj
                    .forward(x)?
                    .reshape((b, len, self.kv_heads, d))?,
            )?
            .transpose(1, 2)?;
        let v = self
            .v_proj
            .forward(x)?
            .reshape((b, len, self.kv_heads, d))?
            .transpose(1, 2)?;
        let q = partial_rope(&q, cos, sin)?;
        let k = partial_rope(&k, cos, sin)?;
        let (k, v) = match self.cache.take() {
            Some((pk, pv)) => (Tensor::cat(&[pk, k], 2)?, Tensor::cat(&[pv, v], 2)?),
            None => (k.contiguous()?, v.contiguous()?),
        };
        self.cache = Some((k.clone(), v.clone()));
        let groups = self.heads / self.kv_heads;
        let k = repeat_heads(&k, groups, 1)?;
        let v = repeat_heads(&v, groups, 1)?;
        let total = k.dim(2)?;
        let scale = 1.0 / (d as f64).sqrt();
        let scores = (q.contiguous()?.matmul(&k.t()?.contiguous()?)? * scale)?;
        let scores = if len > 1 {
            let mask = causal_mask(len, total, x.device())?.to_dtype(scores.dtype())?;
            scores.broadcast_add(&mask)?
        } else {
            scores
        };
        let weights =
            candle_nn::ops::softmax_last_dim(&scores.to_dtype(DType::F32)?)?.to_dtype(v.dtype())?;
        let out = weights
            .matmul(&v.contiguous()?)?
            .transpose(1, 2)?
            .reshape((b, len, self.heads * d))?;
        let out = (out * candle_nn::ops::sigmoid(&gate)?)?;
        Ok(self.o_proj.forward(&out)?)
    }
}

/// `[len, total]`: 0 where query `i` (at position `total - len + i`) may see key `j`, else -inf.
fn causal_mask(len: usize, total: usize, device: &Device) -> Result<Tensor> {
    let start = total - len;
    let values: Vec<f32> = (0..len)
        .flat_map(|i| {
            (0..total).map(move |j| {
                if j <= start + i {
                    0.0
                } else {
                    f32::NEG_INFINITY
                }
            })
        })
        .collect();
    Ok(Tensor::from_vec(values, (len, total), device)?)
}

/// Repeats each head `times` times in place (`[h0, h0, h1, h1]`, as `repeat_interleave`), along
/// the head axis `axis` of a 4-d tensor.
fn repeat_heads(x: &Tensor, times: usize, axis: usize) -> Result<Tensor> {
    if times == 1 {
        return Ok(x.clone());
    }
    let mut dims = x.dims().to_vec();
    let expanded = x.unsqueeze(axis + 1)?;
    let mut wide = expanded.dims().to_vec();
    wide[axis + 1] = times;
    dims[axis] *= times;
    Ok(expanded.broadcast_as(wide)?.contiguous()?.reshape(dims)?)
}

/// What a Gated DeltaNet layer carries from one call to the next.
#[derive(Debug, Clone)]
struct LinearState {
    /// The last `kernel - 1` conv inputs, `[b, channels, kernel - 1]`.
    conv: Tensor,
    /// `[b, value heads, key dim, value dim]`, f32.
    recurrent: Tensor,
}

/// The Gated DeltaNet linear-attention layer.
#[derive(Debug, Clone)]
struct DeltaNet {
    in_proj_qkv: Linear,
    in_proj_z: Linear,
    in_proj_b: Linear,
    in_proj_a: Linear,
    out_proj: Linear,
    /// `[channels, kernel]`.
    conv: Tensor,
    /// `-exp(A_log)`, f32, `[value heads]`.
    neg_a: Tensor,
    /// f32, `[value heads]`.
    dt_bias: Tensor,
    /// The gated norm's weight, `[value dim]`, f32.
    norm: Tensor,
    eps: f32,
    key_heads: usize,
    value_heads: usize,
    key_dim: usize,
    value_dim: usize,
    kernel: usize,
    state: Option<LinearState>,
}

impl DeltaNet {
    fn new(config: &Config, vb: VarBuilder) -> Result<DeltaNet> {
        let h = config.hidden_size;
        let (kh, vh) = (config.linear_num_key_heads, config.linear_num_value_heads);
        let (kd, vd) = (config.linear_key_head_dim, config.linear_value_head_dim);
        let channels = 2 * kh * kd + vh * vd;
        let kernel = config.linear_conv_kernel_dim;
        let conv = vb
            .get((channels, 1, kernel), "conv1d.weight")?
            .reshape((channels, kernel))?;
        let a_log = vb.get(vh, "A_log")?.to_dtype(DType::F32)?;
        Ok(DeltaNet {
            in_proj_qkv: candle_nn::linear_no_bias(h, channels, vb.pp("in_proj_qkv"))?,
            in_proj_z: candle_nn::linear_no_bias(h, vh * vd, vb.pp("in_proj_z"))?,
            in_proj_b: candle_nn::linear_no_bias(h, vh, vb.pp("in_proj_b"))?,
            in_proj_a: candle_nn::linear_no_bias(h, vh, vb.pp("in_proj_a"))?,
            out_proj: candle_nn::linear_no_bias(vh * vd, h, vb.pp("out_proj"))?,
            conv,
            neg_a: a_log.exp()?.neg()?,
            dt_bias: vb.get(vh, "dt_bias")?.to_dtype(DType::F32)?,
            norm: vb.get(vd, "norm.weight")?.to_dtype(DType::F32)?,
            eps: config.rms_norm_eps as f32,
            key_heads: kh,
            value_heads: vh,
            key_dim: kd,
            value_dim: vd,
            kernel,
            state: None,
        })
    }

    fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        let (b, len, _) = x.dims3()?;
        let dtype = x.dtype();
        let (kh, vh, kd, vd) = (
            self.key_heads,
            self.value_heads,
            self.key_dim,
            self.value_dim,
        );
        let mixed = self.in_proj_qkv.forward(x)?.transpose(1, 2)?; // [b, channels, len]
        let channels = mixed.dim(1)?;
        let z = self.in_proj_z.forward(x)?.reshape((b, len, vh, vd))?;
        let beta = candle_nn::ops::sigmoid(&self.in_proj_b.forward(x)?.to_dtype(DType::F32)?)?;
        let a = self
            .in_proj_a
            .forward(x)?
            .to_dtype(DType::F32)?
            .broadcast_add(&self.dt_bias)?;
        let g = softplus(&a)?.broadcast_mul(&self.neg_a)?; // [b, len, vh]

        // The causal depthwise conv over the previous inputs and these.
        let history = self.kernel - 1;
        let previous = match &self.state {
            Some(state) => state.conv.clone(),
            None => Tensor::zeros((b, channels, history), dtype, x.device())?,
        };
        let window = Tensor::cat(&[previous, mixed], 2)?; // [b, channels, history + len]
        let conv_state = window.narrow(2, len, history)?.contiguous()?;
        let mut conv = window
            .narrow(2, 0, len)?
            .broadcast_mul(&self.conv.narrow(1, 0, 1)?.unsqueeze(0)?)?;
        for j in 1..self.kernel {
            let tap = self.conv.narrow(1, j, 1)?.unsqueeze(0)?;
            conv = (conv + window.narrow(2, j, len)?.broadcast_mul(&tap)?)?;
        }
        let mixed = candle_nn::ops::silu(&conv)?.transpose(1, 2)?; // [b, len, channels]

        let q = mixed.narrow(2, 0, kh * kd)?.reshape((b, len, kh, kd))?;
        let k = mixed
            .narrow(2, kh * kd, kh * kd)?
            .reshape((b, len, kh, kd))?;
        let v = mixed
            .narrow(2, 2 * kh * kd, vh * vd)?
            .reshape((b, len, vh, vd))?;
        let q = repeat_heads(&q, vh / kh, 2)?;
        let k = repeat_heads(&k, vh / kh, 2)?;
        // [b, heads, len, dim], f32.
        let to_heads = |t: &Tensor| -> Result<Tensor> {
            Ok(t.to_dtype(DType::F32)?.transpose(1, 2)?.contiguous()?)
        };
        let q = (l2norm(&to_heads(&q)?)? * (1.0 / (kd as f64).sqrt()))?;
        let k = l2norm(&to_heads(&k)?)?;
        let v = to_heads(&v)?;
        let beta = beta.transpose(1, 2)?.contiguous()?; // [b, heads, len]
        let g = g.transpose(1, 2)?.contiguous()?;
        let initial = match &self.state {
            Some(state) => state.recurrent.clone(),
            None => Tensor::zeros((b, vh, kd, vd), DType::F32, x.device())?,
        };
        let rule = Rule { q, k, v, g, beta };
        let (out, recurrent) = if len == 1 {
            recurrent_step(&rule, &initial)?
        } else {
            chunked(&rule, &initial)?
        };
        self.state = Some(LinearState {
            conv: conv_state,
            recurrent,
        });

        // The gated norm over each head's output, then the projection.
        let out = out.transpose(1, 2)?.contiguous()?; // [b, len, vh, vd]
        let normed = candle_nn::ops::rms_norm(&out, &self.norm, self.eps)?;
        let normed = normed.to_dtype(dtype)?.to_dtype(DType::F32)?;
        let gated = (normed * candle_nn::ops::silu(&z.to_dtype(DType::F32)?)?)?;
        let gated = gated.to_dtype(dtype)?.reshape((b, len, vh * vd))?;
        Ok(self.out_proj.forward(&gated)?)
    }
}

/// `log(1 + exp(x))`, computed without overflow.
fn softplus(x: &Tensor) -> Result<Tensor> {
    let tail = ((x.abs()?.neg()?.exp()? + 1.0)?).log()?;
    Ok((x.relu()? + tail)?)
}

/// `x / sqrt(sum(x^2) + 1e-6)` over the last axis.
fn l2norm(x: &Tensor) -> Result<Tensor> {
    let norm = (x.sqr()?.sum_keepdim(D::Minus1)? + 1e-6)?.sqrt()?;
    Ok(x.broadcast_div(&norm)?)
}

/// The gated delta rule's inputs, f32, heads before positions: `q` (scaled) and `k`
/// (L2-normalised) `[b, heads, len, key dim]`, `v` `[b, heads, len, value dim]`, the log decay
/// `g` and the write strength `beta` `[b, heads, len]`.
struct Rule {
    q: Tensor,
    k: Tensor,
    v: Tensor,
    g: Tensor,
    beta: Tensor,
}

/// One token of the gated delta rule (`len` 1) from the state `[b, heads, key dim, value dim]`:
/// the output and the next state.
fn recurrent_step(rule: &Rule, state: &Tensor) -> Result<(Tensor, Tensor)> {
    let Rule { q, k, v, g, beta } = rule;
    let decay = g.exp()?.unsqueeze(D::Minus1)?; // [b, h, 1, 1]
    let state = state.broadcast_mul(&decay)?;
    let remembered = k.matmul(&state)?; // [b, h, 1, vd]
    let delta = (v - remembered)?.broadcast_mul(&beta.unsqueeze(D::Minus1)?)?;
    let state = (state + k.transpose(2, 3)?.matmul(&delta)?)?;
    let out = q.matmul(&state)?;
    Ok((out, state))
}

/// The chunked gated delta rule over a prompt of any length from the state: the output
/// `[b, heads, len, value dim]` and the state after the last token.
fn chunked(rule: &Rule, state: &Tensor) -> Result<(Tensor, Tensor)> {
    let Rule { q, k, v, g, beta } = rule;
    let (b, h, len, kd) = k.dims4()?;
    let vd = v.dim(3)?;
    let device = q.device();
    let pad = (CHUNK - len % CHUNK) % CHUNK;
    let chunks = (len + pad) / CHUNK;
    // Batch and heads merged (`bh`), the sequence split into chunks: `[bh, chunks, CHUNK, dim]`.
    let split = |t: &Tensor, dim: usize| -> Result<Tensor> {
        let t = if pad == 0 {
            t.clone()
        } else {
            t.pad_with_zeros(2, 0, pad)?
        };
        Ok(t.reshape((b * h, chunks, CHUNK, dim))?.contiguous()?)
    };
    let beta = split(&beta.unsqueeze(D::Minus1)?, 1)?;
    let q = split(q, kd)?;
    let k = split(k, kd)?;
    let v_beta = split(v, vd)?.broadcast_mul(&beta)?;
    let k_beta = k.broadcast_mul(&beta)?;
    let g = split(&g.unsqueeze(D::Minus1)?, 1)?
        .squeeze(D::Minus1)?
        .cumsum(D::Minus1)?; // [bh, chunks, CHUNK]

    // lower[i][j] = 1 for j <= i; strict[i][j] = 1 for j < i.
    let lower = triangle(device, true)?;
    let strict = triangle(device, false)?;
    // decay[i][j] = exp(g_i - g_j) for j <= i, else 0.
    let diff = g
        .unsqueeze(D::Minus1)?
        .broadcast_sub(&g.unsqueeze(D::Minus2)?)?
        .broadcast_mul(&lower)?;
    let decay = diff.exp()?.broadcast_mul(&lower)?;
    // A = -(k_beta k^T * decay), strictly lower; solve (I - A) X = I by forward substitution.
    let a = k_beta
        .matmul(&k.transpose(2, 3)?.contiguous()?)?
        .mul(&decay)?
        .broadcast_mul(&strict)?
        .neg()?;
    let eye = Tensor::eye(CHUNK, DType::F32, device)?;
    let mut rows = eye
        .narrow(0, 0, 1)?
        .broadcast_as((b * h, chunks, 1, CHUNK))?
        .contiguous()?;
    for i in 1..CHUNK {
        let a_i = a.narrow(2, i, 1)?.narrow(3, 0, i)?.contiguous()?; // [bh, n, 1, i]
        let row = a_i.matmul(&rows)?.broadcast_add(&eye.narrow(0, i, 1)?)?;
        rows = Tensor::cat(&[rows, row], 2)?;
    }
    let x = rows; // (I - A)^-1, [bh, n, C, C]
    let value = x.matmul(&v_beta)?;
    let k_cumdecay = x.matmul(&k_beta.broadcast_mul(&g.exp()?.unsqueeze(D::Minus1)?)?)?;

    let mut state = state.reshape((b * h, kd, vd))?;
    let mut outs = Vec::with_capacity(chunks);
    for c in 0..chunks {
        let pick =
            |t: &Tensor| -> Result<Tensor> { Ok(t.narrow(1, c, 1)?.squeeze(1)?.contiguous()?) };
        let (q_c, k_c, v_c, g_c) = (pick(&q)?, pick(&k)?, pick(&value)?, pick(&g)?);
        let attn = q_c
            .matmul(&k_c.transpose(1, 2)?.contiguous()?)?
            .mul(&pick(&decay)?)?;
        let v_new = (v_c - pick(&k_cumdecay)?.matmul(&state)?)?;
        let inter = q_c
            .broadcast_mul(&g_c.exp()?.unsqueeze(D::Minus1)?)?
            .matmul(&state)?;
        outs.push((inter + attn.matmul(&v_new)?)?);
        let last = g_c.narrow(1, CHUNK - 1, 1)?; // [bh, 1]
        let weight = last.broadcast_sub(&g_c)?.exp()?.unsqueeze(D::Minus1)?; // [bh, C, 1]
        let written = k_c
            .broadcast_mul(&weight)?
            .transpose(1, 2)?
            .contiguous()?
            .matmul(&v_new)?;
        state = (state.broadcast_mul(&last.exp()?.unsqueeze(D::Minus1)?)? + written)?;
    }
    let out = Tensor::cat(&outs, 1)? // [bh, chunks * C, vd]
        .narrow(1, 0, len)?
        .reshape((b, h, len, vd))?;
    Ok((out, state.reshape((b, h, kd, vd))?))
}

/// A `[CHUNK, CHUNK]` f32 mask of ones on and below the diagonal (`diagonal`), or strictly
/// below it.
fn triangle(device: &Device, diagonal: bool) -> Result<Tensor> {
    let values: Vec<f32> = (0..CHUNK)
        .flat_map(|i| {
            (0..CHUNK).map(move |j| {
                if j < i || (diagonal && j == i) {
                    1.0
                } else {
                    0.0
                }
            })
        })
        .collect();
    Ok(Tensor::from_vec(values, (CHUNK, CHUNK), device)?)
}

/// The SwiGLU MLP (dense layers and the shared expert).
#[derive(Debug, Clone)]
struct Mlp {
    gate_proj: Linear,
    up_proj: Linear,
    down_proj: Linear,
}

impl Mlp {
    fn new(hidden: usize, width: usize, vb: VarBuilder) -> Result<Mlp> {
        Ok(Mlp {
            gate_proj: candle_nn::linear_no_bias(hidden, width, vb.pp("gate_proj"))?,
            up_proj: candle_nn::linear_no_bias(hidden, width, vb.pp("up_proj"))?,
            down_proj: candle_nn::linear_no_bias(width, hidden, vb.pp("down_proj"))?,
        })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let gate = candle_nn::ops::silu(&self.gate_proj.forward(x)?)?;
        Ok(self
            .down_proj
            .forward(&(gate * self.up_proj.forward(x)?)?)?)
    }
}

/// One routed expert: `gate_up` `[2 * width, hidden]` (gate rows first), `down`
/// `[hidden, width]`.
#[derive(Debug, Clone)]
struct Expert {
    gate_up: Tensor,
    down: Tensor,
}

/// Routed experts (softmax router, top-k renormalised) plus a sigmoid-gated shared expert.
#[derive(Debug, Clone)]
struct SparseMoe {
    router: Tensor,
    experts: Vec<Expert>,
    shared: Mlp,
    shared_gate: Linear,
    top_k: usize,
    width: usize,
}

impl SparseMoe {
    fn new(config: &Config, vb: VarBuilder) -> Result<SparseMoe> {
        let h = config.hidden_size;
        let Some((count, top_k, width, shared_width)) = config.moe() else {
            return Err(Error::Unsupported("Qwen3.5: MoE sizes missing".into()));
        };
        let ex = vb.pp("experts");
        let experts = if ex.contains_tensor("gate_up_proj") {
            let gate_up = ex.get((count, 2 * width, h), "gate_up_proj")?;
            let down = ex.get((count, h, width), "down_proj")?;
            (0..count)
                .map(|e| {
                    Ok(Expert {
                        gate_up: gate_up.get(e)?,
                        down: down.get(e)?,
                    })
                })
                .collect::<Result<Vec<_>>>()?
        } else {
            (0..count)
                .map(|e| {
                    let one = ex.pp(e);
                    let gate = one.get((width, h), "gate_proj.weight")?;
                    let up = one.get((width, h), "up_proj.weight")?;
                    Ok(Expert {
                        gate_up: Tensor::cat(&[gate, up], 0)?,
                        down: one.get((h, width), "down_proj.weight")?,
                    })
                })
                .collect::<Result<Vec<_>>>()?
        };
        Ok(SparseMoe {
            router: vb.get((count, h), "gate.weight")?,
            experts,
            shared: Mlp::new(h, shared_width, vb.pp("shared_expert"))?,
            shared_gate: candle_nn::linear_no_bias(h, 1, vb.pp("shared_expert_gate"))?,
            top_k,
            width,
        })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (b, len, h) = x.dims3()?;
        let flat = x.reshape((b * len, h))?;
        let shared = self
            .shared
            .forward(&flat)?
            .broadcast_mul(&candle_nn::ops::sigmoid(&self.shared_gate.forward(&flat)?)?)?;
        let logits = flat.matmul(&self.router.t()?)?.to_dtype(DType::F32)?;
        let probs = candle_nn::ops::softmax_last_dim(&logits)?.to_vec2::<f32>()?;
        // Per expert: the tokens routed to it and their weights.
        let mut routed: Vec<(Vec<u32>, Vec<f32>)> =
            vec![(Vec::new(), Vec::new()); self.experts.len()];
        for (token, row) in probs.iter().enumerate() {
            let mut order: Vec<usize> = (0..row.len()).collect();
            order.sort_by(|&i, &j| row[j].total_cmp(&row[i]).then(i.cmp(&j)));
            let chosen = &order[..self.top_k.min(order.len())];
            let total: f32 = chosen.iter().map(|&e| row[e]).sum();
            for &e in chosen {
                routed[e].0.push(token as u32);
                routed[e].1.push(row[e] / total);
            }
        }
        let mut out = flat.zeros_like()?;
        for (expert, (tokens, weights)) in self.experts.iter().zip(&routed) {
            if tokens.is_empty() {
                continue;
            }
            let index = Tensor::new(tokens.as_slice(), x.device())?;
            let xs = flat.index_select(&index, 0)?;
            let gate_up = xs.matmul(&expert.gate_up.t()?)?;
            let gate = candle_nn::ops::silu(&gate_up.narrow(1, 0, self.width)?)?;
            let up = gate_up.narrow(1, self.width, self.width)?;
            let y = (gate * up)?.matmul(&expert.down.t()?)?;
            let w = Tensor::new(weights.as_slice(), x.device())?
                .to_dtype(y.dtype())?
                .unsqueeze(1)?;
            out = out.index_add(&index, &y.broadcast_mul(&w)?, 0)?;
        }
        Ok((out + shared)?.reshape((b, len, h))?)
    }
}

#[derive(Debug, Clone)]
enum Mixer {
    Linear(DeltaNet),
    Full(Attention),
}

#[derive(Debug, Clone)]
enum Feed {
    Dense(Mlp),
    Moe(SparseMoe),
}

#[derive(Debug, Clone)]
struct Layer {
    input_norm: RmsNorm,
    post_norm: RmsNorm,
    mixer: Mixer,
    feed: Feed,
}

/// A Qwen3.5 causal LM (dense or MoE) with its decoding state.
#[derive(Debug, Clone)]
pub(crate) struct Qwen35 {
    config: Config,
    embed: Embedding,
    layers: Vec<Layer>,
    norm: RmsNorm,
    lm_head: Linear,
    /// The tokens the state holds.
    seen: usize,
}

impl Qwen35 {
    /// Builds the model from `vb` rooted at the checkpoint's top (`model.` or
    /// `model.language_model.` and `lm_head`).
    pub(crate) fn new(config: &Config, vb: VarBuilder) -> Result<Qwen35> {
        let text = if vb.contains_tensor("model.language_model.embed_tokens.weight") {
            vb.pp("model.language_model")
        } else {
            vb.pp("model")
        };
        let h = config.hidden_size;
        let embed = candle_nn::embedding(config.vocab_size, h, text.pp("embed_tokens"))?;
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for (i, kind) in config.layer_kinds().into_iter().enumerate() {
            let lv = text.pp("layers").pp(i);
            let mixer = match kind {
                LayerKind::LinearAttention => {
                    Mixer::Linear(DeltaNet::new(config, lv.pp("linear_attn"))?)
                }
                LayerKind::FullAttention => {
                    Mixer::Full(Attention::new(config, lv.pp("self_attn"))?)
                }
            };
            let feed = if config.is_moe() {
                Feed::Moe(SparseMoe::new(config, lv.pp("mlp"))?)
            } else {
                let width = config.intermediate_size.unwrap_or_default();
                Feed::Dense(Mlp::new(h, width, lv.pp("mlp"))?)
            };
            layers.push(Layer {
                input_norm: RmsNorm::new(h, config.rms_norm_eps, lv.pp("input_layernorm"))?,
                post_norm: RmsNorm::new(h, config.rms_norm_eps, lv.pp("post_attention_layernorm"))?,
                mixer,
                feed,
            });
        }
        // A tied head has no tensor of its own; an untied one must have it.
        let lm_head = if config.tie_word_embeddings.unwrap_or(false) {
            Linear::new(embed.embeddings().clone(), None)
        } else {
            candle_nn::linear_no_bias(h, config.vocab_size, vb.pp("lm_head"))?
        };
        Ok(Qwen35 {
            config: config.clone(),
            embed,
            layers,
            norm: RmsNorm::new(h, config.rms_norm_eps, text.pp("norm"))?,
            lm_head,
            seen: 0,
        })
    }

    /// Forgets every token: the KV caches and the linear layers' states.
    pub(crate) fn clear_cache(&mut self) {
        for layer in &mut self.layers {
            match &mut layer.mixer {
                Mixer::Linear(net) => net.state = None,
                Mixer::Full(attention) => attention.cache = None,
            }
        }
        self.seen = 0;
    }

    /// Runs `input` (`[1, len]` token ids) after the `offset` tokens the state holds, and
    /// returns the last position's logits `[1, vocab]`. An `offset` of 0 starts a new sequence;
    /// any other must equal the tokens already run.
    pub(crate) fn forward(&mut self, input: &Tensor, offset: usize) -> Result<Tensor> {
        if offset == 0 {
            self.clear_cache();
        } else if offset != self.seen {
            return Err(Error::Unsupported(format!(
                "Qwen3.5 decoding state holds {} tokens, not the offset {offset}",
                self.seen
            )));
        }
        let (_, len) = input.dims2()?;
        let mut x = self.embed.forward(input)?;
        let (cos, sin) = rotary(&self.config, offset, len, x.device())?;
        for layer in &mut self.layers {
            let normed = layer.input_norm.forward(&x)?;
            let mixed = match &mut layer.mixer {
                Mixer::Linear(net) => net.forward(&normed)?,
                Mixer::Full(attention) => attention.forward(&normed, &cos, &sin)?,
            };
            x = (x + mixed)?;
            let normed = layer.post_norm.forward(&x)?;
            let fed = match &layer.feed {
                Feed::Dense(mlp) => mlp.forward(&normed)?,
                Feed::Moe(moe) => moe.forward(&normed)?,
            };
            x = (x + fed)?;
        }
        self.seen = offset + len;
        let last = self.norm.forward(&x.narrow(1, len - 1, 1)?)?;
        Ok(self.lm_head.forward(&last)?.squeeze(1)?)
    }
}
