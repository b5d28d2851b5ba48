//! The HTTP edge's one error type: stable error codes mapped to statuses, rendered as
//! `{"error": {"code": "..", "message": ".."}}`, or as Tavily's `{"detail": {"error": ".."}}` on the
//! Tavily-shaped routes. Internal failures are logged here and never described in a body.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// A stable, machine-readable error code. Clients may match on these strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Malformed JSON, a wrong field type, or a value out of range (400).
    BadRequest,
    /// A request body over the 64 KiB limit (413).
    PayloadTooLarge,
    /// A missing or wrong `Authorization: Bearer` key (401).
    Unauthorized,
    /// No world with that id (404).
    WorldNotFound,
    /// No page with that url in the world (404).
    UrlNotFound,
    /// No session with that id, or it was evicted (404).
    SessionNotFound,
    /// No route with that path (404).
    NotFound,
    /// The route exists but not for that method (405).
    MethodNotAllowed,
    /// A session control injected a rate limit (429, with `Retry-After`).
    RateLimited,
    /// A session control injected a server error (500).
    InjectedServerError,
    /// A session control injected a timeout (504, after the session's `timeout_ms`).
    Timeout,
    /// A bug (500); the details go to the log only.
    Internal,
    /// A bug that made the request's handler panic (500); the panic's message goes to the log
    /// only, and the server keeps serving.
    HandlerPanicked,
    /// The server holds as many sessions (REST or MCP) as it may and none is idle past its
    /// time to live (429, with `Retry-After`); no session in use is evicted to make room.
    TooManySessions,
    /// The world's file is missing, truncated, foreign or does not match the manifest's hash
    /// (503); the reason is logged once and the answer cached.
    WorldUnavailable,
    /// The request body did not arrive within the body-read timeout (408).
    RequestTimeout,
    /// The request ran past the server's per-request deadline (503).
    DeadlineExceeded,
    /// The URL is longer than the server accepts (414).
    UriTooLong,
    /// The request's headers are larger than the server accepts (431).
    HeadersTooLarge,
    /// The request's `Host` or `Origin` is not one the server accepts (403).
    Forbidden,
    /// The request's `Accept` header excludes every type the route answers with (406).
    NotAcceptable,
    /// The request's `Content-Type` is not one the route reads (415).
    UnsupportedMediaType,
    /// No task with that id in the dataset (404; the admin listener only).
    TaskNotFound,
    /// No episode with that id, or it was forgotten (404; the admin listener only).
    EpisodeNotFound,
    /// A step after the episode's end (409; the admin listener only).
    EpisodeDone,
    /// An OpenEnv step naming no episode before any reset (409; the admin listener only).
    EpisodeNotStarted,
    /// A `dict_memory` write past the session's or the server's memory bound (409); nothing
    /// was written.
    MemoryFull,
}

impl ErrorCode {
    /// The HTTP status this code is sent with.
    pub fn status(self) -> StatusCode {
        match self {
            ErrorCode::BadRequest => StatusCode::BAD_REQUEST,
            ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::WorldNotFound
            | ErrorCode::UrlNotFound
            | ErrorCode::SessionNotFound
            | ErrorCode::NotFound
            | ErrorCode::TaskNotFound
            | ErrorCode::EpisodeNotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::InjectedServerError | ErrorCode::Internal | ErrorCode::HandlerPanicked => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            ErrorCode::Timeout => StatusCode::GATEWAY_TIMEOUT,
            ErrorCode::TooManySessions => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::WorldUnavailable | ErrorCode::DeadlineExceeded => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ErrorCode::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ErrorCode::UriTooLong => StatusCode::URI_TOO_LONG,
            ErrorCode::HeadersTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            ErrorCode::Forbidden => StatusCode::FORBIDDEN,
            ErrorCode::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            ErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::EpisodeDone | ErrorCode::EpisodeNotStarted | ErrorCode::MemoryFull => {
                StatusCode::CONFLICT
            }
        }
    }

