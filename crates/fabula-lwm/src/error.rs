//! The crate's one error type and its `Result` alias.

use std::path::PathBuf;

/// Everything that can go wrong while loading a model, generating text or building prompts.
///
/// Verification failures are not errors: a rejected render falls back to the template text and
/// is reported through [`crate::FallbackReason`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A checkpoint folder or file lacks something the loader needs.
    #[error("checkpoint {path}: missing {what}")]
    Missing { path: PathBuf, what: String },
    /// The checkpoint or request asks for something this crate does not support.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A `config.json` or index file could not be understood.
    #[error("{path}: invalid checkpoint metadata: {message}")]
    Metadata { path: PathBuf, message: String },
    /// The prompt plus the requested new tokens do not fit the model's context window.
    #[error(
        "prompt of {prompt_tokens} tokens plus {max_new_tokens} new tokens exceeds the context of {context} tokens"
    )]
    PromptTooLong {
        prompt_tokens: usize,
        max_new_tokens: usize,
        context: usize,
    },
    /// The tokenizer failed to load, train, encode or decode.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// A prompt template failed to render.
    #[error("prompt template: {0}")]
    Template(#[from] minijinja::Error),
    /// Candle failed while loading tensors or running the model.
    #[cfg(feature = "model")]
    #[error("candle: {0}")]
    Candle(#[from] candle_core::Error),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// JSON could not be written.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
    /// Scoring was given a different number of observations than turns.
    #[error("{observations} observations to score for {turns} turns")]
    ObservationCount { turns: usize, observations: usize },
    /// A remote engine ([`crate::RemoteEngine`]) gave no usable answer.
    #[error("world model engine {endpoint}: {message}")]
    Remote {
        endpoint: String,
        kind: RemoteFailure,
        message: String,
    },
}

/// How a remote engine failed a render; each is its own fallback reason in `/metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteFailure {
    /// No answer: the connection refused or cut, or the engine skipped in its cool-down
    /// (`engine_unavailable`).
    Unavailable,
    /// No answer within the render's time budget (`time_budget`).
    OutOfTime,
    /// An answer that is not a completion: an HTTP error, a busy engine after its retries, a
    /// body that is not one (`model_error`).
    BadAnswer,
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Wraps an I/O error with the path it concerns.
#[cfg(feature = "model")]
pub(crate) fn io_error(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.into();
    move |source| Error::Io { path, source }
}
