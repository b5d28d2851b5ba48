//! The admin routes' error answer: a status and a stable code, rendered as
//! `{"error": {"code", "message"}}`. Internal failures are logged, never described in a body.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error answer with a stable code.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    pub(crate) fn new(
        status: StatusCode,
        code: &'static str,
        message: impl Into<String>,
    ) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The stable code, such as `bad_request`.
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The message for the caller.
    pub fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    pub(crate) fn world_not_found(world: u32) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "world_not_found",
            format!("no world {world} in this dataset"),
        )
    }

    pub(crate) fn task_not_found(task_id: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "task_not_found",
            format!("no task `{task_id}`"),
        )
    }

    pub(crate) fn internal(message: &str) -> ApiError {
        // Internals are logged, not returned.
        tracing::error!(
            error = message,
            "admin: internal error while answering a request"
        );
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the world file could not be read",
        )
    }

    /// Carries a search-server error over with its status and code.
    pub(crate) fn from_server(error: fabula_server::ApiError) -> ApiError {
        ApiError::new(error.code.status(), error.code.as_str(), error.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(json!({"error": {"code": self.code, "message": self.message}})),
        )
            .into_response()
    }
}
