//! The seam the protocol crates plug into: a [`Suite`] is a family of routes served beside the
//! native API over the same state, sessions and controls (`fabula-compat`'s Search-R1, ASearcher
//! and Tavily shapes, `fabula-mcp`'s MCP tool sets, the world browser's pages). Each such crate
//! exposes `fn router(state) -> Router` (axum's own pattern) and a `suite` that bundles the router
//! with its part of the OpenAPI document; [`crate::app_with`] and
//! [`crate::BoundServer::with_suite`] mount them, and `fabula serve` mounts every one.
//!
//! A suite's routes sit behind the server's key check, slash collapsing, fallbacks, body limit
//! and panic answer, so they answer bad input and failures as the native API does (the edge
//! answers requests under `/compat/tavily/` in Tavily's error shape, see [`crate::edge`]).

use axum::Router;

use crate::openapi::DocumentPart;
use crate::state::AppState;

/// A family of routes mounted beside the native API.
#[derive(Debug, Clone)]
pub struct Suite {
    /// Its routes.
    pub router: Router<AppState>,
    /// Its part of `GET /openapi.json`; `None` for routes that are not REST operations.
    pub document: Option<DocumentPart>,
    /// The routes it serves that its document leaves out on purpose, as `(method, path)`: MCP's
    /// Streamable HTTP endpoints (JSON-RPC, described by `tools/list`), routes that only refuse.
    pub undocumented: &'static [(&'static str, &'static str)],
}

impl Suite {
    /// Routes with no part in the OpenAPI document (the world browser's HTML pages).
    pub fn routes(router: Router<AppState>) -> Suite {
        Suite {
            router,
            document: None,
            undocumented: &[],
        }
    }
}
