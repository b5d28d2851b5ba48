"""fabula-env: train agents on fabula's fictional worlds.

- `fabula_env.client`: `FabulaClient`, a client for the fabula server's REST API (search,
  extract, Search-R1 retrieval, sessions with controls, tasks, scoring and episodes);
- `fabula_env.reward`: `compute_score`, the reward for verl's `custom_reward_function`;
- `fabula_env.verl`: verl's `web_search` and `web_extractor` tools (needs verl).
"""

from .client import FabulaClient, FabulaError, Session, render_extract, render_search

__all__ = ["FabulaClient", "FabulaError", "Session", "render_extract", "render_search"]
__version__ = "0.1.0"
