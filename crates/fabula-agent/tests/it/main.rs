//! Integration tests of fabula-agent: one binary, one module per concern. `common` (the small
//! dataset) and `stub` (a stand-in for the server's REST API) are shared with fabula-audit's and
//! fabula-export's tests.

mod agent;
mod common;
mod stub;
