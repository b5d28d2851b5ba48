//! The Tavily routes' extractors: the server's JSON body and path parameters
//! (`fabula_server::extractors`), their rejections rendered as Tavily renders errors.

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use fabula_server::TavilyError;
use fabula_server::extractors::{ApiJson, ApiPath};
use serde::de::DeserializeOwned;

/// A JSON body parsed into `T`, as `ApiJson` reads it; failures are Tavily errors.
#[derive(Debug, Clone)]
pub struct TavilyJson<T>(pub T);

impl<S, T> FromRequest<S> for TavilyJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = TavilyError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let ApiJson(value) = ApiJson::<T>::from_request(req, state).await?;
        Ok(TavilyJson(value))
    }
}

/// Path parameters parsed into `T`, as `ApiPath` reads them; failures are Tavily errors.
#[derive(Debug, Clone)]
pub struct TavilyPath<T>(pub T);

impl<S, T> FromRequestParts<S> for TavilyPath<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Send,
{
    type Rejection = TavilyError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let ApiPath(value) = ApiPath::<T>::from_request_parts(parts, state).await?;
        Ok(TavilyPath(value))
    }
}
