//! The two tools the rule-based agent calls, searching a world and reading a whole page, as a
//! trait: [`HttpClient`] reaches them over the server's REST API, and a caller that holds a
//! world's index (`fabula export lwm-data --trajectories tasks`) can answer them in process and
//! record each call with what it returned.

use crate::Result;
use crate::http::{Hit, HttpClient};

/// The agent's tools. An implementation answers as the REST API does: `search` returns the
/// first `top_k` hits with their rank, url, title and (hidden) snippet; `extract_all` a page's
/// title and whole Markdown. A page or world it cannot serve is an [`crate::Error::Status`] with
/// the status the API would answer (404), which ends the agent's attempt without an answer;
/// any other error stops the run.
pub trait Tools {
    /// One search of `world` for `query`.
    fn search(&self, world: u32, query: &str, top_k: usize) -> Result<Vec<Hit>>;
    /// The page at `url` of `world`, read `max_chars` characters at a time: (title, Markdown).
    fn extract_all(&self, world: u32, url: &str, max_chars: usize) -> Result<(String, String)>;
}

impl Tools for HttpClient {
    fn search(&self, world: u32, query: &str, top_k: usize) -> Result<Vec<Hit>> {
        HttpClient::search(self, world, query, top_k)
    }

    fn extract_all(&self, world: u32, url: &str, max_chars: usize) -> Result<(String, String)> {
        HttpClient::extract_all(self, world, url, max_chars)
    }
}
