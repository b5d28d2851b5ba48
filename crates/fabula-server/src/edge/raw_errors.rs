//! JSON bodies for the answers hyper writes on its own.
//!
//! When a request cannot be parsed (a malformed request line, a bad header or `Content-Length`,
//! a URL or headers over hyper's limits) hyper answers 400, 414 or 431 itself, with an empty body,
//! before any router sees the request; hyper has no hook to shape that answer. So the socket is
//! wrapped: a response head written with an error status and `content-length: 0` and nothing after
//! it (the only shape of hyper's automatic answers, and never one of the router's, whose errors
//! all carry a body) is replaced by the same head with the service's JSON error body. Every other
//! byte passes through untouched.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::http::StatusCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::api_error::{ApiError, ErrorCode};

/// A stream whose empty error answers are given JSON bodies on their way out.
#[derive(Debug)]
pub struct JsonErrorStream<S> {
    inner: S,
    /// A replacement answer still to be written, and how much of it was written.
    pending: Vec<u8>,
    written: usize,
}

impl<S> JsonErrorStream<S> {
    /// Wraps a connection's stream.
    pub fn new(inner: S) -> JsonErrorStream<S> {
        JsonErrorStream {
            inner,
            pending: Vec::new(),
            written: 0,
        }
    }
}

impl<S: AsyncWrite + Unpin> JsonErrorStream<S> {
    /// Writes out what is left of a replacement answer.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.pending.len() {
            let n =
                ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.pending.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for JsonErrorStream<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for JsonErrorStream<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        if let Some(replacement) = with_json_body(buf) {
            this.pending = replacement;
            // Whatever does not leave now leaves on the next write or flush.
            if let Poll::Ready(Err(error)) = this.poll_pending(cx) {
                return Poll::Ready(Err(error));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

/// The answer to write instead of `head`, when `head` is a whole empty error answer.
fn with_json_body(head: &[u8]) -> Option<Vec<u8>> {
    let status = head
        .strip_prefix(b"HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|digits| std::str::from_utf8(digits).ok())
        .and_then(|digits| digits.parse::<u16>().ok())
        .and_then(|code| StatusCode::from_u16(code).ok())
        .filter(|status| status.is_client_error() || status.is_server_error())?;
    let text = std::str::from_utf8(head).ok()?;
    let lines = text.strip_suffix("\r\n\r\n")?;
    if lines.contains("\r\n\r\n") {
        return None;
    }
    let mut lines = lines.split("\r\n");
    let status_line = lines.next()?;
    let headers: Vec<&str> = lines.collect();
    let is_empty = headers
        .iter()
        .any(|line| line.eq_ignore_ascii_case("content-length: 0"));
    if !is_empty {
        return None;
    }
    let body = serde_json::json!({ "error": error_for(status).body() }).to_string();
    let mut out = format!("{status_line}\r\n");
    for line in headers {
        let name = line.split(':').next().unwrap_or_default().trim();
        if !["content-length", "content-type", "connection"]
            .iter()
            .any(|skip| name.eq_ignore_ascii_case(skip))
        {
            out.push_str(line);
            out.push_str("\r\n");
        }
    }
    out.push_str("content-type: application/json\r\nconnection: close\r\n");
    out.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    Some(out.into_bytes())
}

/// The error that stands for an empty answer with this status.
fn error_for(status: StatusCode) -> ApiError {
    let (code, message) = match status {
        StatusCode::URI_TOO_LONG => (ErrorCode::UriTooLong, "the URL is too long"),
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => (
            ErrorCode::HeadersTooLarge,
            "the request headers are too large",
        ),
        StatusCode::NOT_FOUND => (ErrorCode::NotFound, "not found"),
        StatusCode::METHOD_NOT_ALLOWED => (ErrorCode::MethodNotAllowed, "method not allowed"),
        StatusCode::REQUEST_TIMEOUT => (ErrorCode::RequestTimeout, "the request timed out"),
        StatusCode::PAYLOAD_TOO_LARGE => (ErrorCode::PayloadTooLarge, "the request is too large"),
        status if status.is_server_error() => (ErrorCode::Internal, "internal error"),
        _ => (
            ErrorCode::BadRequest,
            "the request is not valid HTTP/1.1 (request line, a header or Content-Length)",
        ),
    };
    ApiError::new(code, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(head: &str, expected: Option<(&str, &str)>) {
        let got = with_json_body(head.as_bytes()).map(|bytes| String::from_utf8(bytes).unwrap());
        match (got, expected) {
            (None, None) => {}
            (Some(got), Some((status_line, code))) => {
                assert!(got.starts_with(status_line), "{got}");
                let (head, body) = got.split_once("\r\n\r\n").unwrap();
                assert!(
                    head.contains(&format!("content-length: {}", body.len())),
                    "{got}"
                );
                assert!(head.contains("content-type: application/json"), "{got}");
                assert!(head.contains("date: x"), "other headers are kept: {got}");
                let json: serde_json::Value = serde_json::from_str(body).unwrap();
                assert_eq!(json["error"]["code"], code, "{got}");
            }
            (got, expected) => panic!("got {got:?}, expected {expected:?}"),
        }
    }

    #[test]
    fn hyper_answers_get_json_bodies_and_nothing_else_changes() {
        let empty =
            |status: &str| format!("HTTP/1.1 {status}\r\ncontent-length: 0\r\ndate: x\r\n\r\n");
        check(
            &empty("400 Bad Request"),
            Some(("HTTP/1.1 400 Bad Request\r\n", "bad_request")),
        );
        check(
            &empty("414 URI Too Long"),
            Some(("HTTP/1.1 414", "uri_too_long")),
        );
        check(
            &empty("431 Request Header Fields Too Large"),
            Some(("HTTP/1.1 431", "headers_too_large")),
        );
        check(&empty("200 OK"), None);
        check(&empty("204 No Content"), None);
        check(
            "HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\ndate: x\r\n\r\n{}",
            None,
        );
        check(
            "HTTP/1.1 404 Not Found\r\ncontent-length: 20\r\ndate: x\r\n\r\n",
            None,
        );
        check("{\"results\": []}", None);
        check("HTTP/1.1 4", None);
    }
}
