//! The Tavily-shaped endpoints (`POST /compat/tavily/{id}/search` and `/extract`), so a Tavily
//! client whose `api_base_url` is `.../compat/tavily/{id}` works unchanged. Errors are rendered as
//! Tavily renders them: `{"detail": {"error": ".."}}`.

use std::time::Instant;

use axum::Json;
use axum::extract::State;
use fabula_search::{Hiding, SearchOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api_error::{ApiError, ErrorCode, TavilyError};
use crate::extractors::{TavilyJson, TavilyPath};
use crate::state::AppState;
use crate::wire::{MAX_URL_CHARS, validate_query, validate_url};

/// Tavily's default `max_results`.
pub const DEFAULT_MAX_RESULTS: usize = 5;
/// Tavily's largest `max_results`.
pub const MAX_MAX_RESULTS: usize = 20;
/// The most urls one extract call may name, as in Tavily.
pub const MAX_EXTRACT_URLS: usize = 20;
/// The most characters of a page returned as `raw_content`.
pub const MAX_RAW_CHARS: usize = 1_000_000;

/// Tavily's search request. Fields Tavily defines that do not apply here (`search_depth`,
/// `topic`, `include_answer`, `include_images`, `api_key`, ...) are accepted and ignored.
#[derive(Debug, Clone, Deserialize)]
pub struct TavilySearchRequest {
    pub query: String,
    /// 0..=20, default 5.
    pub max_results: Option<usize>,
    /// `true`, `"markdown"` or `"text"` adds each page's Markdown as `raw_content`.
    #[serde(default)]
    pub include_raw_content: Value,
    /// A fabula extension: snippet hiding, default `"partial"`.
    pub hiding: Option<Hiding>,
}

/// One Tavily search result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TavilyResult {
    pub title: String,
    pub url: String,
    /// The snippet.
    pub content: String,
    /// The BM25 score mapped into (0, 1) as `bm25 / (bm25 + 1)`, so the order is kept.
    pub score: f32,
    pub raw_content: Option<String>,
}

/// Tavily's search response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TavilySearchResponse {
    pub query: String,
    /// Always `null`: fabula writes no answers.
    pub answer: Option<String>,
    /// Always empty.
    pub images: Vec<Value>,
    pub results: Vec<TavilyResult>,
    /// Seconds spent answering.
    pub response_time: f64,
}

/// `POST /compat/tavily/{id}/search`.
pub(crate) async fn search(
    State(state): State<AppState>,
    TavilyPath(world_id): TavilyPath<u32>,
    TavilyJson(request): TavilyJson<TavilySearchRequest>,
) -> Result<Json<TavilySearchResponse>, TavilyError> {
    let started = Instant::now();
    validate_query(&request.query)?;
    let max_results = request.max_results.unwrap_or(DEFAULT_MAX_RESULTS);
    if max_results > MAX_MAX_RESULTS {
        return Err(ApiError::bad_request(format!(
            "max_results must be between 0 and {MAX_MAX_RESULTS}"
        ))
        .into());
    }
    let include_raw = match &request.include_raw_content {
        Value::Null | Value::Bool(false) => false,
        Value::Bool(true) => true,
        Value::String(format) if format == "markdown" || format == "text" => true,
        _ => {
            return Err(ApiError::bad_request(
                "include_raw_content must be a boolean, \"markdown\" or \"text\"",
            )
            .into());
        }
    };
    let hiding = request.hiding.unwrap_or_default();
    let query = request.query.clone();
    let results = state
        .with_world(world_id, move |index| {
            if max_results == 0 {
                return Ok(Vec::new());
            }
            let options = SearchOptions {
                top_k: max_results,
                offset: 0,
                hiding,
            };
            let mut results = Vec::with_capacity(max_results);
            for hit in index.search(&query, &options)?.hits {
                let raw_content = if include_raw {
                    Some(index.extract(&hit.url, 0, MAX_RAW_CHARS)?.content)
                } else {
                    None
                };
                let score = hit.score.max(0.0) / (hit.score.max(0.0) + 1.0);
                results.push(TavilyResult {
                    title: hit.title,
                    url: hit.url,
                    content: hit.snippet,
                    score,
                    raw_content,
                });
            }
            Ok(results)
        })
        .await?;
    Ok(Json(TavilySearchResponse {
        query: request.query,
        answer: None,
        images: Vec::new(),
        results,
        response_time: round_seconds(started),
    }))
}

/// One url or a list of urls, as Tavily accepts both.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Urls {
    One(String),
    Many(Vec<String>),
}

/// Tavily's extract request; `format` (`markdown` or `text`) and `extract_depth` are accepted, and
/// the page is always returned as Markdown.
#[derive(Debug, Clone, Deserialize)]
pub struct TavilyExtractRequest {
    pub urls: Urls,
}

/// One extracted page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TavilyExtracted {
    pub url: String,
    pub raw_content: String,
}

/// One url that could not be extracted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TavilyFailed {
    pub url: String,
    pub error: String,
}

/// Tavily's extract response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TavilyExtractResponse {
    pub results: Vec<TavilyExtracted>,
    pub failed_results: Vec<TavilyFailed>,
    pub response_time: f64,
}

/// `POST /compat/tavily/{id}/extract`.
pub(crate) async fn extract(
    State(state): State<AppState>,
    TavilyPath(world_id): TavilyPath<u32>,
    TavilyJson(request): TavilyJson<TavilyExtractRequest>,
) -> Result<Json<TavilyExtractResponse>, TavilyError> {
    let started = Instant::now();
    let urls = match request.urls {
        Urls::One(url) => vec![url],
        Urls::Many(urls) => urls,
    };
    if urls.is_empty() || urls.len() > MAX_EXTRACT_URLS {
        return Err(ApiError::bad_request(format!(
            "urls must name between 1 and {MAX_EXTRACT_URLS} urls"
        ))
        .into());
    }
    for url in &urls {
        validate_url(url).map_err(|_| {
            ApiError::bad_request(format!(
                "each url must be non-empty and at most {MAX_URL_CHARS} characters"
            ))
        })?;
    }
    let (results, failed_results) = state
        .with_world(world_id, move |index| {
            let mut results = Vec::new();
            let mut failed_results = Vec::new();
            for url in urls {
                match index
                    .extract(&url, 0, MAX_RAW_CHARS)
                    .map_err(ApiError::from)
                {
                    Ok(extract) => {
                        results.push(TavilyExtracted {
                            url,
                            raw_content: extract.content,
                        });
                    }
                    Err(error) if error.code == ErrorCode::UrlNotFound => {
                        failed_results.push(TavilyFailed {
                            url,
                            error: error.message,
                        });
                    }
                    Err(error) => return Err(error),
                }
            }
            Ok((results, failed_results))
        })
        .await?;
    Ok(Json(TavilyExtractResponse {
        results,
        failed_results,
        response_time: round_seconds(started),
    }))
}

fn round_seconds(started: Instant) -> f64 {
    (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0
}
