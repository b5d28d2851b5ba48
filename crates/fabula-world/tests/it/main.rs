//! Integration tests of world generation and datasets.

mod dataset;
mod generation;
