//! Deadlines inside a request: the body must arrive within the body timeout (else 408
//! `request_timeout`), and the answer must start within the request timeout (else 503
//! `deadline_exceeded`). Both answers are JSON, Tavily-shaped on the Tavily routes.
//!
//! tower-http's timeout layers answer with empty bodies and reset their body timer at every
//! frame (a client trickling one byte at a time would never time out), so the two deadlines are
//! kept here: one timer for the whole body, one for the whole request.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use http_body::{Frame, SizeHint};
use tokio::time::Sleep;

use super::Timeouts;
use crate::api_error::{ApiError, ErrorCode, TavilyError};

/// The error a request body yields when it did not arrive within the body timeout.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {0:?}")]
pub struct BodyTimedOut(pub Duration);

/// Wraps every route of `router` in the two deadlines.
pub fn layer(router: Router, timeouts: Timeouts) -> Router {
    router.layer(middleware::from_fn(move |request: Request, next: Next| {
        with_deadlines(timeouts, request, next)
    }))
}

async fn with_deadlines(timeouts: Timeouts, request: Request, next: Next) -> Response {
    let tavily = request.uri().path().starts_with("/compat/tavily/");
    let request = request.map(|body| {
        if http_body::Body::is_end_stream(&body) {
            body
        } else {
            Body::new(DeadlineBody::new(body, timeouts.body))
        }
    });
    match tokio::time::timeout(timeouts.request, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            let error = ApiError::new(
                ErrorCode::DeadlineExceeded,
                format!(
                    "the request was not answered within the server's {} s deadline",
                    timeouts.request.as_secs_f64()
                ),
            );
            if tavily {
                TavilyError(error).into_response()
            } else {
                error.into_response()
            }
        }
    }
}

/// Whether an error, or any error it was caused by, is a [`BodyTimedOut`].
pub fn is_body_timeout(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = Some(error);
    while let Some(error) = current {
        if error.is::<BodyTimedOut>() {
            return true;
        }
        current = error.source();
    }
    false
}

/// A request body that fails with [`BodyTimedOut`] once its deadline passes.
struct DeadlineBody {
    inner: Body,
    deadline: Pin<Box<Sleep>>,
    limit: Duration,
}

impl DeadlineBody {
    fn new(inner: Body, limit: Duration) -> DeadlineBody {
        DeadlineBody {
            inner,
            deadline: Box::pin(tokio::time::sleep(limit)),
            limit,
        }
    }
}

impl http_body::Body for DeadlineBody {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        if this.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(Box::new(BodyTimedOut(this.limit)))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_timeouts_are_found_through_their_causes() {
        #[derive(Debug, thiserror::Error)]
        #[error("outer")]
        struct Outer(#[source] BodyTimedOut);
        let outer = Outer(BodyTimedOut(Duration::from_secs(1)));
        assert!(is_body_timeout(&outer));
        let other = std::io::Error::other("reset");
        assert!(!is_body_timeout(&other));
    }
}
