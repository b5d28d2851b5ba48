//! The admin routes' error answers: the agent-facing server's [`ApiError`] with its stable
//! [`ErrorCode`]s, rendered as `{"error": {"code", "message"}}` like every error of that listener.
//! This module holds the admin's own constructors and reads request rejections into codes.
//! Internal failures are logged with `tracing`, never described in a body.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
pub use fabula_server::{ApiError, ErrorCode};

/// What a 401 asks for: a browser then asks for the token (as the password) and sends it as
/// Basic auth; API clients send it as a bearer token.
pub const CHALLENGE: &str = "Basic realm=\"fabula admin\", charset=\"UTF-8\"";

/// A 401 `unauthorized` with the admin's Basic-auth challenge.
pub(crate) fn unauthorized() -> Response {
    let mut response =
        ApiError::new(ErrorCode::Unauthorized, "missing or wrong admin token").into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(CHALLENGE),
    );
    response
}

pub(crate) fn world_not_found(world: u32) -> ApiError {
    ApiError::new(
        ErrorCode::WorldNotFound,
        format!("no world {world} in this dataset"),
    )
}

pub(crate) fn task_not_found(task_id: &str) -> ApiError {
    ApiError::new(ErrorCode::TaskNotFound, format!("no task `{task_id}`"))
}

pub(crate) fn episode_not_found(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::EpisodeNotFound,
        format!("no episode `{id}` (it may have been forgotten)"),
    )
}

pub(crate) fn episode_done(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::EpisodeDone,
        format!("episode `{id}` has ended; reset to start another"),
    )
}

/// A 409 `episode_not_started`: a step naming no episode on a listener (or a WebSocket) that has
/// had no reset; `how` says what starts one.
pub(crate) fn episode_not_started(how: &str) -> ApiError {
    ApiError::new(
        ErrorCode::EpisodeNotStarted,
        format!("no episode: {how} first"),
    )
}

/// A 500 `internal` for a world file that could not be read; the cause is logged only.
pub(crate) fn internal(cause: &dyn std::fmt::Display) -> ApiError {
    tracing::error!(error = %cause, "admin: internal error while answering a request");
    ApiError::new(ErrorCode::Internal, "the world file could not be read")
}

/// A JSON body's rejection: 413 `payload_too_large` for a body over the limit, 408
/// `request_timeout` for one that did not arrive in time, else 400 `bad_request` with axum's
/// description.
pub(crate) fn body_rejected(rejection: JsonRejection) -> ApiError {
    if fabula_server::edge::deadline::is_body_timeout(&rejection) {
        return ApiError::new(
            ErrorCode::RequestTimeout,
            "the request body did not arrive within the server's body timeout",
        );
    }
    match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!("the request body is over {} bytes", crate::MAX_BODY_BYTES),
        ),
        _ => ApiError::bad_request(rejection.body_text()),
    }
}

/// A query string's rejection: 400 `bad_request`.
pub(crate) fn query_rejected(rejection: QueryRejection) -> ApiError {
    ApiError::bad_request(rejection.body_text())
}

/// A request to `/ws` that is not a WebSocket upgrade: 400 `bad_request`.
pub(crate) fn upgrade_rejected(rejection: WebSocketUpgradeRejection) -> ApiError {
    ApiError::bad_request(format!(
        "not a WebSocket upgrade: {}",
        rejection.body_text()
    ))
}
