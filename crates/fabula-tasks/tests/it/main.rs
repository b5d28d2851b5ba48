//! Integration tests of fabula-tasks: one binary, one module per concern.

mod build;
mod common;
