//! The HTTP edge of `/mcp/{world}` around rmcp's Streamable HTTP service: it bounds the MCP
//! sessions (a cap and an idle time to live) and the request bodies, answers a body that is not a
//! JSON-RPC message with a JSON-RPC error, and turns rmcp's plain-text HTTP errors into the API's
//! JSON errors.
//!
//! Memory per MCP session is bounded by construction: at most `ServeConfig::max_mcp_sessions`
//! sessions live at once (a new one beyond the cap is refused with 429 `too_many_sessions` before
//! rmcp allocates anything), each closes after `ServeConfig::mcp_session_ttl` without traffic, and
//! the `initialize` request whose parameters a session keeps is at most
//! [`MAX_INITIALIZE_BYTES`].

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{Value, json};

use fabula_server::api_error::{ApiError, ErrorCode};
use fabula_server::extractors::MAX_BODY_BYTES;

/// The header naming an MCP session.
const SESSION_HEADER: &str = "mcp-session-id";
/// The largest `initialize` request accepted, in bytes; its parameters live as long as the
/// session, so they are held to less than the general body limit.
pub const MAX_INITIALIZE_BYTES: usize = 16 * 1024;
/// The seconds a client refused at the session cap is told to wait.
const RETRY_AFTER_S: u64 = 5;
/// The most of a client's name and version written to the log.
const PEER_LOG_CHARS: usize = 200;
/// The most of an rmcp error body read to build the JSON error; its bodies are one short line.
const ERROR_BODY_BYTES: usize = 4096;
/// The most characters of an rmcp error text or a parse error echoed to the client.
const MESSAGE_CHARS: usize = 300;

/// The session manager of `/mcp/{world}`: rmcp's in-memory one, whose sessions close after
/// `ttl` without traffic (rmcp then removes them from its map and drops their worker).
pub fn session_manager(ttl: Duration) -> LocalSessionManager {
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(ttl);
    manager
}

/// The MCP session cap: counts the live sessions in rmcp's manager plus the `initialize`
/// requests being admitted.
pub struct SessionCap {
    manager: Arc<LocalSessionManager>,
    max_sessions: usize,
    /// `initialize` requests admitted whose answer has not come back yet.
    pending: AtomicUsize,
}

impl SessionCap {
    /// A cap of `max_sessions` over the sessions of `manager`.
    pub fn new(manager: Arc<LocalSessionManager>, max_sessions: usize) -> SessionCap {
        SessionCap {
            manager,
            max_sessions,
            pending: AtomicUsize::new(0),
        }
    }

    /// Admits one new session, or `None` at the cap. The admission lasts until the answer to
    /// `initialize` is back; by then rmcp holds the session in its map. A session created while
    /// another is admitted may be counted twice for that moment, so the cap errs towards
    /// refusing and is never exceeded.
    async fn admit(self: &Arc<Self>) -> Option<Admission> {
        let ahead = self.pending.fetch_add(1, Ordering::SeqCst);
        let admission = Admission(Arc::clone(self));
        let live = self.manager.sessions.read().await.len();
        (live + ahead < self.max_sessions).then_some(admission)
    }

    async fn has_session(&self, id: &str) -> bool {
        self.manager.sessions.read().await.contains_key(id)
    }
}

/// One `initialize` being admitted; released when dropped, also when the client goes away.
struct Admission(Arc<SessionCap>);

