//! Integration tests of fabula-lwm: loading, generation, verification, rendering and samples.

mod fixtures;
mod generation;
mod loader;
mod remote;
mod render;
mod samples;
mod tiny;
mod verify;
