//! The JSON shapes of the native and session routes (search and extract requests, their
//! answers, the hiding names and the limits), with the validation every API shape shares, and
//! their OpenAPI schemas (derived with `utoipa`; the query, url and hiding schemas are written
//! here from the same limits the validation uses). This module knows nothing of the server's
//! state, so every other module can use it.

use std::borrow::Cow;

use axum::Json;
use axum::response::{IntoResponse, Response};
use fabula_search::{Extract, Hiding, Hit, SearchOptions, SearchResults};
use serde::{Deserialize, Serialize};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use crate::api_error::{ApiError, ErrorBody};

/// The longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 2_000;
/// The most queries one batch may hold.
pub const MAX_QUERIES: usize = 100;
/// Results per page when a request does not say.
pub const DEFAULT_TOP_K: usize = 10;
/// The most results per page.
pub const MAX_TOP_K: usize = 50;
/// The deepest result page that may be asked for.
pub const MAX_PAGE: usize = 1_000;
/// Characters per extract window when a request does not say.
pub const DEFAULT_MAX_CHARS: usize = 8_000;
/// The most characters per extract window.
pub const MAX_MAX_CHARS: usize = 100_000;
/// The longest url accepted, in characters.
pub const MAX_URL_CHARS: usize = 2_000;
/// The most bytes JSON spends on one character: a character outside the Basic Multilingual Plane
/// written as an escaped surrogate pair (`\ud83d\ude00`), as Python's `json.dumps` writes it.
pub const MAX_JSON_BYTES_PER_CHAR: usize = 12;
/// The body limit of the search routes (native and session): the longest body the schema allows
/// as a JSON writer writes it (no indentation), every query at [`MAX_QUERY_CHARS`] characters of
/// [`MAX_JSON_BYTES_PER_CHAR`] bytes each, with room for the other fields. A schema-valid search
/// is never refused as too large; every other route keeps the 64 KiB limit.
pub const MAX_SEARCH_BODY_BYTES: usize =
    MAX_QUERIES * (MAX_QUERY_CHARS * MAX_JSON_BYTES_PER_CHAR + 4) + 1024;

/// A JSON Schema pattern (ECMA-262, unanchored) that a string matches when it holds a character
/// other than Rust's whitespace (`char::is_whitespace`), which is what `str::trim` removes: the
/// rule behind "must not be blank". The class lists the whitespace characters one by one so that
/// every regex dialect reads it alike.
pub const NOT_BLANK_PATTERN: &str =
    "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";

/// The schema of one query: not blank, at most [`MAX_QUERY_CHARS`] characters.
pub struct QueryText;

impl PartialSchema for QueryText {
    fn schema() -> RefOr<Schema> {
        text_schema(
            MAX_QUERY_CHARS,
            "A search query: not blank, at most 2,000 characters.",
        )
    }
}

impl ToSchema for QueryText {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Query")
    }
}

/// The schema of one url: not blank, at most [`MAX_URL_CHARS`] characters.
pub struct UrlText;

impl PartialSchema for UrlText {
    fn schema() -> RefOr<Schema> {
        text_schema(
            MAX_URL_CHARS,
            "A page url as search results give it: not blank, at most 2,000 characters.",
        )
    }
}

impl ToSchema for UrlText {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Url")
    }
}

fn text_schema(max_chars: usize, description: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(max_chars))
        .pattern(Some(NOT_BLANK_PATTERN))
        .description(Some(description))
        .into()
}

/// The schema of [`Hiding`] (a type of `fabula_search`, so it cannot derive one here): its names.
pub struct HidingName;

impl PartialSchema for HidingName {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(Hiding::ALL.map(Hiding::as_str)))
            .description(Some(
                "How much of a page's detail a snippet may show; `partial` when not given.",
            ))
            .into()
    }
}

impl ToSchema for HidingName {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Hiding")
    }
}

/// The body of `POST /v1/worlds/{id}/search` (and of a session's search). Exactly one of `query`
/// and `queries` is given (a `null` counts as not given).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// One query; the answer is one query response object.
    #[schema(value_type = Option<QueryText>)]
    pub query: Option<String>,
    /// A batch of 1 to 100 queries; the answer is `{"responses": [..]}`, one entry per query, in
    /// order.
    #[schema(value_type = Option<Vec<QueryText>>, min_items = 1, max_items = 100)]
    pub queries: Option<Vec<String>>,
    /// Results per page, 1..=50, default 10.
    #[schema(minimum = 1, maximum = 50)]
    pub top_k: Option<usize>,
    /// The result page, from 1, default 1.
    #[schema(minimum = 1, maximum = 1000)]
    pub page: Option<usize>,
    /// Snippet hiding, default `"partial"`.
    #[schema(value_type = Option<HidingName>)]
    pub hiding: Option<Hiding>,
}

/// A search request after validation.
#[derive(Debug, Clone)]
pub(crate) struct ValidSearch {
    pub queries: Vec<String>,
    /// Whether the request used `queries` (batch envelope) rather than `query`.
    pub batch: bool,
    pub top_k: usize,
    pub page: usize,
    pub hiding: Option<Hiding>,
}

