//! A handler that panics answers a JSON 500 `handler_panicked` instead of a dropped connection.
//!
//! tower-http's `CatchPanicLayer` catches the panic (in the handler's call or in its future);
//! the answer is made here, in the service's error shape, and the panic's message is logged with
//! `tracing`, never sent. The Tavily routes get their own layer so that their answer is
//! Tavily-shaped, as every other error on them is.

use std::any::Any;

use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;

use crate::api_error::{ApiError, ErrorCode, TavilyError};

/// What a panic handler is: a plain function from the panic's payload to the answer.
pub type PanicAnswer = fn(Box<dyn Any + Send + 'static>) -> Response;

/// The layer that answers a panic with `{"error": {"code": "handler_panicked", ..}}`.
pub fn layer() -> CatchPanicLayer<PanicAnswer> {
    CatchPanicLayer::custom(answer as PanicAnswer)
}

/// The same for the Tavily-shaped routes: `{"detail": {"error": ..}}`.
pub fn tavily_layer() -> CatchPanicLayer<PanicAnswer> {
    CatchPanicLayer::custom(tavily_answer as PanicAnswer)
}

fn answer(panic: Box<dyn Any + Send + 'static>) -> Response {
    logged(panic.as_ref()).into_response()
}

fn tavily_answer(panic: Box<dyn Any + Send + 'static>) -> Response {
    TavilyError(logged(panic.as_ref())).into_response()
}

/// Logs the panic's message and makes the error answered for it.
fn logged(panic: &(dyn Any + Send)) -> ApiError {
    let message = panic_message(panic);
    tracing::error!(panic = message, "a request handler panicked");
    ApiError::new(
        ErrorCode::HandlerPanicked,
        "the server failed while answering this request",
    )
}

/// The text a panic was raised with (`panic!` with a literal or with format arguments).
fn panic_message(panic: &(dyn Any + Send)) -> &str {
    if let Some(text) = panic.downcast_ref::<&'static str>() {
        text
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text
    } else {
        "(a panic without a message)"
    }
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;
    use http_body_util::BodyExt;

    use super::*;

    async fn check(response: Response, expect: serde_json::Value) {
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(body, expect);
    }

    #[tokio::test]
    async fn panics_answer_in_the_routes_error_shape() {
        let message = "the server failed while answering this request";
        check(
            answer(Box::new("boom")),
            serde_json::json!({"error": {"code": "handler_panicked", "message": message}}),
        )
        .await;
        check(
            tavily_answer(Box::new(String::from("boom"))),
            serde_json::json!({"detail": {"error": message}}),
        )
        .await;
    }

    #[test]
    fn messages_come_from_str_and_string_payloads() {
        assert_eq!(panic_message(&"literal"), "literal");
        assert_eq!(panic_message(&String::from("formatted 7")), "formatted 7");
        assert_eq!(panic_message(&7_u32), "(a panic without a message)");
    }
}
