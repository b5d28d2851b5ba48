"""Tiny random Qwen3.5 checkpoints in the Hugging Face layout, for the differential test of
fabula's Candle models (test_differential.py).

Three kinds, each with 4 decoder layers (3 Gated DeltaNet `linear_attention` layers, then one
gated `full_attention` layer), float32, a 256-id byte-level tokenizer:

- `dense`: `Qwen3_5ForCausalLM` (model_type `qwen3_5_text`);
- `moe`: `Qwen3_5MoeForCausalLM` (`qwen3_5_moe_text`; 4 experts, top 2, a shared expert);
- `moe_vl`: `Qwen3_5MoeForConditionalGeneration` (`qwen3_5_moe`, a nested `text_config` and a
  tiny vision tower: the class of the released Qwen3.5 MoE checkpoints).

Every parameter gets seeded noise (default init leaves norms at 0 or 1, `dt_bias` at 1, the
router at 0...), scaled so activations stay of order 1 and logits are not saturated.

    python tiny_qwen35.py OUT --kind dense|moe|moe_vl --seed N
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

KINDS = ("dense", "moe", "moe_vl")
VOCAB = 256
# Byte-level tokens take ids 0..252 (byte b is id b); the specials take the last three ids.
SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
EOS_ID = VOCAB - len(SPECIALS)  # <|endoftext|>

TEXT = {
    "vocab_size": VOCAB,
    "hidden_size": 64,
    "num_hidden_layers": 4,
    "full_attention_interval": 4,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "linear_num_key_heads": 2,
    "linear_num_value_heads": 4,
    "linear_key_head_dim": 16,
    "linear_value_head_dim": 16,
    "linear_conv_kernel_dim": 4,
    "max_position_embeddings": 1024,
    # As Qwen3.5's releases: rope settings under rope_parameters, with the (text-only: inert)
    # interleaved M-RoPE sections; 4 of head_dim 16 rotate (two frequencies, 1 and 1e-2).
    "rope_parameters": {
        "rope_type": "default",
        "rope_theta": 10000.0,
        "partial_rotary_factor": 0.25,
        "mrope_section": [1, 1, 0],
        "mrope_interleaved": True,
    },
    "rms_norm_eps": 1e-6,
    "tie_word_embeddings": False,
    "eos_token_id": EOS_ID,
    "dtype": "float32",
}
MOE = {
    "num_experts": 4,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 32,
    "shared_expert_intermediate_size": 32,
}
VISION = {
    "depth": 1,
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_heads": 2,
    "patch_size": 4,
    "spatial_merge_size": 2,
    "temporal_patch_size": 2,
    "out_hidden_size": 64,
    "num_position_embeddings": 16,
}


def build_model(kind: str, seed: int) -> torch.nn.Module:
    """The model of KIND with seeded random weights (eval mode, float32, eager attention)."""
    from transformers import (
        Qwen3_5ForCausalLM,
        Qwen3_5MoeConfig,
        Qwen3_5MoeForCausalLM,
        Qwen3_5MoeForConditionalGeneration,
        Qwen3_5MoeTextConfig,
        Qwen3_5TextConfig,
    )

    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    torch.manual_seed(seed)
    model: torch.nn.Module
    if kind == "dense":
        model = Qwen3_5ForCausalLM(Qwen3_5TextConfig(**TEXT, intermediate_size=128))
    elif kind == "moe":
        model = Qwen3_5MoeForCausalLM(Qwen3_5MoeTextConfig(**TEXT, **MOE))
    else:
        ids = {  # inside the tiny vocabulary (the defaults are Qwen's 248k-vocabulary ids)
            "image_token_id": 249,
            "video_token_id": 250,
            "vision_start_token_id": 251,
            "vision_end_token_id": 252,
        }
        config = Qwen3_5MoeConfig(
            text_config={**TEXT, **MOE}, vision_config=VISION, tie_word_embeddings=False, **ids
        )
        model = Qwen3_5MoeForConditionalGeneration(config)
    model.to(torch.float32)
    perturb(model, seed)
    model.config._attn_implementation = "eager"
    for module in model.modules():
        if hasattr(module, "config") and hasattr(module.config, "_attn_implementation"):
            module.config._attn_implementation = "eager"
    return model.eval()


@torch.no_grad()
def perturb(model: torch.nn.Module, seed: int) -> None:
    """Gives every parameter seeded values that matter: matrices N(0, 1/fan_in), norm weights
    noise around their centre, `A_log` and `dt_bias` decays from fast to slow, conv taps."""
    gen = torch.Generator().manual_seed(seed + 1)

    def noise(shape: torch.Size, std: float) -> torch.Tensor:
        return torch.randn(shape, generator=gen) * std

    for name, param in model.named_parameters():
        leaf = name.rsplit(".", 1)[-1]
        if name.endswith("A_log"):
            # Per-token decay exp(-A * softplus(a + dt_bias)): A from 0.02 to 1.
            low, high = math.log(0.02), math.log(1.0)
            param.copy_(low + (high - low) * torch.rand(param.shape, generator=gen))
        elif name.endswith("dt_bias"):
            param.copy_(noise(param.shape, 0.5))
        elif name.endswith("linear_attn.norm.weight"):
            param.copy_(1.0 + noise(param.shape, 0.2))  # RMSNormGated multiplies by w
        elif "conv1d" in name:
            param.copy_(noise(param.shape, 0.5))
        elif param.dim() == 1:
            # Qwen3.5's RMSNorm multiplies by (1 + w); vision biases and LayerNorms too.
            param.copy_(param + noise(param.shape, 0.2))
        elif "embed_tokens" in name:
            param.copy_(noise(param.shape, 1.0))
        elif name.endswith("lm_head.weight"):
            param.copy_(noise(param.shape, 1.5 / math.sqrt(param.shape[-1])))
        elif param.dim() == 3 and leaf in ("gate_up_proj", "down_proj"):  # (experts, out, in)
            param.copy_(noise(param.shape, 1.0 / math.sqrt(param.shape[-1])))
        else:
            fan_in = param[0].numel() if param.dim() > 1 else 1
            param.copy_(noise(param.shape, 1.0 / math.sqrt(fan_in)))


def tokenizer() -> Tokenizer:
    """A byte-level BPE with no merges: byte b is id b (b < 253), the specials are 253..255."""
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    byte_to_char = _bytes_to_unicode()
    vocab = {byte_to_char[b]: b for b in range(VOCAB - len(SPECIALS))}
    assert set(vocab) <= set(alphabet)
    for i, special in enumerate(SPECIALS):
        vocab[special] = VOCAB - len(SPECIALS) + i
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(list(SPECIALS))
    return tok


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte to printable character table (what ByteLevel pre-tokenization yields)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    printable += range(ord("®"), ord("ÿ") + 1)
    chars = list(printable)
    extra = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + extra)
            extra += 1
    return dict(zip(printable, map(chr, chars), strict=True))


def write_checkpoint(out_dir: str | Path, kind: str, seed: int = 0) -> torch.nn.Module:
    """Writes the KIND checkpoint (config.json, safetensors, tokenizer.json) to OUT_DIR and
    returns the model (eval mode).

    `dense` and `moe` are save_pretrained's default (one model.safetensors; transformers
    writes the MoE experts per expert, `mlp.experts.{i}.gate_proj.weight`). `moe_vl` is laid
    out as the released bf16 Qwen3.5 MoE checkpoints: experts fused (`mlp.experts.gate_up_proj`,
    `mlp.experts.down_proj`), shards with model.safetensors.index.json, and `mtp.*` tensors (the
    multi-token-prediction head, which inference ignores)."""
    out = Path(out_dir)
    model = build_model(kind, seed)
    if kind == "moe_vl":
        model.save_pretrained(out, save_original_format=False, max_shard_size="400KB")
        add_mtp_tensors(out, seed)
    else:
        model.save_pretrained(out)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer(),
        eos_token=SPECIALS[0],
        pad_token=SPECIALS[0],
        additional_special_tokens=list(SPECIALS[1:]),
    )
    fast.save_pretrained(out)
    return model


def add_mtp_tensors(out: Path, seed: int) -> None:
    """Adds random `mtp.*` tensors (names as in Qwen3.5's releases) to the last shard of the
    sharded checkpoint in OUT, and to its index."""
    from safetensors.torch import load_file, save_file

    hidden = TEXT["hidden_size"]
    gen = torch.Generator().manual_seed(seed + 2)
    shapes = {
        "mtp.fc.weight": (hidden, 2 * hidden),
        "mtp.norm.weight": (hidden,),
        "mtp.pre_fc_norm_embedding.weight": (hidden,),
        "mtp.pre_fc_norm_hidden.weight": (hidden,),
        "mtp.layers.0.input_layernorm.weight": (hidden,),
        "mtp.layers.0.post_attention_layernorm.weight": (hidden,),
        "mtp.layers.0.mlp.experts.0.gate_proj.weight": (MOE["moe_intermediate_size"], hidden),
    }
    index_path = out / "model.safetensors.index.json"
    index = json.loads(index_path.read_text())
    last = sorted(set(index["weight_map"].values()))[-1]
    tensors = load_file(out / last)
    for name, shape in shapes.items():
        tensors[name] = torch.randn(shape, generator=gen)
        index["weight_map"][name] = last
    save_file(tensors, out / last, metadata={"format": "pt"})
    index["weight_map"] = dict(sorted(index["weight_map"].items()))
    index_path.write_text(json.dumps(index, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--kind", choices=KINDS, default="dense")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write_checkpoint(args.out, args.kind, args.seed)


if __name__ == "__main__":
    main()
