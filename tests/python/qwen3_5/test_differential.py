"""fabula's Candle Qwen3.5 models against Hugging Face transformers, the reference.

For each tiny random checkpoint (tiny_qwen35.py: `dense`, `moe`, `moe_vl`) and two prompts (12
ids, and 150 ids: more than two of the reference's 64-token chunks of the chunked delta rule),
`fabula wm generate --prompt-ids ... --max-new-tokens 8 --logits` must pick the same greedy ids
as the reference and print the same logits within 1e-4: the prefill's at the last prompt
position, then one single-token decode step per generated token, through each side's own cache.
The reference is the checkpoint as transformers loads it from disk (eval, float32, eager
attention, torch.no_grad). A self-check holds the reference to itself: its decode steps against
one prefill of the same tokens, and the folder it loads against the model that wrote it.

Needs torch and transformers (CI: the verl venv) and FABULA_BIN (default target/debug/fabula).
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # everything is local: never ask the Hub
torch = pytest.importorskip("torch", reason="the reference needs torch")
pytest.importorskip("transformers", reason="the reference needs transformers")

from tiny_qwen35 import EOS_ID, KINDS, build_model, write_checkpoint  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
BINARY = os.environ.get("FABULA_BIN", str(REPO / "target/debug/fabula"))
STEPS = 8
ATOL = 1e-4
SEED = {"dense": 11, "moe": 12, "moe_vl": 13}


def prompt(length: int, seed: int) -> list[int]:
    """<|im_start|> and then LENGTH - 1 seeded byte ids (no other special token)."""
    gen = torch.Generator().manual_seed(seed)
    return [EOS_ID + 1, *torch.randint(0, EOS_ID, (length - 1,), generator=gen).tolist()]


PROMPTS = {"short": prompt(12, 1), "long": prompt(150, 2)}


@dataclass
class Run:
    """A greedy continuation: the generated ids and each one's logits row."""

    ids: list[int]
    logits: torch.Tensor  # [steps, vocab], float32


@pytest.fixture(scope="module", params=KINDS)
def checkpoint(request, tmp_path_factory):
    """(kind, folder, reference model loaded from the folder, model that wrote it)."""
    kind = request.param
    folder = tmp_path_factory.mktemp(kind)
    written = write_checkpoint(folder, kind, SEED[kind])
    cls = type(written)
    loaded = cls.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager")
    return kind, folder, loaded.eval(), written


@torch.no_grad()
def reference(model, ids: list[int], steps: int = STEPS) -> Run:
    """Prefill IDS, then feed each greedy pick back one token at a time through the cache."""
    out = model(input_ids=torch.tensor([ids]), use_cache=True)
    rows = [out.logits[0, -1].float()]
    picked: list[int] = []
    for step in range(steps):
        # torch.argmax returns the first maximal index: ties go to the lowest id, as fabula's.
        picked.append(int(torch.argmax(rows[-1])))
        if step == steps - 1:
            break
        out = model(
            input_ids=torch.tensor([[picked[-1]]]),
            past_key_values=out.past_key_values,
            use_cache=True,
        )
        rows.append(out.logits[0, -1].float())
    return Run(picked, torch.stack(rows))


def fabula(folder: Path, ids: list[int], steps: int = STEPS) -> Run:
    """`fabula wm generate --prompt-ids IDS --max-new-tokens STEPS --logits` on FOLDER."""
    command = [
        BINARY, "wm", "generate", "--model", str(folder),
        "--prompt-ids", ",".join(map(str, ids)), "--max-new-tokens", str(steps), "--logits",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stderr[-4000:]}"
    answer = json.loads(done.stdout)
    assert answer["prompt_ids"] == ids, "fabula echoed other prompt ids"
    logits = torch.tensor(answer["logits"], dtype=torch.float32)
    assert logits.shape == (len(answer["ids"]), 256), f"logits of shape {tuple(logits.shape)}"
    return Run(answer["ids"], logits)


