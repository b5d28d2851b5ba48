//! `GET /openapi.json`: an OpenAPI 3.1 document of every REST route, its request and its
//! responses, written by hand so nothing is downloaded or generated at build time. A test reads
//! the router's source and checks that the document lists exactly the routes it declares.

use axum::Json;
use serde_json::{Map, Value, json};

/// `GET /openapi.json`.
pub(crate) async fn serve() -> Json<Value> {
    Json(document())
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn json_body(schema: &str) -> Value {
    json!({ "required": true, "content": { "application/json": { "schema": schema_ref(schema) } } })
}

fn ok(description: &str, schema: &str) -> Value {
    json!({ "description": description, "content": { "application/json": { "schema": schema_ref(schema) } } })
}

fn error(description: &str) -> Value {
    ok(description, "ErrorEnvelope")
}

fn path_param(name: &str, description: &str, integer: bool) -> Value {
    json!({
        "name": name,
        "in": "path",
        "required": true,
        "description": description,
        "schema": { "type": if integer { "integer" } else { "string" } }
    })
}

/// One operation: summary, parameters, body schema (if any) and answers besides the errors every
/// JSON route shares.
fn operation(
    summary: &str,
    parameters: Vec<Value>,
    body: Option<&str>,
    responses: Vec<(&str, Value)>,
) -> Value {
    let mut answers = Map::new();
    for (status, response) in responses {
        answers.insert(status.to_owned(), response);
    }
    for (status, description) in [
        (
            "400",
            "bad_request: malformed JSON, wrong types, unknown fields or values out of range",
        ),
        (
            "401",
            "unauthorized: a key is configured and the request lacks `Authorization: Bearer KEY`",
        ),
        (
            "404",
            "world_not_found, url_not_found, session_not_found or not_found",
        ),
        ("413", "payload_too_large: a body over 64 KiB"),
        (
            "500",
            "internal (a bug or broken world file) or injected_server_error",
        ),
    ] {
        answers
            .entry(status.to_owned())
            .or_insert_with(|| error(description));
    }
    let mut operation = json!({ "summary": summary, "responses": answers });
    if !parameters.is_empty() {
        operation["parameters"] = Value::Array(parameters);
    }
    if let Some(schema) = body {
        operation["requestBody"] = json_body(schema);
    }
    operation
}

/// The whole OpenAPI 3.1 document.
pub fn document() -> Value {
    let world = || path_param("id", "The world id.", true);
    let session = || path_param("sid", "The session id from `POST /v1/sessions`.", false);
    let session_errors = || {
        vec![
            (
                "429",
                error("rate_limited: injected by the session's controls; see `Retry-After`"),
            ),
            (
                "504",
                error("timeout: injected by the session's controls, after `timeout_ms`"),
            ),
        ]
    };
    let mut session_search = vec![(
        "200",
        ok(
            "One query's answer, or the batch envelope for `queries`",
            "SearchAnswer",
        ),
    )];
    session_search.extend(session_errors());
    let mut session_extract = vec![("200", ok("The page window", "ExtractResponse"))];
    session_extract.extend(session_errors());
    let tavily_error = json!({ "description": "Tavily-shaped error", "content": { "application/json": { "schema": schema_ref("TavilyError") } } });
    let paths = json!({
        "/health": { "get": operation("Liveness: worlds and sessions held; never needs a key", vec![], None, vec![("200", ok("Healthy", "Health"))]) },
        "/v1/worlds": { "get": operation("List the worlds", vec![], None, vec![("200", ok("The worlds, by id", "WorldList"))]) },
        "/v1/worlds/{id}/search": { "post": operation("Search one world", vec![world()], Some("SearchRequest"), vec![("200", ok("One query's answer, or the batch envelope for `queries`", "SearchAnswer"))]) },
        "/v1/worlds/{id}/extract": { "post": operation("Read a window of one page as Markdown", vec![world()], Some("ExtractRequest"), vec![("200", ok("The page window", "ExtractResponse"))]) },
        "/v1/worlds/{id}/retrieve": { "post": operation("Search-R1 retrieval in one world", vec![world()], Some("RetrieveRequest"), vec![("200", ok("Documents per query", "RetrieveResponse"))]) },
        "/retrieve": { "post": operation("Search-R1 retrieval; the world is named in the body", vec![], Some("RetrieveRequest"), vec![("200", ok("Documents per query", "RetrieveResponse"))]) },
        "/compat/tavily/{id}/search": { "post": operation("Tavily-shaped search", vec![world()], Some("TavilySearchRequest"), vec![("200", ok("Tavily search answer", "TavilySearchResponse")), ("400", tavily_error.clone()), ("401", tavily_error.clone()), ("404", tavily_error.clone())]) },
        "/compat/tavily/{id}/extract": { "post": operation("Tavily-shaped extract", vec![world()], Some("TavilyExtractRequest"), vec![("200", ok("Tavily extract answer", "TavilyExtractResponse")), ("400", tavily_error.clone()), ("401", tavily_error.clone()), ("404", tavily_error)]) },
        "/v1/sessions": { "post": operation("Create a session: a world, a seed and controls", vec![], Some("CreateSessionRequest"), vec![("200", ok("The session and its resolved controls", "CreateSessionResponse"))]) },
        "/v1/sessions/{sid}": { "delete": operation("Delete a session", vec![session()], None, vec![("204", json!({ "description": "Deleted" }))]) },
        "/v1/sessions/{sid}/search": { "post": operation("Search under the session's controls", vec![session()], Some("SearchRequest"), session_search) },
        "/v1/sessions/{sid}/extract": { "post": operation("Extract under the session's controls", vec![session()], Some("ExtractRequest"), session_extract) },
        "/v1/sessions/{sid}/log": { "get": operation("The session's call log", vec![session()], None, vec![("200", ok("The log", "SessionLog"))]) },
        "/metrics": { "get": { "summary": "Prometheus metrics: observations served by renderer and world-model counters", "responses": { "200": { "description": "Prometheus text format", "content": { "text/plain": { "schema": { "type": "string" } } } } } } },
        "/openapi.json": { "get": { "summary": "This document", "responses": { "200": { "description": "OpenAPI 3.1", "content": { "application/json": { "schema": { "type": "object" } } } } } } },
        "/mcp/{world}": mcp_path(),
    });
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "fabula",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "A local web-search environment over fictional worlds. Errors are `{\"error\": {\"code\", \"message\"}}` with stable codes (Tavily routes: `{\"detail\": {\"error\"}}`). With an API key configured every route but `/health` needs `Authorization: Bearer KEY`."
        },
        "servers": [{ "url": "http://127.0.0.1:8080" }],
        "components": {
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer" } },
            "schemas": schemas()
        },
        "security": [{ "bearer": [] }, {}],
        "paths": paths
    })
}