    /// The code as it appears in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::WorldNotFound => "world_not_found",
            ErrorCode::UrlNotFound => "url_not_found",
            ErrorCode::SessionNotFound => "session_not_found",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::InjectedServerError => "injected_server_error",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Internal => "internal",
            ErrorCode::HandlerPanicked => "handler_panicked",
            ErrorCode::TooManySessions => "too_many_sessions",
            ErrorCode::WorldUnavailable => "world_unavailable",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::DeadlineExceeded => "deadline_exceeded",
            ErrorCode::UriTooLong => "uri_too_long",
            ErrorCode::HeadersTooLarge => "headers_too_large",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::NotAcceptable => "not_acceptable",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::TaskNotFound => "task_not_found",
            ErrorCode::EpisodeNotFound => "episode_not_found",
            ErrorCode::EpisodeDone => "episode_done",
            ErrorCode::EpisodeNotStarted => "episode_not_started",
            ErrorCode::MemoryFull => "memory_full",
        }
    }
}

/// An error answered to a client: a code, a message safe to show, and for rate limits the
/// number of seconds to wait.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    /// Sent as the `Retry-After` header (seconds) when set.
    pub retry_after_s: Option<u64>,
}

impl ApiError {
    /// An error with a code and a message for the client.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            retry_after_s: None,
        }
    }

    /// A 400 `bad_request`.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::BadRequest, message)
    }

    /// A 500 whose cause is logged and not returned.
    pub fn internal(cause: &dyn std::fmt::Display) -> ApiError {
        tracing::error!(error = %cause, "internal error while answering a request");
        ApiError::new(ErrorCode::Internal, "internal error")
    }

    /// The `{"code", "message"}` object used inside bodies (also for failed batch queries).
    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            code: self.code,
            message: self.message.clone(),
        }
    }

    fn with_headers(&self, mut response: Response) -> Response {
        *response.status_mut() = self.code.status();
        if let Some(seconds) = self.retry_after_s {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if self.code == ErrorCode::Unauthorized {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

impl From<fabula_search::Error> for ApiError {
    fn from(error: fabula_search::Error) -> ApiError {
        match error {
            fabula_search::Error::WorldNotFound(id) => {
                ApiError::new(ErrorCode::WorldNotFound, format!("no world with id {id}"))
            }
            fabula_search::Error::UrlNotFound(url) => {
                ApiError::new(ErrorCode::UrlNotFound, format!("no page with url `{url}`"))
            }
            fabula_search::Error::BadQuery(message)
            | fabula_search::Error::BadArgument(message) => ApiError::bad_request(message),
            fabula_search::Error::WorldUnavailable { .. }
            | fabula_search::Error::PassagesUnavailable(_) => {
                ApiError::new(ErrorCode::WorldUnavailable, error.to_string())
            }
            other => ApiError::internal(&fabula_search::ErrorChain(&other)),
        }
    }
}

/// The `{"code", "message"}` object of an error.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
}

#[derive(Serialize)]
struct ErrorEnvelope<'a> {
    error: &'a ErrorBody,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = self.body();
        let response = Json(ErrorEnvelope { error: &body }).into_response();
        self.with_headers(response)
    }
}

/// An [`ApiError`] rendered the way Tavily renders errors: `{"detail": {"error": ".."}}`. The
/// Tavily routes are `fabula-compat`'s, but the type lives here: the edge answers requests under
/// `/compat/tavily/` in this shape before any route runs (a missing key, a passed deadline, a
/// panic), so the server's own layers must be able to write it.
#[derive(Debug, Clone, PartialEq)]
pub struct TavilyError(pub ApiError);

impl From<ApiError> for TavilyError {
    fn from(error: ApiError) -> TavilyError {
        TavilyError(error)
    }
}

#[derive(Serialize)]
struct TavilyDetail<'a> {
    error: &'a str,
}

#[derive(Serialize)]
struct TavilyEnvelope<'a> {
    detail: TavilyDetail<'a>,
}

impl IntoResponse for TavilyError {
    fn into_response(self) -> Response {
        let envelope = TavilyEnvelope {
            detail: TavilyDetail {
                error: &self.0.message,
            },
        };
        let response = Json(envelope).into_response();
        self.0.with_headers(response)
    }
}
