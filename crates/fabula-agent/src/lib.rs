//! The baseline search agents of fabula, clients of the server's agent-facing REST API.
//!
//! [`run_baseline`] is a rule-based agent that knows every question template and the site's
//! layout; [`keyword`] a generic keyword agent that knows no template. [`http`] is the small JSON
//! client both use (and the answerability check of `fabula-audit`). [`Tools`] is the rule-based
//! agent's view of the API, so [`run_baseline_with`] can run it over tools a caller answers in
//! process (the task-driven trajectories of `fabula export lwm-data`).
//!
//! The phrasing bank the rule-based agent matches questions against, the clue grammar it parses
//! and the prose reader it reads pages with come from `fabula-vocab`: the agents link no part of
//! the generator (`fabula-world`, `fabula-pages`, `fabula-tasks`), which the tidy test keeps so.

pub mod agent;
mod error;
pub mod http;
pub mod keyword;
mod tools;

pub use agent::{AgentConfig, run_baseline, run_baseline_counted, run_baseline_with};
pub use error::{Error, Result};
pub use tools::Tools;
