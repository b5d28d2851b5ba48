//! A blocking JSON client for the server's agent-facing REST API, used by the baseline agent and
//! the answerability check. It wraps a `ureq` agent: no TLS (the server is reached over plain
//! `http://`), no proxy from the environment, and non-2xx answers read as [`Error::Status`] with
//! their body.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::{Error, Result};

/// How to reach a server.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Sent as `Authorization: Bearer KEY` when set.
    pub api_key: Option<String>,
    /// The longest one request may take, from connecting to the end of the body.
    pub timeout: Duration,
}

impl Default for ClientConfig {
    fn default() -> ClientConfig {
        ClientConfig {
            api_key: None,
            timeout: Duration::from_secs(30),
        }
    }
}

/// A client for one server address (`host:port`).
#[derive(Debug, Clone)]
pub struct HttpClient {
    addr: String,
    api_key: Option<String>,
    agent: ureq::Agent,
    /// The tool calls made so far (a search, or reading a whole page), shared by clones.
    calls: Arc<AtomicUsize>,
}

/// One search hit, as the REST API returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub rank: i64,
    pub url: String,
    pub title: String,
    pub snippet: String,
}

impl HttpClient {
    /// A client for `addr`, given as `host:port` (an `http://` prefix is dropped).
    pub fn new(addr: &str, config: ClientConfig) -> HttpClient {
        let addr = addr
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned();
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout))
            .http_status_as_error(false)
            .proxy(None)
            .build()
            .into();
        HttpClient {
            addr,
            api_key: config.api_key,
            agent,
            calls: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The server address.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// The tool calls made so far: one per [`HttpClient::search`] and per
    /// [`HttpClient::extract_all`], as an agent with search and extract tools counts them.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::Relaxed)
    }

    /// Sends `POST path` with a JSON body and returns the JSON answer; a non-2xx status is an
    /// [`Error::Status`].
    pub fn post_json(&self, path: &str, body: &Value) -> Result<Value> {
        let mut request = self
            .agent
            .post(format!("http://{}{path}", self.addr))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json");
        if let Some(key) = &self.api_key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = request.send(body.to_string()).map_err(|e| self.http(e))?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| self.http(e))?;
        if !(200..300).contains(&status) {
            return Err(Error::Status {
                addr: self.addr.clone(),
                status,
                body: text,
            });
        }
        serde_json::from_str(&text).map_err(|e| Error::Protocol {
            addr: self.addr.clone(),
            message: format!("body is not JSON: {e}"),
        })
    }

    /// `POST /v1/worlds/{world}/search` with one query.
    pub fn search(&self, world: u32, query: &str, top_k: usize) -> Result<Vec<Hit>> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let path = format!("/v1/worlds/{world}/search");
        let answer = self.post_json(&path, &json!({"query": query, "top_k": top_k}))?;
        let hits = answer.get("results").and_then(Value::as_array);
        Ok(hits.into_iter().flatten().map(hit).collect())
    }

    /// Reads a whole page through `POST /v1/worlds/{world}/extract`, following `next_start`
    /// window by window; returns the page's title and Markdown.
    pub fn extract_all(&self, world: u32, url: &str, max_chars: usize) -> Result<(String, String)> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let path = format!("/v1/worlds/{world}/extract");
        let mut content = String::new();
        let mut title = String::new();
        let mut start = 0u64;
        // A page is never longer than a few hundred windows; the bound guards against a loop.
        for _ in 0..10_000 {
            let body = json!({"url": url, "start": start, "max_chars": max_chars});
            let answer = self.post_json(&path, &body)?;
            title = text_field(&answer, "title");
            content.push_str(
                answer
                    .get("content")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            );
            match answer.get("next_start").and_then(Value::as_u64) {
                Some(next) if next > start => start = next,
                _ => break,
            }
        }
        Ok((title, content))
    }

    /// A client error: an I/O failure (a refused or broken connection) as itself, anything else
    /// as ureq reports it.
    fn http(&self, error: ureq::Error) -> Error {
        let addr = self.addr.clone();
        match error {
            ureq::Error::Io(source) => Error::Connection { addr, source },
            other => Error::Http {
                addr,
                source: Box::new(other),
            },
        }
    }
}

/// A search hit from its JSON; missing fields read as empty.
fn hit(value: &Value) -> Hit {
    Hit {
        rank: value.get("rank").and_then(Value::as_i64).unwrap_or(0),
        url: text_field(value, "url"),
        title: text_field(value, "title"),
        snippet: text_field(value, "snippet"),
    }
}

/// A string field of a JSON object, empty when missing.
fn text_field(value: &Value, name: &str) -> String {
    value
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(addr: &str, expect: &str) {
        assert_eq!(
            HttpClient::new(addr, ClientConfig::default()).addr(),
            expect
        );
    }

    #[test]
    fn addresses_drop_scheme_and_slash() {
        check("127.0.0.1:8080", "127.0.0.1:8080");
        check("http://127.0.0.1:8080/", "127.0.0.1:8080");
        check("localhost:9", "localhost:9");
    }

    #[test]
    fn hits_read_missing_fields_as_empty() {
        let got = hit(&json!({"rank": 2, "url": "https://w/a", "title": "A"}));
        let want = Hit {
            rank: 2,
            url: "https://w/a".into(),
            title: "A".into(),
            snippet: String::new(),
        };
        assert_eq!(got, want);
    }
}
