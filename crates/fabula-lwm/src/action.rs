//! Agent actions (`web_search`, `web_extractor`) and the session's control instruction.

use fabula_file::Hiding;

/// One tool call of the agent.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Action {
    /// `web_search` with one or more queries.
    Search { queries: Vec<String> },
    /// `web_extractor` of one url.
    Extract { url: String },
}

impl Action {
    /// The tool name as Qwen-AgentWorld's simulator prompt defines it.
    pub fn tool(&self) -> &'static str {
        match self {
            Action::Search { .. } => "web_search",
            Action::Extract { .. } => "web_extractor",
        }
    }

    /// The action with whitespace trimmed and collapsed, so equivalent calls share a cache entry.
    pub fn normalised(&self) -> Action {
        match self {
            Action::Search { queries } => Action::Search {
                queries: queries.iter().map(|q| collapse_whitespace(q)).collect(),
            },
            Action::Extract { url } => Action::Extract {
                url: url.trim().to_string(),
            },
        }
    }

    /// The tool input as JSON, e.g. `{"queries":["a","b"]}` or `{"url":"..."}`.
    pub fn input_json(&self) -> String {
        let value = match self {
            Action::Search { queries } => serde_json::json!({ "queries": queries }),
            Action::Extract { url } => serde_json::json!({ "url": url }),
        };
        value.to_string()
    }
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The session's control instruction for one observation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Controls {
    pub hiding: Hiding,
    /// Free-text instruction describing injected faults or pagination (e.g. "show only the first
    /// 3 results; cut the last snippet short"), as the simulator's control channel states it.
    /// Empty when nothing is injected.
    pub instruction: String,
}
