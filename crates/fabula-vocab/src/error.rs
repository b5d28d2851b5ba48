//! The error type of reading the compiled-in themes.

/// A theme that is not there or does not parse.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A theme name that no theme file defines.
    #[error("unknown theme `{name}` (known themes: {known})")]
    UnknownTheme { name: String, known: String },
    /// A theme file does not parse.
    #[error("theme file {name} is invalid: {message}")]
    Theme { name: String, message: String },
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
