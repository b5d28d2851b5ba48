//! The HTTP edge under both listeners: the accept loop, the timeouts, and the graceful drain.
//!
//! axum's own `serve` has no header-read timeout, no bound on how long a drain may take, and no
//! way to shape hyper's automatic error answers, so the connections are driven here with
//! hyper's HTTP/1 builder directly:
//!
//! - the header timeout closes a connection that does not finish its request headers in time;
//!   hyper starts that timer whenever it waits for a request, so it also closes keep-alive
//!   connections left idle;
//! - [`deadline`] bounds how long a request body may take to arrive (408) and how long a whole
//!   request may take to answer (503), with JSON bodies;
//! - [`raw_errors`] gives hyper's own rejections (a malformed request line, a URL or headers too
//!   large, a bad `Content-Length`) the same JSON error body as every other error;
//! - [`panics`] answers a handler's panic with a JSON 500 `handler_panicked` (both listeners'
//!   routers carry its layer; see `app_with` and the admin router);
//! - on shutdown the listener closes at once, idle connections close, requests in flight finish
//!   within the drain timeout, and then the server returns;
//! - connections may be upgraded (the trainers' OpenEnv WebSocket): an upgraded connection
//!   leaves hyper, and with it the drain, and lives until its handler ends it.

pub mod deadline;
pub mod panics;
pub mod raw_errors;

use std::future::Future;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

use crate::config::ServeConfig;

/// How long each stage of a request may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// To send a request's headers; also the most a keep-alive connection may sit idle.
    pub header: Duration,
    /// For a request body to arrive in full.
    pub body: Duration,
    /// From a request's headers to its answer.
    pub request: Duration,
    /// After shutdown begins, for requests in flight to finish.
    pub drain: Duration,
}

impl Timeouts {
    /// The timeouts a serve config asks for.
    pub fn from_config(config: &ServeConfig) -> Timeouts {
        Timeouts {
            header: config.header_timeout,
            body: config.body_timeout,
            request: config.request_timeout,
            drain: config.drain_timeout,
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then drains: returns once every
/// connection has closed or `timeouts.drain` has passed, whichever comes first.
pub async fn serve_router<F>(
    listener: TcpListener,
    router: Router,
    timeouts: Timeouts,
    shutdown: F,
) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let service = TowerToHyperService::new(deadline::layer(router, timeouts));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(timeouts.header)
        // Flat writes keep hyper's automatic answers in one piece for `raw_errors`.
        .writev(false);
    // Every connection holds a receiver; the drain is over when all of them are dropped.
    // (hyper-util's `GracefulShutdown` works the same way but cannot watch connections that
    // may be upgraded.)
    let (stop, stopped) = tokio::sync::watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                Err(error) => {
                    accept_error_pause(&error).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        if let Err(error) = stream.set_nodelay(true) {
            // Small JSON answers should leave at once, not wait for Nagle's algorithm.
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let io = TokioIo::new(raw_errors::JsonErrorStream::new(stream));
        let connection = builder
            .serve_connection(io, service.clone())
            .with_upgrades();
        tokio::spawn(drive_connection(connection, stopped.clone()));
    }
    drop(listener);
    drop(stopped);
    tracing::info!("shutting down: no new connections; draining requests in flight");
    // No receiver may be left: then nothing is in flight.
    let _ = stop.send(true);
    if tokio::time::timeout(timeouts.drain, stop.closed())
        .await
        .is_err()
    {
        tracing::warn!(
            drain_timeout = ?timeouts.drain,
            "connections still open after the drain timeout; closing them"
        );
    }
    Ok(())
}

/// Drives one connection to its end; once `stop` turns true, it finishes the request in flight
/// and closes. An upgraded connection leaves hyper (and the drain) when the upgrade completes.
async fn drive_connection<C>(connection: C, mut stop: tokio::sync::watch::Receiver<bool>)
where
    C: Future<Output = hyper::Result<()>> + GracefulClose,
{
    tokio::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = async { drop(stop.wait_for(|&stop| stop).await) } => {
            connection.as_mut().close_gracefully();
            connection.await
        }
    };
    if let Err(error) = result {
        tracing::debug!(%error, "connection ended with an error");
    }
}

/// A connection that can be asked to finish its request in flight and close.
trait GracefulClose {
    fn close_gracefully(self: std::pin::Pin<&mut Self>);
}

impl<I, S, B> GracefulClose for http1::UpgradeableConnection<I, S>
where
    S: hyper::service::HttpService<hyper::body::Incoming, ResBody = B>,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
    B: hyper::body::Body + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    fn close_gracefully(self: std::pin::Pin<&mut Self>) {
        self.graceful_shutdown();
    }
}

/// Waits after a failed accept. Running out of file descriptors is the usual cause; retrying at
/// once would spin, so the loop pauses until connections have had a chance to close.
async fn accept_error_pause(error: &std::io::Error) {
    tracing::warn!(%error, "accepting a connection failed; pausing");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// Completes on the first SIGINT (Ctrl-C) or, on Unix, SIGTERM: the signals with which
/// terminals, Docker, Kubernetes and systemd stop a service.
pub async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut stream) => {
                stream.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => tracing::info!("SIGINT received"),
        () = terminate => tracing::info!("SIGTERM received"),
    }
}
