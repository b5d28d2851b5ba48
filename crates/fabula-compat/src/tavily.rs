//! The Tavily-shaped endpoints (`POST /compat/tavily/{id}/search` and `/extract`), so a Tavily
//! client whose `api_base_url` is `.../compat/tavily/{id}` (with or without a trailing slash)
//! works unchanged. Errors are rendered as Tavily renders them: `{"detail": {"error": ".."}}`.
//!
//! Search honours `include_domains`, `exclude_domains`, `topic` (`general`, or `news` for the
//! dated news pages only), `time_range`, `start_date`, `end_date` and, with the news topic, `days`
//! ([`filters`]). A dated result carries `published_date` as Tavily writes it, an HTTP date
//! (`Mon, 05 May 2025 00:00:00 GMT`; pages are dated to the day). `include_raw_content: "text"`
//! and extract's `format: "text"` give the page as plain text (its blocks converted by
//! [`fabula_search::plain_text`] and separated by blank lines) instead of Markdown.
//!
//! What fabula cannot do is refused with a 400 that says so, rather than ignored:
//! `include_answer` (fabula writes no answers), `include_images` (its pages have none),
//! `include_domains_mode: "prefer"`, `topic: "finance"`, and the `/crawl` and `/map` endpoints.
//! Fields that only tune Tavily's own service (`search_depth`, `country`, `auto_parameters`,
//! `chunks_per_source`, `include_favicon`, `include_usage`, `exact_match`, `extract_depth`,
//! `api_key`, ...) are accepted and ignored.

mod extract;
pub mod filters;

use std::time::Instant;

use axum::Json;
use axum::extract::State;
use fabula_date::CivilDate;
use fabula_search::{Hiding, Hit, MAX_TOP_K, SearchOptions, WorldIndex};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use extract::{TavilyJson, TavilyPath};
use fabula_server::api_error::{ApiError, ErrorCode, TavilyError};
use fabula_server::wire::{
    HidingName, MAX_URL_CHARS, QueryText, UrlText, validate_query, validate_url,
};
use fabula_server::{AppState, Cost};
use filters::{FilterRequest, Filters, PageFacts, PageFilter};

/// Tavily's default `max_results`.
pub const DEFAULT_MAX_RESULTS: usize = 5;
/// Tavily's largest `max_results`.
pub const MAX_MAX_RESULTS: usize = 20;
/// The most urls one extract call may name, as in Tavily.
pub const MAX_EXTRACT_URLS: usize = 20;
/// The most characters of a page returned as `raw_content`.
pub const MAX_RAW_CHARS: usize = 1_000_000;

/// Tavily's search request. Fields that only tune Tavily's own service (`search_depth`,
/// `country`, `api_key`, ...) are accepted and ignored.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct TavilySearchRequest {
    #[schema(value_type = QueryText)]
    pub query: String,
    /// 0..=20, default 5.
    #[schema(minimum = 0, maximum = 20)]
    pub max_results: Option<usize>,
    /// `true` or `"markdown"` adds each page's Markdown as `raw_content`, `"text"` its plain text.
    #[serde(default)]
    #[schema(schema_with = raw_content_flag_schema)]
    pub include_raw_content: Value,
    /// A fabula extension: snippet hiding, default `"partial"`.
    #[schema(value_type = Option<HidingName>)]
    pub hiding: Option<Hiding>,
    /// Only pages of these domains (a host matches its subdomains; `host/path` matches a path
    /// prefix); at most 300.
    #[serde(default)]
    #[schema(max_items = 300)]
    pub include_domains: Vec<String>,
    /// No pages of these domains; at most 150.
    #[serde(default)]
    #[schema(max_items = 150)]
    pub exclude_domains: Vec<String>,
    /// `general` (the default) or `news`: only the world's dated news pages. `finance` is
    /// refused (the worlds have no financial pages).
    #[schema(value_type = Option<String>, pattern = "^(general|news)$")]
    pub topic: Option<String>,
    /// With `topic: "news"` only, as in Tavily: pages published at most this many days before
    /// the world's latest page date; no default. Ignored with another topic.
    #[schema(minimum = 1)]
    pub days: Option<i64>,
    /// `day`, `week`, `month`, `year` (or `d`, `w`, `m`, `y`), counted back from the world's
    /// latest page date; pages without a date are left out.
    #[schema(value_type = Option<String>, pattern = "^(day|week|month|year|d|w|m|y)$")]
    pub time_range: Option<String>,
    /// Only pages published on or after this date (`YYYY-MM-DD`).
    #[schema(value_type = Option<String>, pattern = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$")]
    pub start_date: Option<String>,
    /// Only pages published on or before this date (`YYYY-MM-DD`).
    #[schema(value_type = Option<String>, pattern = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$")]
    pub end_date: Option<String>,
    /// Only `"restrict"` (the default) is supported.
    #[schema(value_type = Option<String>, pattern = "^restrict$")]
    pub include_domains_mode: Option<String>,
    /// Unsupported: only `false` or `null` (fabula writes no answers).
    #[serde(default)]
    #[schema(schema_with = off_flag_schema)]
    pub include_answer: Value,
    /// Unsupported: only `false` or `null` (the pages have no images).
    #[serde(default)]
    #[schema(schema_with = off_flag_schema)]
    pub include_images: Value,
}