impl Drop for Admission {
    fn drop(&mut self) {
        self.0.pending.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Reads and checks a JSON POST's body before rmcp sees it (JSON-RPC errors for bodies that are
/// no message, the session cap for `initialize`) and answers DELETE of an unknown session 404.
pub async fn guard_request(
    State(cap): State<Arc<SessionCap>>,
    request: Request,
    next: Next,
) -> Response {
    let method = request.method().clone();
    if method == Method::DELETE {
        return guard_delete(&cap, request, next).await;
    }
    if method != Method::POST || !is_json(request.headers()) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match Bytes::from_request(Request::from_parts(parts.clone(), body), &()).await {
        Ok(bytes) => bytes,
        Err(rejection) => return body_error(&rejection).into_response(),
    };
    let message = match parse_message(&bytes) {
        Ok(message) => message,
        Err(error) => return error.into_response(),
    };
    let initialize = match &message {
        ClientJsonRpcMessage::Request(request) => match &request.request {
            ClientRequest::InitializeRequest(init) => Some(&init.params.client_info),
            _ => None,
        },
        _ => None,
    };
    let Some(client) = initialize.filter(|_| !parts.headers.contains_key(SESSION_HEADER)) else {
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    };
    if bytes.len() > MAX_INITIALIZE_BYTES {
        return too_large(MAX_INITIALIZE_BYTES).into_response();
    }
    let peer = truncate(
        &format!("{} {}", client.name, client.version),
        PEER_LOG_CHARS,
    );
    let Some(_admission) = cap.admit().await else {
        tracing::debug!(%peer, "MCP session refused at the cap");
        return too_many_sessions(cap.max_sessions).into_response();
    };
    tracing::debug!(%peer, "MCP client opens a session");
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// DELETE of an unknown session is 404 `session_not_found` (rmcp would accept it); a deleted
/// one is 204 (rmcp answers 202).
async fn guard_delete(cap: &SessionCap, request: Request, next: Next) -> Response {
    let id = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    if let Some(id) = id
        && !cap.has_session(&id).await
    {
        return session_not_found().into_response();
    }
    let response = next.run(request).await;
    if response.status() == StatusCode::ACCEPTED {
        return StatusCode::NO_CONTENT.into_response();
    }
    response
}

/// A JSON-RPC error for a body that is no message, answered with HTTP 400.
#[derive(Debug)]
struct RpcError {
    /// The request's id when it could be read, else null.
    id: Value,
    code: i64,
    message: String,
}

impl IntoResponse for RpcError {
    fn into_response(self) -> Response {
        let RpcError { id, code, message } = self;
        let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
        (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
    }
}

/// Parses a body as one JSON-RPC message: -32700 when it is not JSON, -32600 when it is JSON
/// but no message.
fn parse_message(bytes: &[u8]) -> Result<ClientJsonRpcMessage, RpcError> {
    let error = match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(message) => return Ok(message),
        Err(error) => error,
    };
    if error.classify() != serde_json::error::Category::Data {
        return Err(RpcError {
            id: Value::Null,
            code: -32700,
            message: truncate(&format!("parse error: {error}"), MESSAGE_CHARS),
        });
    }
    let id = serde_json::from_slice::<Value>(bytes)
        .ok()
        .and_then(|value| value.get("id").cloned())
        .filter(|id| id.is_string() || id.is_number())
        .unwrap_or(Value::Null);
    Err(RpcError {
        id,
        code: -32600,
        message: truncate(&format!("invalid request: {error}"), MESSAGE_CHARS),
    })
}

/// Turns an rmcp HTTP error whose body is not JSON (plain text or empty) into the API's JSON
/// error, keeping its status and headers such as `Allow`. Success answers, SSE streams and
/// JSON-RPC errors (already JSON) pass untouched.
pub async fn json_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    if status.as_u16() < 400 || is_json(response.headers()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, ERROR_BODY_BYTES).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => String::new(),
    };
    let mut json = error_for(status, &text).into_response();
    *json.status_mut() = status;
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            json.headers_mut().append(name, value.clone());
        }
    }
    json
}