def report(expected: Run, got: Run) -> str:
    """One line per step: both picks, the largest logit difference and where it is."""
    lines = ["step  ref id  fabula id  max |diff|  at id  (ref, fabula logit there)"]
    for step in range(min(len(expected.ids), len(got.ids))):
        diff = (expected.logits[step] - got.logits[step]).abs()
        at = int(diff.argmax())
        there = f"({float(expected.logits[step, at]):.6f}, {float(got.logits[step, at]):.6f})"
        lines.append(
            f"{step:>4}  {expected.ids[step]:>6}  {got.ids[step]:>9}  {float(diff.max()):>10.3g}"
            f"  {at:>5}  {there}"
        )
    return "\n".join(lines)


def assert_same(expected: Run, got: Run, what: str) -> None:
    """Same ids, and every logits row within ATOL, up to the first differing id (the rows after
    it were computed from other tokens); the failure shows the whole step table."""
    table = report(expected, got)
    assert len(got.ids) == len(expected.ids), f"{what}: {len(got.ids)} ids, not {STEPS}\n{table}"
    for step in range(len(expected.ids)):
        diff = float((expected.logits[step] - got.logits[step]).abs().max())
        where = "the prefill (step 0)" if step == 0 else f"decode step {step}"
        assert diff <= ATOL, f"{what}: logits differ by {diff:.3g} > {ATOL} at {where}\n{table}"
        assert got.ids[step] == expected.ids[step], f"{what}: ids differ at step {step}\n{table}"


@pytest.mark.parametrize("name", PROMPTS)
def test_fabula_matches_transformers(checkpoint, name):
    kind, folder, model, _ = checkpoint
    ids = PROMPTS[name]
    assert_same(reference(model, ids), fabula(folder, ids), f"{kind}, {name} prompt")


@torch.no_grad()
def test_reference_is_self_consistent(checkpoint):
    """The reference's own decode steps agree with one prefill of the same tokens (chunked vs
    recurrent delta rule, conv and KV caches), and the folder loads as the model that wrote it."""
    kind, _, model, written = checkpoint
    ids = PROMPTS["long"]
    run = reference(model, ids)
    tokens = torch.tensor([ids + run.ids[:-1]])
    whole = model(input_ids=tokens).logits[0, len(ids) - 1 :].float()
    diff = float((whole - run.logits).abs().max())
    assert diff <= ATOL, f"{kind}: decode steps vs one prefill differ by {diff:.3g}"
    # The same weights (fused or per-expert, sharded or not); the loaded tensors' memory layout
    # can change float rounding (moe_vl: 5e-7), so not bitwise.
    for name, tensor in written.state_dict().items():
        assert torch.equal(tensor, model.state_dict()[name]), f"{kind}: {name} loads changed"
    reloaded = (written(input_ids=tokens).logits - model(input_ids=tokens).logits).abs().max()
    assert reloaded <= 1e-5, f"{kind}: the loaded folder's logits differ by {float(reloaded):.3g}"
    # Not a degenerate model: logits of order 1, neither flat nor saturated.
    assert 0.5 < float(whole.std()) < 5, f"{kind}: logits std {float(whole.std()):.3g}"


def test_prompt_text_uses_the_tokenizer(tmp_path):
    """`--prompt TEXT` encodes with tokenizer.json (no special tokens added)."""
    from tokenizers import Tokenizer

    write_checkpoint(tmp_path, "dense", SEED["dense"])
    text = "Hello, world! <|im_end|> ünïcödé"
    command = [BINARY, "wm", "generate", "--model", str(tmp_path), "--prompt", text,
               "--max-new-tokens", "2"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    answer = json.loads(done.stdout)
    expected = Tokenizer.from_file(str(tmp_path / "tokenizer.json")).encode(
        text, add_special_tokens=False
    )
    assert answer["prompt_ids"] == expected.ids
    assert answer["ids"] == reference(build_model("dense", SEED["dense"]), expected.ids, 2).ids
