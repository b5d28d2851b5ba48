//! The baseline search agents of fabula, clients of the server's agent-facing REST API.
//!
//! [`run_baseline`] is a rule-based agent that knows every question template and the site's
//! layout; [`keyword`] a generic keyword agent that knows no template. [`http`] is the small JSON
//! client both use (and the answerability check of `fabula-audit`).
//!
//! The phrasing bank the rule-based agent matches questions against, the clue grammar it parses
//! and the prose reader it reads pages with come from `fabula-vocab`: the agents link no part of
//! the generator (`fabula-world`, `fabula-pages`, `fabula-tasks`), which the tidy test keeps so.

pub mod agent;
mod error;
pub mod http;
pub mod keyword;

pub use agent::{AgentConfig, run_baseline, run_baseline_counted};
pub use error::{Error, Result};
