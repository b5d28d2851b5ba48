//! One load task's connection to the server: reopened after a failure or after sitting idle
//! (the server may close idle keep-alive connections, and a request racing that close is not the
//! server's fault), every request under a client-side timeout, and failures without an answer
//! (refused connections, resets, timeouts) counted as real errors on the spot.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::Method;
use hyper::body::Bytes;

use super::tally::{Op, Outcome, Tally};
use crate::loadgen::{Answer, Connection};

/// A connection idle this long is replaced rather than reused; far below any sane server idle
/// timeout, and never reached by a connection under load.
const MAX_IDLE: Duration = Duration::from_secs(1);

/// A keep-alive connection owned by one task, with the shared tally.
pub struct Client {
    addr: SocketAddr,
    api_key: Option<String>,
    timeout: Duration,
    connection: Option<Connection>,
    last_used: Instant,
    pub tally: Arc<Tally>,
}

impl Client {
    pub fn new(
        addr: SocketAddr,
        api_key: Option<String>,
        timeout: Duration,
        tally: Arc<Tally>,
    ) -> Client {
        Client {
            addr,
            api_key,
            timeout,
            connection: None,
            last_used: Instant::now(),
            tally,
        }
    }

    /// Sends one request and returns the answer and its latency. A request that gets no answer
    /// is recorded as a real error of `op` here, and the connection is dropped.
    pub async fn send(
        &mut self,
        op: Op,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Bytes>,
    ) -> Option<(Answer, Duration)> {
        if self.last_used.elapsed() > MAX_IDLE {
            self.connection = None;
        }
        if self.connection.is_none() {
            match Connection::open(self.addr, self.api_key.clone()).await {
                Ok(opened) => self.connection = Some(opened),
                Err(error) => {
                    self.fail(op, format!("connect: {error:#}")).await;
                    return None;
                }
            }
        }
        let connection = self.connection.as_mut()?;
        let sent = Instant::now();
        let request = connection.request(method, path, headers, body);
        let answered = tokio::time::timeout(self.timeout, request).await;
        self.last_used = Instant::now();
        match answered {
            Ok(Ok(answer)) => Some((answer, sent.elapsed())),
            Ok(Err(error)) => {
                self.fail(op, format!("connection: {error:#}")).await;
                None
            }
            Err(_) => {
                let message = format!("client timeout: no answer within {:?}", self.timeout);
                self.fail(op, message).await;
                None
            }
        }
    }

    /// Records a request without an answer and drops the connection; waits a little so a server
    /// that is down is not hammered in a tight loop.
    async fn fail(&mut self, op: Op, message: String) {
        self.connection = None;
        self.tally.record(op, None, Outcome::Real(message));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    /// Records an answered request.
    pub fn record(&self, op: Op, latency: Duration, outcome: Outcome) {
        self.tally.record(op, Some(latency), outcome);
    }
}
