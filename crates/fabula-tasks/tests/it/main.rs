//! Integration tests of fabula-tasks: one binary, one module per concern.

mod agent;
mod blind;
mod build;
mod check;
mod common;
mod export;
mod stub;
