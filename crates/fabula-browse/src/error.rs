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

/// What a view answers when reading world `world_id`'s file failed: the world is made
/// unavailable for every route (see `fabula_server::AppState::fail_world`) and the view is a
/// 503. Other errors pass through.
pub(crate) fn file_failed(app: &fabula_server::AppState, world_id: u32, error: Error) -> Error {
    match error {
        Error::File(error) => Error::from_api(app.fail_world(world_id, error)),
        other => other,
    }
}

impl Error {
    /// The HTTP status of this error. A world file that cannot be read is answered 503 (see
    /// `file_failed`); any other [`Error::File`] is a 500.
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
