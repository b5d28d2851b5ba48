//! Request extractors whose rejections are our JSON errors, so axum's plain-text rejections never
//! reach a client: a JSON body (any content type, within the route's body limit: 64 KiB unless the
//! route sets its own) and path parameters.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use serde_json::{Number, Value};

use crate::api_error::{ApiError, ErrorCode};

/// The largest request body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// A JSON request body parsed into `T`; failures become `bad_request` or `payload_too_large`.
///
/// The `Content-Type` header is not checked, so `curl -d` and minimal clients work.
#[derive(Debug, Clone)]
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(bytes_rejection)?;
        parse_json(&bytes).map(ApiJson)
    }
}

/// Path parameters parsed into `T`; a parameter of the wrong type is a `bad_request`.
#[derive(Debug, Clone)]
pub struct ApiPath<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiPath<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Send,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(value)) => Ok(ApiPath(value)),
            Err(rejection) => Err(ApiError::bad_request(format!(
                "bad path parameter: {}",
                rejection.body_text()
            ))),
        }
    }
}

fn bytes_rejection(rejection: BytesRejection) -> ApiError {
    if crate::edge::deadline::is_body_timeout(&rejection) {
        return ApiError::new(
            ErrorCode::RequestTimeout,
            "the request body did not arrive within the server's body timeout",
        );
    }
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return ApiError::new(
            ErrorCode::PayloadTooLarge,
            "the request body is over this route's size limit",
        );
    }
    ApiError::bad_request("the request body could not be read")
}

/// Parses a JSON body, describing syntax errors and wrong field types to the client. A number
/// written with a zero fraction (`3.0`) is read as the whole number it is, as JSON Schema's
/// `integer` (and so the OpenAPI document) counts it.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut value: Value = serde_json::from_slice(bytes)
        .map_err(|error| ApiError::bad_request(format!("malformed JSON: {error}")))?;
    read_whole_numbers(&mut value);
    serde_json::from_value(value)
        .map_err(|error| ApiError::bad_request(format!("invalid request: {error}")))
}

/// Rewrites every float with a zero fraction that fits a 64-bit integer as that integer.
pub fn read_whole_numbers(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            let float = number.as_f64().unwrap_or(f64::NAN);
            if float.fract() != 0.0 {
                return;
            }
            if (0.0..u64::MAX as f64).contains(&float) {
                *number = Number::from(float as u64);
            } else if (i64::MIN as f64..0.0).contains(&float) {
                *number = Number::from(float as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(read_whole_numbers),
        Value::Object(fields) => fields.values_mut().for_each(read_whole_numbers),
        _ => {}
    }
}