/// The JSON error for an rmcp error status and its text, without the text's leading reason
/// phrase ("Not Acceptable: ...").
fn error_for(status: StatusCode, text: &str) -> ApiError {
    let reason = status.canonical_reason().unwrap_or("error");
    let text = text.trim();
    let text = text
        .strip_prefix(reason)
        .and_then(|rest| rest.strip_prefix(':'))
        .unwrap_or(text)
        .trim();
    let message = if text.is_empty() {
        reason.to_owned()
    } else {
        truncate(text, MESSAGE_CHARS)
    };
    let code = match status {
        StatusCode::FORBIDDEN => ErrorCode::Forbidden,
        StatusCode::NOT_FOUND => ErrorCode::SessionNotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::NOT_ACCEPTABLE => ErrorCode::NotAcceptable,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        status if status.is_server_error() => return ApiError::internal(&message),
        _ => ErrorCode::BadRequest,
    };
    ApiError::new(code, message)
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// The error for a body that could not be read: too large, too slow, or broken.
fn body_error(rejection: &BytesRejection) -> ApiError {
    if fabula_server::edge::deadline::is_body_timeout(rejection) {
        return ApiError::new(
            ErrorCode::RequestTimeout,
            "the request body did not arrive within the server's body timeout",
        );
    }
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return too_large(MAX_BODY_BYTES);
    }
    ApiError::bad_request("the request body could not be read")
}

fn too_large(limit: usize) -> ApiError {
    ApiError::new(
        ErrorCode::PayloadTooLarge,
        format!("the request body is over {limit} bytes"),
    )
}

fn too_many_sessions(max_sessions: usize) -> ApiError {
    ApiError {
        retry_after_s: Some(RETRY_AFTER_S),
        ..ApiError::new(
            ErrorCode::TooManySessions,
            format!(
                "the server holds its maximum of {max_sessions} MCP sessions; close one \
                 (DELETE with Mcp-Session-Id) or retry later"
            ),
        )
    }
}

fn session_not_found() -> ApiError {
    ApiError::new(
        ErrorCode::SessionNotFound,
        "no MCP session with that Mcp-Session-Id; it was closed or expired",
    )
}

/// The first `max_chars` characters of `text`, with `…` when cut.
fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bodies_that_are_no_message_get_json_rpc_errors() {
        let cases: [(&str, i64, Value); 4] = [
            ("{not json", -32700, Value::Null),
            ("", -32700, Value::Null),
            (r#"{"jsonrpc": "2.0", "id": 7}"#, -32600, json!(7)),
            (r#"[1, 2]"#, -32600, Value::Null),
        ];
        for (body, code, id) in cases {
            let response = parse_message(body.as_bytes()).unwrap_err().into_response();
            assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
            let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap();
            let answer: Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(answer["jsonrpc"], "2.0", "{body}");
            assert_eq!(answer["id"], id, "{body}");
            assert_eq!(answer["error"]["code"], code, "{body}");
        }
        let ping = r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#;
        assert!(parse_message(ping.as_bytes()).is_ok());
    }

    #[test]
    fn rmcp_statuses_map_to_codes_without_the_reason_prefix() {
        let cases = [
            (
                406,
                "Not Acceptable: Client must accept text/event-stream",
                ErrorCode::NotAcceptable,
                "Client must accept text/event-stream",
            ),
            (
                415,
                "Unsupported Media Type: Content-Type must be application/json",
                ErrorCode::UnsupportedMediaType,
                "Content-Type must be application/json",
            ),
            (
                404,
                "Not Found: Session not found",
                ErrorCode::SessionNotFound,
                "Session not found",
            ),
            (
                400,
                "Bad Request: Session ID is required",
                ErrorCode::BadRequest,
                "Session ID is required",
            ),
            (
                403,
                "Forbidden: Host header is not allowed",
                ErrorCode::Forbidden,
                "Host header is not allowed",
            ),
            (405, "", ErrorCode::MethodNotAllowed, "Method Not Allowed"),
        ];
        for (status, text, code, message) in cases {
            let error = error_for(StatusCode::from_u16(status).unwrap(), text);
            assert_eq!((error.code, error.message.as_str()), (code, message));
        }
    }

    #[test]
    fn truncate_cuts_on_characters() {
        assert_eq!(truncate("abc", 5), "abc");
        assert_eq!(truncate("äöüß", 2), "äö…");
    }
}
