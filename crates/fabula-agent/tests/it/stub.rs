//! A stand-in for the fabula server's agent-facing REST API, serving a dataset's pages over a
//! real socket: `POST /v1/worlds/{id}/search` (token-overlap ranking) and `/extract` (the page
//! Markdown, windowed by characters with `next_start`). It is a small axum router served on
//! `127.0.0.1:0` by a tokio runtime on a background thread.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::Json;
use axum::routing::post;
use fabula_file::WorldFile;
use serde_json::{Value, json};

/// One served page.
struct Page {
    url: String,
    title: String,
    date: Option<String>,
    markdown: String,
}

type Worlds = Arc<BTreeMap<u32, Vec<Page>>>;

type Answer = (StatusCode, Json<Value>);

/// Starts a stub server over every world of a dataset directory; returns `host:port`.
pub fn start(dir: &Path) -> String {
    let manifest = fabula_file::read_manifest(dir).unwrap();
    let mut worlds = BTreeMap::new();
    for entry in &manifest.worlds {
        let file = WorldFile::open(&dir.join(&entry.file)).unwrap();
        let pages = file.pages().unwrap().into_iter().map(|s| s.page);
        worlds.insert(entry.id, pages.collect());
    }
    start_worlds(worlds)
}

/// Starts a stub server over the pages of each world, by world id; returns `host:port`.
pub fn start_worlds(worlds: BTreeMap<u32, Vec<fabula_file::Page>>) -> String {
    let worlds: BTreeMap<u32, Vec<Page>> = worlds
        .into_iter()
        .map(|(id, pages)| (id, pages.into_iter().map(served).collect()))
        .collect();
    let app = Router::new()
        .route("/v1/worlds/{id}/{action}", post(route))
        .fallback(|| async { not_found("no such route") })
        .with_state(Arc::new(worlds));
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            sender.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    receiver.recv().unwrap().to_string()
}

/// A stored page as served: its Markdown starts with the title as a heading.
fn served(page: fabula_file::Page) -> Page {
    let markdown = if page.body.trim_start().starts_with("# ") {
        page.body
    } else {
        format!("# {}\n\n{}", page.title, page.body)
    };
    Page {
        url: page.url,
        title: page.title,
        date: page.published,
        markdown,
    }
}

fn not_found(message: &str) -> Answer {
    let body = json!({"error": {"code": "not_found", "message": message}});
    (StatusCode::NOT_FOUND, Json(body))
}

async fn route(
    State(worlds): State<Worlds>,
    UrlPath((id, action)): UrlPath<(String, String)>,
    body: Bytes,
) -> Answer {
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let Some(pages) = id.parse::<u32>().ok().and_then(|id| worlds.get(&id)) else {
        return not_found("no such world");
    };
    match action.as_str() {
        "search" => (StatusCode::OK, Json(search(pages, &request))),
        "extract" => match extract(pages, &request) {
            Some(answer) => (StatusCode::OK, Json(answer)),
            None => not_found("no such page"),
        },
        _ => not_found("no such route"),
    }
}

fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Ranks pages by an exact title match, then by query tokens in the title (3 each) and body.
fn search(pages: &[Page], request: &Value) -> Value {
    let query = request["query"].as_str().unwrap_or_default();
    let top_k = request["top_k"].as_u64().unwrap_or(10) as usize;
    let wanted = tokens(query);
    let score = |p: &Page| {
        let title = tokens(&p.title);
        let body = tokens(&p.markdown);
        let exact = usize::from(p.title.eq_ignore_ascii_case(query)) * 100;
        let overlap = wanted
            .iter()
            .map(|w| 3 * usize::from(title.contains(w)) + usize::from(body.contains(w)))
            .sum::<usize>();
        exact + overlap
    };
    let mut scored: Vec<(usize, usize)> = pages
        .iter()
        .enumerate()
        .map(|(i, p)| (score(p), i))
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
    json!({"query": query, "results": results, "page": 1, "has_more": scored.len() > top_k})
}

/// One window of a page's Markdown, or `None` for an unknown url.
fn extract(pages: &[Page], request: &Value) -> Option<Value> {
    let url = request["url"].as_str().unwrap_or_default();
    let p = pages.iter().find(|p| p.url == url)?;
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
    Some(
        json!({"url": p.url, "title": p.title, "date": p.date, "content": content, "next_start": next}),
    )
}
