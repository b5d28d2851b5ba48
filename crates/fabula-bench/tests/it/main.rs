//! Integration tests of fabula-bench: one binary, one module per concern.

mod agent;
mod audit;
mod blind;
mod common;
mod export;
mod stub;
