//! The one integration-test binary of fabula-server: the router driven in process, and one
//! end-to-end run over a real socket.

mod auth;
mod compat;
mod edge;
mod errors;
mod limits_sessions;
mod lwm;
mod mcp_limits;
mod native;
mod openapi;
mod sessions;
mod socket;
mod support;
mod tavily;
mod worlds_on_disk;
