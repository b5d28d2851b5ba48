//! Integration tests of fabula-export: one binary, one module per concern. The small dataset
//! is fabula-agent's fixture.

#[path = "../../../fabula-agent/tests/it/common.rs"]
mod common;
mod export;
