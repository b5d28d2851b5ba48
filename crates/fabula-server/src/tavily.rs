//! The Tavily-shaped endpoints (`POST /compat/tavily/{id}/search` and `/extract`), so a Tavily
//! client whose `api_base_url` is `.../compat/tavily/{id}` works unchanged. Errors are rendered as
//! Tavily renders them: `{"detail": {"error": ".."}}`.

use std::time::Instant;

use axum::Json;
use axum::extract::State;
use fabula_search::{Hiding, SearchOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::api_error::{ApiError, ErrorCode, TavilyError};
use crate::extractors::{TavilyJson, TavilyPath};
use crate::state::{AppState, Cost};
use crate::wire::{HidingName, MAX_URL_CHARS, QueryText, UrlText, validate_query, validate_url};

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
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct TavilySearchRequest {
    #[schema(value_type = QueryText)]
    pub query: String,
    /// 0..=20, default 5.
    #[schema(minimum = 0, maximum = 20)]
    pub max_results: Option<usize>,
    /// `true`, `"markdown"` or `"text"` adds each page's Markdown as `raw_content`.
    #[serde(default)]
    #[schema(schema_with = raw_content_flag_schema)]
    pub include_raw_content: Value,
    /// A fabula extension: snippet hiding, default `"partial"`.
    #[schema(value_type = Option<HidingName>)]
    pub hiding: Option<Hiding>,
}

/// The schema of `include_raw_content`: a boolean, `null`, `"markdown"` or `"text"`.
fn raw_content_flag_schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    let flag = ObjectBuilder::new().schema_type(SchemaType::from_iter([Type::Boolean, Type::Null]));
    let format = ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(["markdown", "text"]));
    utoipa::openapi::OneOfBuilder::new()
        .item(flag)
        .item(format)
        .into()
}

/// The schema of `urls`: one url, or a list of 1 to [`MAX_EXTRACT_URLS`] urls.
fn urls_schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    let url = || <UrlText as utoipa::PartialSchema>::schema();
    let list = utoipa::openapi::ArrayBuilder::new()
        .items(url())
        .min_items(Some(1))
        .max_items(Some(MAX_EXTRACT_URLS));
    utoipa::openapi::OneOfBuilder::new()
        .item(url())
        .item(list)
        .into()
}

/// One Tavily search result.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TavilyResult {
    pub title: String,
    pub url: String,
    /// The snippet.
    pub content: String,
    /// The BM25 score mapped into (0, 1) as `bm25 / (bm25 + 1)`, so the order is kept.
    #[schema(minimum = 0, maximum = 1)]
    pub score: f32,
    /// The page's Markdown when `include_raw_content` asked for it, else `null`.
    #[schema(required = true)]
    pub raw_content: Option<String>,
}

/// Tavily's search response.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TavilySearchResponse {
    pub query: String,
    /// Always `null`: fabula writes no answers.
    #[schema(required = true)]
    pub answer: Option<String>,
    /// Always empty.
    #[schema(max_items = 0)]
    pub images: Vec<Value>,
    pub results: Vec<TavilyResult>,
    /// Seconds spent answering.
    #[schema(minimum = 0)]
    pub response_time: f64,
}

/// `POST /compat/tavily/{id}/search`.
#[utoipa::path(post, path = "/compat/tavily/{id}/search", operation_id = "tavily_search", tag = "tavily",
    summary = "Tavily-shaped search; errors are Tavily's `{\"detail\": {\"error\"}}`",
    params(("id" = u32, Path, description = "The world id.", format = "uint32", maximum = 4294967295_u64)),
    request_body(content = TavilySearchRequest, description = "Tavily's other fields (`search_depth`, `topic`, `api_key`, ...) are accepted and ignored"),
    responses((status = 200, description = "Tavily's search answer", body = TavilySearchResponse)))]
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
    // Raw contents mean an extract per result.
    let cost = if include_raw { Cost::Many } else { Cost::One };
    let results = state
        .with_world(world_id, cost, move |index| {
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
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct TavilyExtractRequest {
    #[schema(schema_with = urls_schema)]
    pub urls: Urls,
}

/// One extracted page.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TavilyExtracted {
    pub url: String,
    pub raw_content: String,
}

/// One url that could not be extracted.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TavilyFailed {
    pub url: String,
    pub error: String,
}

/// Tavily's extract response.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TavilyExtractResponse {
    pub results: Vec<TavilyExtracted>,
    pub failed_results: Vec<TavilyFailed>,
    #[schema(minimum = 0)]
    pub response_time: f64,
}

/// `POST /compat/tavily/{id}/extract`.
#[utoipa::path(post, path = "/compat/tavily/{id}/extract", operation_id = "tavily_extract", tag = "tavily",
    summary = "Tavily-shaped extract; errors are Tavily's `{\"detail\": {\"error\"}}`",
    params(("id" = u32, Path, description = "The world id.", format = "uint32", maximum = 4294967295_u64)),
    request_body(content = TavilyExtractRequest, description = "`format` and `extract_depth` are accepted and ignored; pages are Markdown"),
    responses((status = 200, description = "Tavily's extract answer; unknown urls are listed in `failed_results`", body = TavilyExtractResponse)))]
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
    let cost = Cost::of(urls.len());
    let (results, failed_results) = state
        .with_world(world_id, cost, move |index| {
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
