//! A tiny blocking HTTP/1.1 JSON client over `std::net::TcpStream`, for the baseline agent and
//! the answerability check.
//!
//! Each request opens a connection, sends `Connection: close` and reads the response to its end;
//! bodies are read by `Content-Length`, as chunks, or to the end of the stream. That is all the
//! agent-facing REST API needs, and it keeps this crate free of an async runtime.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

use crate::{Error, Result};

/// How to reach a server.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Sent as `Authorization: Bearer KEY` when set.
    pub api_key: Option<String>,
    /// Read and write timeout per request.
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
    config: ClientConfig,
}

/// One search hit, as the REST API returns it.
#[derive(Debug, Clone, PartialEq)]
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
            .to_string();
        HttpClient { addr, config }
    }

    /// The server address.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Sends `POST path` with a JSON body and returns the JSON answer; a non-2xx status is an
    /// [`Error::Status`].
    pub fn post_json(&self, path: &str, body: &Value) -> Result<Value> {
        let conn_err = |source: std::io::Error| Error::Connection {
            addr: self.addr.clone(),
            source,
        };
        let mut stream = TcpStream::connect(&self.addr).map_err(conn_err)?;
        stream
            .set_read_timeout(Some(self.config.timeout))
            .map_err(conn_err)?;
        stream
            .set_write_timeout(Some(self.config.timeout))
            .map_err(conn_err)?;
        let payload = body.to_string();
        let mut request = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n",
            self.addr,
            payload.len()
        );
        if let Some(key) = &self.config.api_key {
            request.push_str(&format!("Authorization: Bearer {key}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(&payload);
        stream.write_all(request.as_bytes()).map_err(conn_err)?;
        stream.flush().map_err(conn_err)?;
        let (status, body) = read_response(&mut BufReader::new(stream)).map_err(|e| match e {
            ReadError::Io(source) => Error::Connection {
                addr: self.addr.clone(),
                source,
            },
            ReadError::Malformed(message) => Error::Protocol {
                addr: self.addr.clone(),
                message,
            },
        })?;
        let text = String::from_utf8_lossy(&body).into_owned();
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
        let answer = self.post_json(
            &format!("/v1/worlds/{world}/search"),
            &serde_json::json!({"query": query, "top_k": top_k}),
        )?;
        let hits = answer
            .get("results")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        Ok(hits
            .iter()
            .map(|h| Hit {
                rank: h.get("rank").and_then(Value::as_i64).unwrap_or(0),
                url: h
                    .get("url")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                title: h
                    .get("title")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                snippet: h
                    .get("snippet")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            })
            .collect())
    }

    /// Reads a whole page through `POST /v1/worlds/{world}/extract`, following `next_start`
    /// window by window; returns the page's title and Markdown.
    pub fn extract_all(&self, world: u32, url: &str, max_chars: usize) -> Result<(String, String)> {
        let mut content = String::new();
        let mut title = String::new();
        let mut start = 0u64;
        // A page is never longer than a few hundred windows; the bound guards against a loop.
        for _ in 0..10_000 {
            let body = serde_json::json!({"url": url, "start": start, "max_chars": max_chars});
            let answer = self.post_json(&format!("/v1/worlds/{world}/extract"), &body)?;
            title = answer
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
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
}

enum ReadError {
    Io(std::io::Error),
    Malformed(String),
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> ReadError {
        ReadError::Io(e)
    }
}

/// Reads a status line, headers and body.
fn read_response(reader: &mut impl BufRead) -> std::result::Result<(u16, Vec<u8>), ReadError> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let version = parts.next().unwrap_or_default();
    if !version.starts_with("HTTP/1.") {
        return Err(ReadError::Malformed(format!("bad status line {line:?}")));
    }
    let status: u16 = parts
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| ReadError::Malformed(format!("bad status line {line:?}")))?;
    let mut length: Option<usize> = None;
    let mut chunked = false;
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(ReadError::Malformed("headers end early".into()));
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        if name == "content-length" {
            length = Some(
                value
                    .parse()
                    .map_err(|_| ReadError::Malformed(format!("bad Content-Length {value:?}")))?,
            );
        } else if name == "transfer-encoding" && value.to_ascii_lowercase().contains("chunked") {
            chunked = true;
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            reader.read_line(&mut line)?;
            let size_text = line.trim().split(';').next().unwrap_or_default();
            let size = usize::from_str_radix(size_text, 16)
                .map_err(|_| ReadError::Malformed(format!("bad chunk size {size_text:?}")))?;
            if size == 0 {
                break;
            }
            let mut chunk = vec![0u8; size];
            reader.read_exact(&mut chunk)?;
            body.extend_from_slice(&chunk);
            line.clear();
            reader.read_line(&mut line)?;
        }
    } else if let Some(n) = length {
        body.resize(n, 0);
        reader.read_exact(&mut body)?;
    } else {
        reader.read_to_end(&mut body)?;
    }
    Ok((status, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> (u16, String) {
        match read_response(&mut raw.as_bytes()) {
            Ok((status, body)) => (status, String::from_utf8(body).unwrap()),
            Err(_) => panic!("malformed"),
        }
    }

    #[test]
    fn reads_lengths_and_chunks() {
        assert_eq!(
            parse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"),
            (200, "{}".into())
        );
        let chunked = "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4\r\n\":1}\r\n0\r\n\r\n";
        assert_eq!(parse(chunked), (404, "{\"a\":1}".into()));
        assert_eq!(parse("HTTP/1.0 200 OK\r\n\r\n[1]"), (200, "[1]".into()));
    }
}
