//! Integration tests of fabula-lwm: loading, generation, verification, rendering and samples.

mod fixtures;
mod generation;
mod loader;
mod qwen3_5;
mod remote;
mod render;
mod samples;
mod score;
mod tiny;
mod verify;
