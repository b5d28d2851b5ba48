//! The HTTP shapes that search agents already speak, served over fabula's worlds so their clients
//! work by changing only a base URL: Search-R1's `/retrieve` (verl's SearchTool, Search-R1's
//! own client), ASearcher's `/access` beside it, and Tavily's `/search` and `/extract`.
//!
//! | route | answer |
//! |---|---|
//! | `POST /retrieve`, `POST /v1/worlds/{id}/retrieve` | Search-R1: `{"result": [[{"document": {"id", "contents"}, "score"}]]}` ([`search_r1`]) |
//! | `POST /access`, `POST /v1/worlds/{id}/access` | ASearcher: `{"urls"}` -> `{"result": [{"url", "title", "contents"} or null]}` ([`access`]) |
//! | `POST /compat/tavily/{id}/search` | Tavily: `{"query", "answer", "images", "results", "response_time"}` ([`tavily`]) |
//! | `POST /compat/tavily/{id}/extract` | Tavily: `{"results", "failed_results", "response_time"}` |
//! | `POST /compat/tavily/{id}/crawl`, `/map` | 400 in Tavily's error shape: not supported |
//!
//! [`router`] is the routes, [`suite`] the routes with their part of the OpenAPI document, as
//! `fabula serve` mounts them beside the native API (`fabula_server::app_with`). The handlers
//! read worlds through the server's state ([`fabula_server::AppState`]) and answer its errors,
//! so limits, hiding, unavailable worlds and API keys hold here as on the native routes.

pub mod access;
pub mod search_r1;
pub mod tavily;

use axum::Router;
use axum::routing::post;
use fabula_server::openapi::{DocumentPart, ErrorBody};
use fabula_server::{AppState, ErrorCode, Suite};
use serde_json::{Value, json};
use utoipa::OpenApi;

#[derive(OpenApi)]
#[openapi(paths(
    search_r1::retrieve_world,
    search_r1::retrieve,
    access::access,
    access::access_world,
    tavily::search,
    tavily::extract,
))]
struct CompatDoc;

/// The error codes each operation answers besides the ones every route shares.
const OPERATION_ERRORS: &[(&str, &[ErrorCode])] = &[
    ("retrieve_world", WORLD),
    ("retrieve", WORLD),
    ("access", WORLD),
    ("access_world", WORLD),
    ("tavily_search", WORLD),
    ("tavily_extract", WORLD),
];

/// A world that does not exist or cannot be served.
const WORLD: &[ErrorCode] = &[ErrorCode::WorldNotFound, ErrorCode::WorldUnavailable];

/// Tavily's `/crawl` and `/map`: served (always 400), left out of the document.
pub const UNDOCUMENTED_ROUTES: &[(&str, &str)] = &[
    ("post", "/compat/tavily/{id}/crawl"),
    ("post", "/compat/tavily/{id}/map"),
];

/// Every route of the crate: Search-R1's and ASearcher's with the search routes' larger body
/// limits, Tavily's with Tavily's panic answer. The routes take the state per request; the
/// argument keeps the protocol crates' one signature (`fabula-mcp`'s router reads its limits).
pub fn router(_state: &AppState) -> Router<AppState> {
    Router::new()
        .merge(search_r1::routes())
        .route(
            "/access",
            post(access::access).layer(fabula_server::search_body_limit()),
        )
        .route(
            "/v1/worlds/{id}/access",
            post(access::access_world).layer(fabula_server::search_body_limit()),
        )
        .merge(tavily_routes())
}

/// The Tavily-shaped routes, whose handlers' panics are answered in Tavily's error shape.
fn tavily_routes() -> Router<AppState> {
    Router::new()
        .route("/compat/tavily/{id}/search", post(tavily::search))
        .route("/compat/tavily/{id}/extract", post(tavily::extract))
        .route("/compat/tavily/{id}/crawl", post(tavily::crawl))
        .route("/compat/tavily/{id}/map", post(tavily::map))
        .route_layer(fabula_server::edge::panics::tavily_layer())
}

/// The routes with their part of the OpenAPI document, to mount with `fabula_server::app_with`.
pub fn suite(state: &AppState) -> Suite {
    Suite {
        router: router(state),
        document: Some(DOCUMENT_PART),
        undocumented: UNDOCUMENTED_ROUTES,
    }
}

/// The crate's part of `GET /openapi.json`, as [`suite`] mounts it.
pub const DOCUMENT_PART: DocumentPart = DocumentPart {
    document,
    errors: OPERATION_ERRORS,
    error_body: Some(ErrorBody {
        schema: "TavilyError",
        operations: &["tavily_search", "tavily_extract"],
    }),
};

/// The crate's part of the document: its operations and schemas, Tavily's error body, and that
/// `/retrieve` names its world in the body (the corpus of the contract check holds several).
pub fn document() -> Value {
    let mut document = serde_json::to_value(CompatDoc::openapi()).unwrap_or_default();
    document["components"]["schemas"]["TavilyError"] = json!({
        "type": "object",
        "required": ["detail"],
        "properties": { "detail": {
            "type": "object",
            "required": ["error"],
            "properties": { "error": { "type": "string" } }
        } }
    });
    let body = &mut document["paths"]["/retrieve"]["post"]["requestBody"]["content"]["application/json"]
        ["schema"];
    *body = json!({ "allOf": [
        body.take(),
        { "required": ["world"], "properties": { "world": { "type": "integer" } } }
    ] });
    document
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_literal_limits_in_the_attributes_match_the_constants() {
        let document = document();
        let schemas = &document["components"]["schemas"];
        assert_eq!(
            schemas["RetrieveRequest"]["properties"]["queries"]["maxItems"].as_u64(),
            Some(search_r1::MAX_RETRIEVE_QUERIES as u64)
        );
        assert_eq!(
            schemas["TavilySearchRequest"]["properties"]["max_results"]["maximum"].as_u64(),
            Some(tavily::MAX_MAX_RESULTS as u64)
        );
    }

    #[test]
    fn every_operation_has_an_error_table_entry_and_every_entry_an_operation() {
        let document = document();
        let mut ids: Vec<&str> = document["paths"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|item| item.as_object().unwrap().values())
            .filter_map(|operation| operation["operationId"].as_str())
            .collect();
        ids.sort_unstable();
        let mut listed: Vec<&str> = OPERATION_ERRORS.iter().map(|(id, _)| *id).collect();
        listed.sort_unstable();
        assert_eq!(ids, listed);
        let body = DOCUMENT_PART.error_body.unwrap();
        assert!(body.operations.iter().all(|id| listed.contains(id)));
        assert!(schemas_of(&document).contains(&body.schema));
    }

    fn schemas_of(document: &Value) -> Vec<&str> {
        document["components"]["schemas"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect()
    }
}