impl SearchRequest {
    pub(crate) fn validate(self) -> Result<ValidSearch, ApiError> {
        let (queries, batch) = match (self.query, self.queries) {
            (Some(query), None) => (vec![query], false),
            (None, Some(queries)) => {
                if queries.is_empty() {
                    return Err(ApiError::bad_request(
                        "`queries` must hold at least one query",
                    ));
                }
                if queries.len() > MAX_QUERIES {
                    return Err(ApiError::bad_request(format!(
                        "`queries` holds {} queries; at most {MAX_QUERIES} are allowed",
                        queries.len()
                    )));
                }
                (queries, true)
            }
            (Some(_), Some(_)) => {
                return Err(ApiError::bad_request(
                    "give either `query` or `queries`, not both",
                ));
            }
            (None, None) => {
                return Err(ApiError::bad_request(
                    "missing field `query` (or `queries`)",
                ));
            }
        };
        for query in &queries {
            validate_query(query)?;
        }
        let top_k = validate_top_k(self.top_k.unwrap_or(DEFAULT_TOP_K), "top_k", MAX_TOP_K)?;
        let page = self.page.unwrap_or(1);
        if page == 0 || page > MAX_PAGE {
            return Err(ApiError::bad_request(format!(
                "`page` must be between 1 and {MAX_PAGE}, got {page}"
            )));
        }
        Ok(ValidSearch {
            queries,
            batch,
            top_k,
            page,
            hiding: self.hiding,
        })
    }
}

/// Checks that a query is not blank and not over [`MAX_QUERY_CHARS`] characters.
pub fn validate_query(query: &str) -> Result<(), ApiError> {
    if query.trim().is_empty() {
        return Err(ApiError::bad_request("a query must not be empty"));
    }
    let n_chars = query.chars().count();
    if n_chars > MAX_QUERY_CHARS {
        return Err(ApiError::bad_request(format!(
            "a query must be at most {MAX_QUERY_CHARS} characters, got {n_chars}"
        )));
    }
    Ok(())
}

/// Checks a results-per-page value against `1..=max`.
pub fn validate_top_k(top_k: usize, field: &str, max: usize) -> Result<usize, ApiError> {
    if top_k == 0 || top_k > max {
        return Err(ApiError::bad_request(format!(
            "`{field}` must be between 1 and {max}, got {top_k}"
        )));
    }
    Ok(top_k)
}

/// Checks that a url is not blank and not absurdly long.
pub fn validate_url(url: &str) -> Result<(), ApiError> {
    if url.trim().is_empty() {
        return Err(ApiError::bad_request("`url` must not be empty"));
    }
    if url.chars().count() > MAX_URL_CHARS {
        return Err(ApiError::bad_request(format!(
            "`url` must be at most {MAX_URL_CHARS} characters"
        )));
    }
    Ok(())
}

/// One result of a search response.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[schema(as = Hit)]
pub struct HitJson {
    /// The result's position over all pages, from 1.
    #[schema(minimum = 1)]
    pub rank: usize,
    pub url: String,
    pub title: String,
    pub snippet: String,
    /// The page's date (`YYYY-MM-DD`), `null` for reference pages.
    #[schema(required = true)]
    pub date: Option<String>,
    /// The search's BM25 score, kept for the tool shapes that show one (BrowseComp-Plus's
    /// `search`); the REST answers leave it out.
    #[serde(skip)]
    #[schema(ignore)]
    pub score: f32,
}

impl From<Hit> for HitJson {
    fn from(hit: Hit) -> HitJson {
        let Hit {
            rank,
            url,
            title,
            snippet,
            date,
            score,
        } = hit;
        HitJson {
            rank,
            url,
            title,
            snippet,
            date,
            score,
        }
    }
}

/// The answer to one query: `{"query", "results", "page", "has_more"}`.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct QueryResponse {
    pub query: String,
    pub results: Vec<HitJson>,
    #[schema(minimum = 1)]
    pub page: usize,
    pub has_more: bool,
    /// The renderer that produced the results: `"template"` or `"lwm"`.
    #[schema(value_type = RendererName)]
    pub rendered_by: &'static str,
}

/// The schema of `rendered_by`: the renderers' names.
#[derive(ToSchema)]
#[schema(as = Renderer)]
#[serde(rename_all = "snake_case")]
#[allow(
    dead_code,
    reason = "a schema only: `rendered_by` is written as a `&'static str`"
)]
pub enum RendererName {
    Template,
    Lwm,
}

/// One entry of a batch answer: a query response, or `{"query", "error"}` for a query that failed.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum BatchItem {
    Ok(QueryResponse),
    /// A query of the batch that failed on its own (`injected_server_error`).
    #[schema(title = "FailedQuery")]
    Failed {
        query: String,
        error: ErrorBody,
    },
}

/// The answer to a batch: `{"responses": [..]}`.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct BatchResponse {
    pub responses: Vec<BatchItem>,
}