fn mcp_path() -> Value {
    let parameters = json!([
        { "name": "world", "in": "path", "required": true, "schema": { "type": "integer" }, "description": "The world the MCP session searches." },
        { "name": "seed", "in": "query", "required": false, "schema": { "type": "integer", "minimum": 0 }, "description": "The session's seed (also `X-Fabula-Seed`)." },
        { "name": "X-Fabula-Controls", "in": "header", "required": false, "schema": { "type": "string" }, "description": "The session's controls as a JSON object; any control may also be a query parameter of the same name." }
    ]);
    let message = json!({ "required": true, "content": { "application/json": { "schema": { "type": "object", "description": "A JSON-RPC 2.0 MCP message" } } } });
    let answers = json!({
        "200": { "description": "A JSON-RPC answer, as JSON or an SSE stream", "content": { "text/event-stream": { "schema": { "type": "string" } }, "application/json": { "schema": { "type": "object" } } } },
        "202": { "description": "A notification or response accepted" },
        "400": error("bad_request: a world id that is not a number or bad controls"),
        "403": { "description": "A `Host` header outside the allowed list" },
        "404": error("world_not_found")
    });
    json!({
        "parameters": parameters,
        "post": { "summary": "MCP Streamable HTTP: send a JSON-RPC message (tools `web_search`, `web_extractor`)", "requestBody": message, "responses": answers.clone() },
        "get": { "summary": "MCP Streamable HTTP: open the server-to-client SSE stream", "responses": answers.clone() },
        "delete": { "summary": "MCP Streamable HTTP: end the MCP session", "responses": answers }
    })
}

