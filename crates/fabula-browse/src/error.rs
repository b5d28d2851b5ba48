//! The browser's errors, each answered as an HTML page with its status.

use axum::http::StatusCode;

/// What can go wrong while building a view.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unavailable(String),
    #[error(transparent)]
    File(#[from] fabula_file::Error),
    #[error("template: {0}")]
    Template(#[from] minijinja::Error),
    #[error("the view's worker stopped: {0}")]
    Join(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The HTTP status of this error: a world file that cannot be read is a 500, since the
    /// server checked it against the manifest before the view opened it.
    pub fn status(&self) -> StatusCode {
        match self {
            Error::NotFound(_) => StatusCode::NOT_FOUND,
            Error::BadRequest(_) => StatusCode::BAD_REQUEST,
            Error::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Error::File(_) | Error::Template(_) | Error::Join(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
        }
    }

    /// The error from the server's world check: 404 for an unknown world, 503 otherwise.
    pub(crate) fn from_api(error: fabula_server::ApiError) -> Error {
        if error.code == fabula_server::ErrorCode::WorldNotFound {
            Error::NotFound(error.message)
        } else {
            Error::Unavailable(error.message)
        }
    }
}
