//! Integration tests of fabula-audit: one binary, one module per concern. The small dataset and
//! the stand-in server are fabula-agent's fixtures.

mod answerable;
mod audit;
mod blind;
#[path = "../../../fabula-agent/tests/it/common.rs"]
mod common;
#[path = "../../../fabula-agent/tests/it/stub.rs"]
mod stub;
