//! The one integration-test binary of fabula-server: the router driven in process, and one
//! end-to-end run over a real socket. The service is tested whole, with every protocol crate
//! mounted as `fabula serve` mounts them (their own tests are in their crates).

mod auth;
mod edge;
mod errors;
mod limits_sessions;
mod lwm;
mod native;
mod openapi;
mod sessions;
mod socket;
mod support;
mod worlds_on_disk;

use fabula_server::{AppState, Suite};

/// Every suite `fabula serve` mounts beside the native API, but the world browser's pages.
fn suites(state: &AppState) -> Vec<Suite> {
    vec![fabula_compat::suite(state), fabula_mcp::suite(state)]
}
