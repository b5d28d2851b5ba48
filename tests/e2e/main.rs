//! End-to-end tests of the `fabula` binary: the commands a user runs, on real generated worlds.

mod audit;
mod bench_browse;
mod bench_search;
mod browser;
mod check_rules;
mod english;
mod generate_cli;
mod mcp;
mod serve;
mod slow;
mod soak;
mod tidy;
mod wm;

use std::path::Path;
use std::process::{Command, Output};

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
