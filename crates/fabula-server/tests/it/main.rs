//! The one integration-test binary of fabula-server: the router driven in process, and one
//! end-to-end run over a real socket.

mod auth;
mod compat;
mod errors;
mod lwm;
mod native;
mod openapi;
mod sessions;
mod socket;
mod support;