fn schemas() -> Value {
    let hiding = json!({ "type": "string", "enum": ["none", "partial", "strict"] });
    let string_or_null = json!({ "type": ["string", "null"] });
    let chunks = [
        json!({
            "ErrorBody": { "type": "object", "required": ["code", "message"], "properties": {
                "code": { "type": "string", "enum": ["bad_request", "payload_too_large", "unauthorized", "world_not_found", "url_not_found", "session_not_found", "not_found", "method_not_allowed", "rate_limited", "injected_server_error", "timeout", "internal"] },
                "message": { "type": "string" } } },
            "ErrorEnvelope": { "type": "object", "required": ["error"], "properties": { "error": schema_ref("ErrorBody") } },
            "TavilyError": { "type": "object", "properties": { "detail": { "type": "object", "properties": { "error": { "type": "string" } } } } },
            "Health": { "type": "object", "properties": { "status": { "const": "ok" }, "worlds": { "type": "integer" }, "sessions": { "type": "integer" } } },
            "WorldList": { "type": "object", "properties": { "worlds": { "type": "array", "items": { "type": "object", "properties": {
                "id": { "type": "integer" }, "name": { "type": "string" }, "theme": { "type": "string" }, "pages": { "type": "integer" } } } } } }
        }),
        json!({
            "SearchRequest": { "type": "object", "additionalProperties": false, "description": "Give `query` or `queries`, not both.", "properties": {
                "query": { "type": "string", "maxLength": 2000 },
                "queries": { "type": "array", "items": { "type": "string", "maxLength": 2000 }, "minItems": 1, "maxItems": 100 },
                "top_k": { "type": "integer", "minimum": 1, "maximum": 50, "default": 10 },
                "page": { "type": "integer", "minimum": 1, "maximum": 1000, "default": 1 },
                "hiding": hiding.clone() } },
            "Hit": { "type": "object", "properties": { "rank": { "type": "integer" }, "url": { "type": "string" }, "title": { "type": "string" }, "snippet": { "type": "string" }, "date": string_or_null.clone() } },
            "QueryResponse": { "type": "object", "properties": { "query": { "type": "string" }, "results": { "type": "array", "items": schema_ref("Hit") }, "page": { "type": "integer" }, "has_more": { "type": "boolean" }, "rendered_by": { "type": "string", "enum": ["template", "lwm"] } } },
            "FailedQuery": { "type": "object", "properties": { "query": { "type": "string" }, "error": schema_ref("ErrorBody") } },
            "BatchResponse": { "type": "object", "properties": { "responses": { "type": "array", "items": { "oneOf": [schema_ref("QueryResponse"), schema_ref("FailedQuery")] } } } },
            "SearchAnswer": { "oneOf": [schema_ref("QueryResponse"), schema_ref("BatchResponse")] }
        }),
        json!({
            "ExtractRequest": { "type": "object", "additionalProperties": false, "required": ["url"], "properties": {
                "url": { "type": "string" }, "start": { "type": "integer", "minimum": 0, "default": 0 }, "max_chars": { "type": "integer", "minimum": 1, "maximum": 100000, "default": 8000 } } },
            "ExtractResponse": { "type": "object", "properties": { "url": { "type": "string" }, "title": { "type": "string" }, "date": string_or_null.clone(), "content": { "type": "string" }, "next_start": { "type": ["integer", "null"] }, "rendered_by": { "type": "string", "enum": ["template", "lwm"] } } },
            "RetrieveRequest": { "type": "object", "required": ["queries"], "properties": {
                "queries": { "type": "array", "items": { "type": "string" } }, "topk": { "type": "integer", "minimum": 1 }, "return_scores": { "type": "boolean", "default": false },
                "world": { "type": "integer", "description": "Required on `/retrieve`." }, "hiding": hiding.clone() } },
            "RetrieveResponse": { "type": "object", "properties": { "result": { "type": "array", "items": { "type": "array", "items": { "type": "object", "properties": {
                "document": { "type": "object", "properties": { "id": { "type": "string" }, "contents": { "type": "string" } } }, "score": { "type": "number" } } } } } } }
        }),
        json!({
            "TavilySearchRequest": { "type": "object", "required": ["query"], "properties": { "query": { "type": "string" }, "max_results": { "type": "integer" }, "include_raw_content": {}, "hiding": hiding } },
            "TavilySearchResponse": { "type": "object", "properties": { "query": { "type": "string" }, "answer": string_or_null.clone(), "images": { "type": "array" }, "results": { "type": "array", "items": { "type": "object", "properties": {
                "title": { "type": "string" }, "url": { "type": "string" }, "content": { "type": "string" }, "score": { "type": "number" }, "raw_content": string_or_null } } }, "response_time": { "type": "number" } } },
            "TavilyExtractRequest": { "type": "object", "required": ["urls"], "properties": { "urls": { "oneOf": [{ "type": "string" }, { "type": "array", "items": { "type": "string" } }] } } },
            "TavilyExtractResponse": { "type": "object", "properties": { "results": { "type": "array", "items": { "type": "object", "properties": { "url": { "type": "string" }, "raw_content": { "type": "string" } } } },
                "failed_results": { "type": "array", "items": { "type": "object", "properties": { "url": { "type": "string" }, "error": { "type": "string" } } } }, "response_time": { "type": "number" } } }
        }),
        json!({
            "Controls": { "type": "object", "additionalProperties": false, "properties": {
                "noise_level": { "type": "number", "minimum": 0, "maximum": 1 },
                "error_rate": { "type": "number", "minimum": 0, "maximum": 1 },
                "error_kinds": { "type": "array", "minItems": 1, "items": { "type": "string", "enum": ["rate_limit", "server_error", "timeout"] } },
                "timeout_ms": { "type": "integer", "minimum": 0, "maximum": 120000 },
                "page_size": { "type": "integer", "minimum": 1, "maximum": 50 },
                "drop_rate": { "type": "number", "minimum": 0, "maximum": 1 },
                "truncate_extract": { "type": "integer", "minimum": 1 },
                "batch_failure_rate": { "type": "number", "minimum": 0, "maximum": 1 },
                "latency_ms": { "type": "array", "items": { "type": "integer" }, "minItems": 2, "maxItems": 2 },
                "hiding": { "type": "string", "enum": ["none", "partial", "strict"] } } }
        }),
        json!({
            "CreateSessionRequest": { "type": "object", "additionalProperties": false, "required": ["world"], "properties": {
                "world": { "type": "integer" }, "seed": { "type": "integer", "minimum": 0, "default": 0 }, "controls": schema_ref("Controls") } },
            "CreateSessionResponse": { "type": "object", "properties": { "session": { "type": "string" }, "world": { "type": "integer" }, "seed": { "type": "integer" }, "controls": schema_ref("Controls") } },
            "SessionLog": { "type": "object", "properties": { "session": { "type": "string" }, "world": { "type": "integer" }, "seed": { "type": "integer" }, "calls": { "type": "integer" }, "forgotten": { "type": "integer" },
                "entries": { "type": "array", "items": { "type": "object", "properties": {
                    "call": { "type": "integer" }, "endpoint": { "type": "string", "enum": ["search", "extract"] }, "queries": { "type": "array", "items": { "type": "string" } }, "url": { "type": "string" },
                    "status": { "type": "integer" }, "outcome": { "type": "string" }, "latency_ms": { "type": "integer" }, "results": { "type": "integer" }, "dropped_results": { "type": "integer" },
                    "failed_queries": { "type": "array", "items": { "type": "integer" } }, "truncated": { "type": "boolean" } } } } } }
        }),
    ];
    let mut schemas = Map::new();
    for chunk in chunks {
        if let Value::Object(map) = chunk {
            schemas.extend(map);
        }
    }
    Value::Object(schemas)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `(method, path)` pairs the router declares, read from the crate's source so the test
    /// follows the router whatever routes are added.
    fn declared_routes() -> Vec<(String, String)> {
        let mut routes = Vec::new();
        for source in [include_str!("lib.rs"), include_str!("mcp.rs")] {
            for part in source.split(".route(\"").skip(1) {
                let Some((path, rest)) = part.split_once('"') else {
                    continue;
                };
                let method = rest.trim_start_matches(',').trim();
                let method = method.split('(').next().unwrap_or_default().trim();
                routes.push((method.to_owned(), path.to_owned()));
            }
            for part in source.split(".route_service(\"").skip(1) {
                let Some((path, _)) = part.split_once('"') else {
                    continue;
                };
                for method in ["get", "post", "delete"] {
                    routes.push((method.to_owned(), path.to_owned()));
                }
            }
        }
        routes.sort();
        routes.dedup();
        routes
    }

    #[test]
    fn the_document_lists_every_route_of_the_router() {
        let document = document();
        let text = serde_json::to_string(&document).unwrap();
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["openapi"], "3.1.0");
        let mut documented = Vec::new();
        for (path, item) in parsed["paths"].as_object().unwrap() {
            for method in ["get", "post", "put", "patch", "delete"] {
                if item.get(method).is_some() {
                    documented.push((method.to_owned(), path.clone()));
                }
            }
        }
        documented.sort();
        let declared = declared_routes();
        assert!(declared.len() >= 15, "too few routes read: {declared:?}");
        assert_eq!(documented, declared);
    }

    #[test]
    fn every_schema_reference_resolves() {
        let document = document();
        let text = serde_json::to_string(&document).unwrap();
        let schemas = document["components"]["schemas"].as_object().unwrap();
        for part in text.split("#/components/schemas/").skip(1) {
            let name = part.split('"').next().unwrap();
            assert!(schemas.contains_key(name), "unresolved schema {name}");
        }
    }
}
