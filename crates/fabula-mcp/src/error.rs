//! The crate's error type for serving MCP over stdio (over HTTP a failure is an HTTP answer or
//! an MCP tool error, never this).

/// Why `fabula mcp` could not serve.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The session behind the MCP server could not be created, or the transport failed.
    #[error("MCP server: {0}")]
    Mcp(String),
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
