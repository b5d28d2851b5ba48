//! The baseline search agents of fabula, clients of the server's agent-facing REST API.
//!
//! [`run_baseline`] is a rule-based agent that knows every question template and the site's
//! layout; [`keyword`] a generic keyword agent that knows no template. [`http`] is the small JSON
//! client both use (and the answerability check of `fabula-audit`).
//!
//! The phrasing bank the rule-based agent matches questions against comes from
//! `fabula_tasks::phrasings`.

pub mod agent;
mod error;
pub mod http;
pub mod keyword;

pub use agent::{AgentConfig, run_baseline, run_baseline_counted};
pub use error::{Error, Result};
