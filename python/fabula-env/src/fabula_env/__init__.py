"""fabula-env: train agents on fabula's fictional worlds.

- `fabula_env.client`: `FabulaClient`, a client for the fabula server's REST API (search,
  extract, Search-R1 retrieval, sessions with controls and Qwen-AgentWorld's tools, tasks,
  scoring and episodes);
- `fabula_env.local`: the `fabula` program this wheel carries, from Python: `generate`,
  `build_index`, `export_tasks`, and `serve` (a server on a free port for a `with` block);
- `fabula_env.score`: fabula-score compiled in: `score`, `evaluate`, `Gold`, `Prediction`;
- `fabula_env.reward`: `compute_score`, the reward for verl's `custom_reward_function`;
- `fabula_env.verl`: verl's `web_search` and `web_extractor` tools (needs verl);
- `fabula_env.gpt_oss`: `FabulaBackend`, a backend of the gpt-oss package's browser tool (needs
  gpt-oss).
"""

from fabula_env.client import FabulaClient, FabulaError, Session, render_extract, render_search
from fabula_env.local import (
    Dataset,
    FabulaRunError,
    Server,
    build_index,
    export_tasks,
    find_fabula,
    generate,
    serve,
)
from fabula_env.score import evaluate

__all__ = [
    "Dataset",
    "FabulaClient",
    "FabulaError",
    "FabulaRunError",
    "Server",
    "Session",
    "build_index",
    "evaluate",
    "export_tasks",
    "find_fabula",
    "generate",
    "render_extract",
    "render_search",
    "serve",
]
__version__ = "0.1.0"
