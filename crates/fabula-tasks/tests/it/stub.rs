//! A stand-in for the fabula server's agent-facing REST API, serving a dataset's pages over a
//! real socket: `POST /v1/worlds/{id}/search` (token-overlap ranking) and `/extract` (the page
//! Markdown, windowed by characters with `next_start`), answered with `Connection: close`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};

/// One served page.
struct Page {
    url: String,
    title: String,
    date: Option<String>,
    markdown: String,
}

type Worlds = BTreeMap<u32, Vec<Page>>;

/// Starts a stub server over every world of a dataset directory; returns `host:port`.
pub fn start(dir: &Path) -> String {
    let manifest = fabula_world::dataset::read_manifest(dir).unwrap();
    let mut worlds: Worlds = BTreeMap::new();
    for entry in &manifest.worlds {
        let conn = rusqlite::Connection::open(dir.join(&entry.file)).unwrap();
        let mut stmt = conn
            .prepare("SELECT url, title, published, body FROM fabula_pages ORDER BY id")
            .unwrap();
        let pages = stmt
            .query_map([], |r| {
                let (url, title, date, body): (String, String, Option<String>, String) =
                    (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
                let markdown = if body.trim_start().starts_with("# ") {
                    body
                } else {
                    format!("# {title}\n\n{body}")
                };
                Ok(Page {
                    url,
                    title,
                    date,
                    markdown,
                })
            })
            .unwrap()
            .collect::<rusqlite::Result<Vec<_>>>()
            .unwrap();
        worlds.insert(entry.id, pages);
    }
    let worlds = Arc::new(worlds);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let worlds = Arc::clone(&worlds);
            std::thread::spawn(move || serve(stream, &worlds));
        }
    });
    addr
}

fn serve(stream: TcpStream, worlds: &Worlds) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    let mut length = 0;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).unwrap();
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap();
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).unwrap();
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (status, answer) = route(&path, &request, worlds);
    let text = answer.to_string();
    let reason = if status == 200 { "OK" } else { "Not Found" };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
    let mut stream = stream;
    let _ = stream.write_all(response.as_bytes());
}

fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn route(path: &str, request: &Value, worlds: &Worlds) -> (u16, Value) {
    let not_found = |message: &str| {
        (
            404,
            json!({"error": {"code": "not_found", "message": message}}),
        )
    };
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let ["v1", "worlds", id, action] = parts.as_slice() else {
        return not_found("no such route");
    };
    let Some(pages) = id.parse::<u32>().ok().and_then(|id| worlds.get(&id)) else {
        return not_found("no such world");
    };
    match *action {
        "search" => {
            let query = request["query"].as_str().unwrap_or_default();
            let top_k = request["top_k"].as_u64().unwrap_or(10) as usize;
            let wanted = tokens(query);
            let mut scored: Vec<(usize, usize)> = pages
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let title = tokens(&p.title);
                    let body = tokens(&p.markdown);
                    let exact = usize::from(p.title.eq_ignore_ascii_case(query)) * 100;
                    let score = exact
                        + wanted
                            .iter()
                            .map(|w| {
                                3 * usize::from(title.contains(w)) + usize::from(body.contains(w))
                            })
                            .sum::<usize>();
                    (score, i)
                })
                .filter(|(score, _)| *score > 0)
                .collect();
            scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let results: Vec<Value> = scored
                .iter()
                .take(top_k)
                .enumerate()
                .map(|(rank, (_, i))| {
                    let p = &pages[*i];
                    let snippet: String = p.markdown.chars().take(160).collect();
                    json!({"rank": rank + 1, "url": p.url, "title": p.title, "snippet": snippet, "date": p.date})
                })
                .collect();
            (
                200,
                json!({"query": query, "results": results, "page": 1, "has_more": scored.len() > top_k}),
            )
        }
        "extract" => {
            let url = request["url"].as_str().unwrap_or_default();
            let Some(p) = pages.iter().find(|p| p.url == url) else {
                return not_found("no such page");
            };
            let start = request["start"].as_u64().unwrap_or(0) as usize;
            let max_chars = request["max_chars"].as_u64().unwrap_or(8000) as usize;
            let total = p.markdown.chars().count();
            let end = (start + max_chars).min(total);
            let content: String = p
                .markdown
                .chars()
                .skip(start)
                .take(end.saturating_sub(start))
                .collect();
            let next = (end < total && end > start).then_some(end);
            (
                200,
                json!({"url": p.url, "title": p.title, "date": p.date, "content": content, "next_start": next}),
            )
        }
        _ => not_found("no such route"),
    }
}
