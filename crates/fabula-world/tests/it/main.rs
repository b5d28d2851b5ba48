//! Integration tests of world generation and datasets.

mod generation;
