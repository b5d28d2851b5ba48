"""verl integration: the `web_search` and `web_extractor` tools (`fabula_env.verl.tools`), their
example tool config (`tool_config.yaml`) and `@function_tool` versions for verl's
`function_tool_path` (`function_tools.py`). Importing this package needs verl installed."""

from .tools import FabulaExtractTool, FabulaSearchTool, FabulaTool

__all__ = ["FabulaExtractTool", "FabulaSearchTool", "FabulaTool"]
