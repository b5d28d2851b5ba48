"""Helpers for the verl tests: a tokenizer made on the spot, a tool config pointing at the
test server, and the call sequence of verl 0.9's tool agent loop."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def local_tokenizer(texts: list[str]):
    """A word-level Hugging Face tokenizer over the words of `texts`, with a chat template:
    enough for verl's prompt-length filter, and nothing downloaded."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"[UNK]": 0, "[PAD]": 1, "[EOS]": 2}
    for text in texts:
        for word in text.split():
            vocab.setdefault(word, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", eos_token="[EOS]"
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def tool_config(path: Path, base_url: str, **extra) -> Path:
    """The package's example tool config with `base_url` (and any `extra` config) set."""
    import fabula_env.verl

    example = Path(fabula_env.verl.__file__).with_name("tool_config.yaml")
    config = yaml.safe_load(example.read_text())
    for tool in config["tools"]:
        tool["config"]["base_url"] = base_url
        tool["config"].update(extra)
    path.write_text(yaml.safe_dump(config))
    return path


async def call_tool(tools: dict, tools_kwargs: dict, name: str, arguments: dict, agent_data=None):
    """One tool call as verl 0.9's `ToolAgentLoop._call_tool` makes it for a `BaseTool`:
    `create(create_kwargs=tools_kwargs[name]["create_kwargs"])`, `execute(instance_id, args,
    agent_data=...)`, then `release(instance_id)`."""
    tool = tools[name]
    kwargs = tools_kwargs.get(name, {})
    instance_id, _ = await tool.create(create_kwargs=kwargs.get("create_kwargs", {}))
    try:
        return await tool.execute(instance_id, json.loads(json.dumps(arguments)), agent_data=agent_data)
    finally:
        await tool.release(instance_id)
