//! End-to-end tests of the `fabula` binary: the commands a user runs, on real generated worlds.

mod audit;
mod bench_browse;
mod bench_search;
mod browser;
mod check_rules;
mod english;
mod faults;
mod generate_cli;
mod mcp;
mod serve;
mod slow;
mod soak;
mod suites;
mod tidy;
mod wm;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// Runs the fabula binary with arguments.
pub fn fabula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fabula"))
        .args(args)
        .output()
        .expect("the fabula binary runs")
}

/// Generates a small dataset and returns its directory.
pub fn generate(dir: &Path, count: u32, seed: u64) {
    let out = fabula(&[
        "generate",
        "--count",
        &count.to_string(),
        "--seed",
        &seed.to_string(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "generate failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One HTTP exchange with a real client (ureq): the status, the headers (lower-case names) and
/// the body as text. Error statuses are answers too, never panics.
pub fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut request = ureq::http::Request::builder()
        .method(method)
        .uri(format!("http://{addr}{path}"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let typed = headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("content-type"));
    if !typed && !body.is_empty() {
        request = request.header("content-type", "application/json");
    }
    let response = if body.is_empty() {
        agent.run(request.body(()).unwrap())
    } else {
        agent.run(request.body(body.to_owned()).unwrap())
    }
    .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(name, value)| {
            let value = value.to_str().unwrap_or_default();
            (name.as_str().to_owned(), value.to_owned())
        })
        .collect();
    let text = response.into_body().read_to_string().unwrap();
    (status, headers, text)
}

/// A child process, killed when dropped.
pub struct Process(pub Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `fabula serve` with both listeners, stopped when dropped.
pub struct Listeners {
    _process: Process,
    /// The agent-facing listener's address.
    pub agent: String,
    /// The admin listener's address.
    pub admin: String,
}

/// Starts `fabula serve --worlds DIR EXTRA...` with both listeners on free ports (the admin one
/// with `token`) and reads their addresses from its stderr.
pub fn serve_both(dir: &Path, token: &str, extra: &[&str]) -> Listeners {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fabula"))
        .args(["serve", "--worlds", dir.to_str().unwrap()])
        .args(["--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"])
        .args(extra)
        .env("FABULA_ADMIN_TOKEN", token)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("fabula starts");
    let stderr = child.stderr.take().unwrap();
    let process = Process(child);
    let mut lines = BufReader::new(stderr).lines();
    let (mut agent, mut admin) = (None, None);
    while agent.is_none() || admin.is_none() {
        let line = lines
            .next()
            .expect("the server reports both addresses")
            .unwrap();
        let Some(rest) = line.split("on http://").nth(1) else {
            continue;
        };
        let addr = rest
            .split(|c: char| c.is_whitespace() || c == ';')
            .next()
            .unwrap()
            .to_owned();
        if line.contains("admin listener") {
            admin = Some(addr);
        } else {
            agent = Some(addr);
        }
    }
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Listeners {
        _process: process,
        agent: agent.unwrap(),
        admin: admin.unwrap(),
    }
}
