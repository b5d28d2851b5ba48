//! The one integration-test binary of fabula-compat: its routes mounted beside the native API
//! and driven in process over the fixture worlds that fabula-server's tests use.

mod compat;
#[path = "../../../fabula-server/tests/it/support.rs"]
#[allow(
    dead_code,
    reason = "fabula-server's test support, of which this binary uses a part"
)]
mod support;
mod tavily;

use fabula_server::{AppState, Suite};

/// The suite under test.
fn suites(state: &AppState) -> Vec<Suite> {
    vec![fabula_compat::suite(state)]
}