impl TavilySearchRequest {
    /// Refuses the options fabula cannot honour, and reads the filters.
    fn filters(&self) -> Result<Filters, ApiError> {
        let unsupported = |field: &str, why: &str| {
            ApiError::bad_request(format!("{field} is not supported by fabula: {why}"))
        };
        if !matches!(self.include_answer, Value::Null | Value::Bool(false)) {
            return Err(unsupported(
                "include_answer",
                "it writes no answers (`answer` is always null); read the results instead",
            ));
        }
        if !matches!(self.include_images, Value::Null | Value::Bool(false)) {
            return Err(unsupported("include_images", "its pages have no images"));
        }
        if let Some(mode) = self
            .include_domains_mode
            .as_deref()
            .filter(|m| *m != "restrict")
        {
            return Err(unsupported(
                &format!("include_domains_mode `{mode}`"),
                "include_domains always restricts",
            ));
        }
        Filters::parse(FilterRequest {
            include_domains: &self.include_domains,
            exclude_domains: &self.exclude_domains,
            topic: self.topic.as_deref(),
            time_range: self.time_range.as_deref(),
            start_date: self.start_date.as_deref(),
            end_date: self.end_date.as_deref(),
            days: self.days,
        })
        .map_err(ApiError::bad_request)
    }
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

/// The schema of an unsupported option: `false` or `null` only.
fn off_flag_schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Boolean, Type::Null]))
        .enum_values(Some([Value::Bool(false), Value::Null]))
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
    /// The page's Markdown (or plain text) when `include_raw_content` asked for it, else `null`.
    #[schema(required = true)]
    pub raw_content: Option<String>,
    /// The page's publication date as Tavily writes it, an HTTP date at midnight GMT
    /// (`Mon, 05 May 2025 00:00:00 GMT`); absent on undated pages (encyclopedia articles, lists).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = String, required = false)]
    pub published_date: Option<String>,
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
    request_body(content = TavilySearchRequest, description = "Tavily's other fields (`search_depth`, `country`, `api_key`, ...) are accepted and ignored"),
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
    let raw_format = match &request.include_raw_content {
        Value::Null | Value::Bool(false) => None,
        Value::Bool(true) => Some(PageFormat::Markdown),
        Value::String(format) if format == "markdown" => Some(PageFormat::Markdown),
        Value::String(format) if format == "text" => Some(PageFormat::Text),
        _ => {
            return Err(ApiError::bad_request(
                "include_raw_content must be a boolean, \"markdown\" or \"text\"",
            )
            .into());
        }
    };
    let filters = request.filters()?;
    let hiding = request.hiding.unwrap_or_default();
    let query = request.query.clone();
    // Raw contents mean an extract per result; filters may scan many results.
    let cost = if raw_format.is_some() || !filters.is_empty() {
        Cost::Many
    } else {
        Cost::One
    };
    let results = state
        .with_world(world_id, cost, move |index| {
            if max_results == 0 {
                return Ok(Vec::new());
            }
            let keep = filters.for_world(index.latest_date());
            let hits = if filters.is_empty() {
                let options = SearchOptions {
                    top_k: max_results,
                    offset: 0,
                    hiding,
                };
                index.search(&query, &options)?.hits
            } else {
                filtered_hits(index, &query, hiding, max_results, keep)?
            };
            let mut results = Vec::with_capacity(hits.len());
            for hit in hits {
                let raw_content = match raw_format {
                    Some(format) => Some(page_content(index, &hit.url, format)?),
                    None => None,
                };
                let score = hit.score.max(0.0) / (hit.score.max(0.0) + 1.0);
                results.push(TavilyResult {
                    title: hit.title,
                    url: hit.url,
                    content: hit.snippet,
                    score,
                    raw_content,
                    published_date: hit.date.as_deref().and_then(published_date),
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

/// The best `max_results` hits that pass the filter: the ranking is read page by page until
/// enough pass or it ends.
fn filtered_hits(
    index: &WorldIndex,
    query: &str,
    hiding: Hiding,
    max_results: usize,
    keep: PageFilter<'_>,
) -> fabula_search::Result<Vec<Hit>> {
    let mut hits = Vec::with_capacity(max_results);
    let mut offset = 0;
    loop {
        let options = SearchOptions {
            top_k: MAX_TOP_K,
            offset,
            hiding,
        };
        let page = index.search(query, &options)?;
        offset += page.hits.len();
        for hit in page.hits {
            let facts = PageFacts {
                url: &hit.url,
                date: hit.date.as_deref(),
                kind: index.page_kind(&hit.url)?,
            };
            if keep.keep(facts) {
                hits.push(hit);
            }
        }
        if hits.len() >= max_results || !page.has_more {
            hits.truncate(max_results);
            return Ok(hits);
        }
    }
}

/// `POST /compat/tavily/{id}/crawl`: refused, with what to use instead.
pub(crate) async fn crawl() -> TavilyError {
    unsupported_endpoint("crawl")
}

/// `POST /compat/tavily/{id}/map`: refused, with what to use instead.
pub(crate) async fn map() -> TavilyError {
    unsupported_endpoint("map")
}

fn unsupported_endpoint(endpoint: &str) -> TavilyError {
    ApiError::bad_request(format!(
        "{endpoint} is not supported by fabula: search with /search and read pages with /extract"
    ))
    .into()
}

/// One url or a list of urls, as Tavily accepts both.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Urls {
    One(String),
    Many(Vec<String>),
}

/// Tavily's extract request; `extract_depth` is accepted and ignored.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct TavilyExtractRequest {
    #[schema(schema_with = urls_schema)]
    pub urls: Urls,
    /// `markdown` (the default) returns each page's Markdown, `text` its plain text.
    #[schema(value_type = Option<String>, pattern = "^(markdown|text)$")]
    pub format: Option<String>,
}

/// How a page's content is returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PageFormat {
    Markdown,
    Text,
}

/// The page's whole content (up to [`MAX_RAW_CHARS`]) in a format.
fn page_content(
    index: &WorldIndex,
    url: &str,
    format: PageFormat,
) -> fabula_search::Result<String> {
    let markdown = index.extract(url, 0, MAX_RAW_CHARS)?.content;
    Ok(match format {
        PageFormat::Markdown => markdown,
        PageFormat::Text => plain_page_text(&markdown),
    })
}

/// A page's Markdown as plain text: each block (the lines between blank lines) becomes one line
/// of [`fabula_search::plain_text`], and blocks are separated by a blank line.
fn plain_page_text(markdown: &str) -> String {
    let blocks: Vec<String> = markdown
        .split("\n\n")
        .map(fabula_search::plain_text)
        .filter(|text| !text.is_empty())
        .collect();
    blocks.join("\n\n")
}

/// A page date (`YYYY-MM-DD`) as Tavily's `published_date`, an HTTP date.
fn published_date(date: &str) -> Option<String> {
    CivilDate::parse_iso_clamped(date).map(CivilDate::http_date)
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
    request_body(content = TavilyExtractRequest, description = "`extract_depth` is accepted and ignored; `format` picks Markdown (the default) or plain text"),
    responses((status = 200, description = "Tavily's extract answer; unknown urls are listed in `failed_results`", body = TavilyExtractResponse)))]
pub(crate) async fn extract(
    State(state): State<AppState>,
    TavilyPath(world_id): TavilyPath<u32>,
    TavilyJson(request): TavilyJson<TavilyExtractRequest>,
) -> Result<Json<TavilyExtractResponse>, TavilyError> {
    let started = Instant::now();
    let format = match request.format.as_deref() {
        None | Some("markdown") => PageFormat::Markdown,
        Some("text") => PageFormat::Text,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "format must be markdown or text, not `{other}`"
            ))
            .into());
        }
    };
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
                match page_content(index, &url, format).map_err(ApiError::from) {
                    Ok(raw_content) => {
                        results.push(TavilyExtracted { url, raw_content });
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_keeps_the_blocks_and_drops_the_markdown() {
        let check = |markdown: &str, expect: &str| {
            assert_eq!(plain_page_text(markdown), expect, "{markdown}");
        };
        check(
            "# Port Amsel\n\n| Population | 48,213 |\n|---|---|\n| Founded | 1203 |\n\n\
             Port Amsel is a **harbour** [city](/wiki/city).\nIt has lanterns.\n",
            "Port Amsel\n\nPopulation: 48,213 · Founded: 1203\n\n\
             Port Amsel is a harbour city. It has lanterns.",
        );
        check(
            "## Guilds\n\n- Lantern guild\n- Ferry guild\n\n---\n",
            "Guilds\n\nLantern guild · Ferry guild",
        );
        check("", "");
    }

    #[test]
    fn published_dates_are_http_dates() {
        let check = |date: &str, expect: Option<&str>| {
            assert_eq!(published_date(date).as_deref(), expect, "{date}");
        };
        check("1999-04-12", Some("Mon, 12 Apr 1999 00:00:00 GMT"));
        check("2139-12-16", Some("Wed, 16 Dec 2139 00:00:00 GMT"));
        check("12/04/1999", None);
    }

    #[test]
    fn the_documented_date_pattern_is_the_one_the_filters_read() {
        let schema =
            serde_json::to_value(<TavilySearchRequest as utoipa::PartialSchema>::schema()).unwrap();
        for field in ["start_date", "end_date"] {
            assert_eq!(
                schema["properties"][field]["pattern"],
                filters::DATE_PATTERN,
                "{field}"
            );
        }
    }
}