/// The answer to a search: one query's object for `query`, the batch envelope for `queries`.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum SearchAnswer {
    One(QueryResponse),
    Batch(BatchResponse),
}

/// Renders a search answer: the single object for `query`, the batch envelope for `queries`.
pub(crate) fn search_response(batch: bool, mut items: Vec<BatchItem>) -> Response {
    if !batch && items.len() == 1 {
        match items.pop() {
            Some(BatchItem::Ok(response)) => {
                return Json(SearchAnswer::One(response)).into_response();
            }
            Some(BatchItem::Failed { error, .. }) => {
                return ApiError::new(error.code, error.message).into_response();
            }
            None => {}
        }
    }
    Json(SearchAnswer::Batch(BatchResponse { responses: items })).into_response()
}

/// The body of `POST /v1/worlds/{id}/extract` (and of a session's extract).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtractRequest {
    #[schema(value_type = UrlText)]
    pub url: String,
    /// The first character of the window, default 0.
    #[schema(maximum = 18446744073709551615_u64)]
    pub start: Option<usize>,
    /// The window's length in characters, 1..=100,000, default 8,000.
    #[schema(minimum = 1, maximum = 100000)]
    pub max_chars: Option<usize>,
}

impl ExtractRequest {
    /// Returns `(start, max_chars)` after checking the fields.
    pub(crate) fn validate(&self) -> Result<(usize, usize), ApiError> {
        validate_url(&self.url)?;
        let max_chars = self.max_chars.unwrap_or(DEFAULT_MAX_CHARS);
        if max_chars == 0 || max_chars > MAX_MAX_CHARS {
            return Err(ApiError::bad_request(format!(
                "`max_chars` must be between 1 and {MAX_MAX_CHARS}, got {max_chars}"
            )));
        }
        Ok((self.start.unwrap_or(0), max_chars))
    }
}

/// The answer to an extract: `{"url", "title", "date", "content", "next_start"}`.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ExtractResponse {
    pub url: String,
    pub title: String,
    /// The page's date (`YYYY-MM-DD`), `null` for reference pages.
    #[schema(required = true)]
    pub date: Option<String>,
    /// The window of the page's Markdown.
    pub content: String,
    /// Where the next window starts; `null` at the end of the page.
    #[schema(required = true)]
    pub next_start: Option<usize>,
    /// The renderer that produced `content`: `"template"` or `"lwm"`.
    #[schema(value_type = RendererName)]
    pub rendered_by: &'static str,
}

impl From<Extract> for ExtractResponse {
    fn from(extract: Extract) -> ExtractResponse {
        let Extract {
            url,
            title,
            date,
            content,
            next_start,
            total_chars: _,
        } = extract;
        ExtractResponse {
            url,
            title,
            date,
            content,
            next_start,
            rendered_by: "template",
        }
    }
}

/// Turns a search result into a query response.
pub(crate) fn query_response(query: &str, results: SearchResults, page: usize) -> QueryResponse {
    let SearchResults { hits, has_more } = results;
    QueryResponse {
        query: query.to_owned(),
        results: hits.into_iter().map(HitJson::from).collect(),
        page,
        has_more,
        rendered_by: "template",
    }
}

/// The search options of a validated request.
pub(crate) fn search_options(valid: &ValidSearch, top_k: usize, hiding: Hiding) -> SearchOptions {
    SearchOptions {
        top_k,
        offset: (valid.page - 1) * top_k,
        hiding,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// Parses a search body, validates it and writes the outcome on one line.
    fn check(body: Value, expect: &str) {
        let request: SearchRequest = serde_json::from_value(body).unwrap();
        let actual = match request.validate() {
            Ok(ValidSearch {
                queries,
                batch,
                top_k,
                page,
                hiding,
            }) => format!("{queries:?} batch={batch} top_k={top_k} page={page} hiding={hiding:?}"),
            Err(error) => format!("{:?}: {}", error.code, error.message),
        };
        assert_eq!(actual, expect);
    }

    #[test]
    fn search_requests_are_validated() {
        check(
            json!({"query": "harbour"}),
            r#"["harbour"] batch=false top_k=10 page=1 hiding=None"#,
        );
        check(
            json!({"queries": ["a", "b"], "top_k": 3, "page": 2, "hiding": "strict"}),
            r#"["a", "b"] batch=true top_k=3 page=2 hiding=Some(Strict)"#,
        );
        check(
            json!({}),
            "BadRequest: missing field `query` (or `queries`)",
        );
        check(
            json!({"query": "a", "queries": ["b"]}),
            "BadRequest: give either `query` or `queries`, not both",
        );
        check(
            json!({"queries": []}),
            "BadRequest: `queries` must hold at least one query",
        );
        check(
            json!({"query": " "}),
            "BadRequest: a query must not be empty",
        );
        check(
            json!({"query": "a", "top_k": 51}),
            "BadRequest: `top_k` must be between 1 and 50, got 51",
        );
        check(
            json!({"query": "a", "page": 0}),
            "BadRequest: `page` must be between 1 and 1000, got 0",
        );
    }
}
