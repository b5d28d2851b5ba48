//! The server under test: a `fabula serve` child process that the benchmark starts on a free port
//! and stops with SIGTERM at the end, or a running server it attaches to by address and process
//! id. A child's stderr is drained on a thread into a short tail and error and warning counts.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::{Error, Result, bail, rss};

/// The most lines of the server's stderr kept for the report.
const TAIL_LINES: usize = 20;
/// How long a child may take to print its address.
const START_TIMEOUT: Duration = Duration::from_secs(120);

/// What the server wrote to stderr, in bounded form.
#[derive(Debug, Default, Clone, Serialize)]
pub struct ServerLog {
    pub lines: u64,
    pub error_lines: u64,
    pub warn_lines: u64,
    /// The last lines, oldest first.
    pub tail: VecDeque<String>,
}

impl ServerLog {
    fn push(&mut self, line: &str) {
        let line = strip_ansi(line);
        self.lines += 1;
        if line.contains(" ERROR ") || line.starts_with("ERROR") {
            self.error_lines += 1;
        }
        if line.contains(" WARN ") || line.starts_with("WARN") {
            self.warn_lines += 1;
        }
        if self.tail.len() == TAIL_LINES {
            self.tail.pop_front();
        }
        let clipped: String = line.chars().take(500).collect();
        self.tail.push_back(clipped);
    }
}

/// How the server ended, for a child the benchmark started.
#[derive(Debug, Clone, Serialize)]
pub struct ServerExit {
    /// The exit code, or `None` when a signal ended it.
    pub code: Option<i32>,
    /// Seconds from SIGTERM to exit.
    pub after_sigterm_s: f64,
    /// Whether it had to be killed after not exiting within the grace period.
    pub killed: bool,
}

/// How to start a server: the `fabula` binary (the CLI passes its own path), the dataset and any
/// extra arguments of `fabula serve`.
#[derive(Debug, Clone)]
pub struct Launch {
    pub exe: PathBuf,
    pub worlds: PathBuf,
    pub server_args: Vec<String>,
}

/// The server the benchmark loads.
pub struct Server {
    pub addr: SocketAddr,
    pub pid: Option<u32>,
    child: Option<Child>,
    log: Arc<Mutex<ServerLog>>,
}

impl Server {
    /// Attaches to a running server.
    pub fn attach(addr: SocketAddr, pid: Option<u32>) -> Server {
        Server {
            addr,
            pid,
            child: None,
            log: Arc::default(),
        }
    }

    /// Starts `EXE serve --worlds DIR --addr 127.0.0.1:0 EXTRA..` and waits for its "serving ...
    /// on http://ADDR" line; `EXE` is the `fabula` binary (see [`Launch`]).
    pub fn start(launch: &Launch) -> Result<Server> {
        let mut child = Command::new(&launch.exe)
            .arg("serve")
            .arg("--worlds")
            .arg(&launch.worlds)
            .args(["--addr", "127.0.0.1:0"])
            .args(&launch.server_args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(Error::io("starting fabula serve"))?;
        let Some(stderr) = child.stderr.take() else {
            bail!("the server's stderr is not piped");
        };
        let log = Arc::new(Mutex::new(ServerLog::default()));
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let shared = log.clone();
        std::thread::spawn(move || drain(BufReader::new(stderr), &shared, &addr_tx));
        let mut server = Server {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            pid: Some(child.id()),
            child: Some(child),
            log,
        };
        match addr_rx.recv_timeout(START_TIMEOUT) {
            Ok(addr) => server.addr = addr,
            Err(_) => {
                let tail = server.log().tail.into_iter().collect::<Vec<_>>().join("\n");
                server.stop(Duration::ZERO)?;
                bail!("the server did not report its address; its stderr ends:\n{tail}");
            }
        }
        Ok(server)
    }

    /// A copy of what the server logged so far.
    pub fn log(&self) -> ServerLog {
        self.log.lock().map(|log| log.clone()).unwrap_or_default()
    }

    /// Whether a started child has exited on its own.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.as_mut()?.try_wait().ok().flatten()
    }

    /// Sends SIGTERM to a started child and waits up to `grace` for it to exit, then kills it.
    /// Returns `None` for an attached server, which is left running.
    pub fn stop(&mut self, grace: Duration) -> Result<Option<ServerExit>> {
        let Some(mut child) = self.child.take() else {
            return Ok(None);
        };
        let sent = Instant::now();
        // std has no way to send SIGTERM without unsafe code; kill(1) does it.
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        loop {
            if let Some(status) = child
                .try_wait()
                .map_err(Error::io("waiting for the server"))?
            {
                return Ok(Some(exit(status, sent, false)));
            }
            if sent.elapsed() >= grace {
                child.kill().map_err(Error::io("killing the server"))?;
                let status = child.wait().map_err(Error::io("waiting for the server"))?;
                return Ok(Some(exit(status, sent, true)));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn exit(status: ExitStatus, sent: Instant, killed: bool) -> ServerExit {
    ServerExit {
        code: status.code(),
        after_sigterm_s: sent.elapsed().as_secs_f64(),
        killed,
    }
}

/// Reads the server's stderr to its end: sends the first address it reports, keeps the rest in
/// the bounded log.
fn drain(
    stderr: impl BufRead,
    log: &Mutex<ServerLog>,
    addr_tx: &std::sync::mpsc::Sender<SocketAddr>,
) {
    let mut reported = false;
    for line in stderr.lines() {
        let Ok(line) = line else { break };
        if !reported && let Some(addr) = reported_addr(&line) {
            reported = true;
            let _ = addr_tx.send(addr);
        }
        if let Ok(mut log) = log.lock() {
            log.push(&line);
        }
    }
}

/// The text of a line without its terminal colour codes (`ESC [ ... m`).
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// The address in a line like `fabula: serving DIR on http://127.0.0.1:4000 (ready in ..)`.
fn reported_addr(line: &str) -> Option<SocketAddr> {
    let rest = line.split("on http://").nth(1)?;
    rest.split_whitespace()
        .next()?
        .trim_end_matches('/')
        .parse()
        .ok()
}

/// The process id of `--pid`, checked to exist.
pub fn check_pid(pid: u32) -> Result<u32> {
    if rss::process_exists(pid) {
        Ok(pid)
    } else {
        Err(Error::Failed(format!("no process with id {pid}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_is_read_from_the_serving_line() {
        fn check(line: &str, expect: Option<&str>) {
            let got = reported_addr(line).map(|addr| addr.to_string());
            assert_eq!(got.as_deref(), expect, "{line}");
        }
        check(
            "fabula: serving w on http://127.0.0.1:41234 (ready in 0.01 s; Ctrl-C stops)",
            Some("127.0.0.1:41234"),
        );
        check("fabula: admin listener on http://[::1]:9/", Some("[::1]:9"));
        check("2024-01-01 INFO serving", None);
        check("on http://nonsense", None);
    }

    #[test]
    fn the_log_keeps_counts_and_a_short_tail() {
        let mut log = ServerLog::default();
        for i in 0..30 {
            log.push(&format!("2024-01-01T00:00:00Z  INFO fabula: line {i}"));
        }
        log.push("2024-01-01T00:00:00Z \x1b[31mERROR\x1b[0m fabula: broken");
        log.push("2024-01-01T00:00:00Z  WARN fabula: odd");
        assert_eq!((log.lines, log.error_lines, log.warn_lines), (32, 1, 1));
        assert_eq!(log.tail.len(), TAIL_LINES);
        assert!(log.tail.back().unwrap().ends_with("odd"));
    }
}
