//! The remote engine against a stub OpenAI-compatible server on a loopback port: renders
//! accepted and rejected through the same verification, retries of a busy engine, a timeout,
//! an engine that is down (skipped for its cool-down) and comes back.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use fabula_lwm::{
    Controls, FallbackReason, RemoteEngine, RemoteOptions, RenderConfig, RenderedBy, Renderer,
    SearchRequest, Session,
};
use serde_json::{Value, json};

use crate::fixtures::{self, KEST};

/// What the stub answers one request with.
#[derive(Clone)]
enum Reply {
    /// A completion whose content is this text.
    Completion(String),
    /// This status with an error body.
    Status(u16),
    /// Nothing for this long, then a completion.
    Slow(Duration, String),
}

/// A stub chat completions server: answers requests with `replies` in order (the last one again
/// when they run out) and keeps every request body.
struct Stub {
    addr: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl Stub {
    fn start(replies: Vec<Reply>) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        Stub::serve(listener, replies)
    }

    fn serve(listener: TcpListener, replies: Vec<Reply>) -> Stub {
        let addr = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let seen = Arc::clone(&seen);
                let replies = Arc::clone(&replies);
                thread::spawn(move || answer(stream, &seen, &replies));
            }
        });
        Stub { addr, requests }
    }

    fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

fn answer(mut stream: TcpStream, seen: &Mutex<Vec<Value>>, replies: &Mutex<VecDeque<Reply>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line == "\r\n" {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    seen.lock()
        .unwrap()
        .push(serde_json::from_slice(&body).unwrap());
    let reply = {
        let mut replies = replies.lock().unwrap();
        if replies.len() > 1 {
            replies.pop_front().unwrap()
        } else {
            replies.front().unwrap().clone()
        }
    };
    let (status, text) = match reply {
        Reply::Completion(text) => (200, completion(&text)),
        Reply::Status(status) => (status, json!({"error": "busy"}).to_string()),
        Reply::Slow(wait, text) => {
            thread::sleep(wait);
            (200, completion(&text))
        }
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{text}",
        text.len()
    );
}

fn completion(text: &str) -> String {
    json!({
        "id": "c1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 12, "total_tokens": 112}
    })
    .to_string()
}

fn renderer(url: &str, budget: Duration) -> Renderer {
    renderer_cooling(url, budget, Duration::ZERO)
}

fn renderer_cooling(url: &str, budget: Duration, cooldown: Duration) -> Renderer {
    let engine = RemoteEngine::new(&RemoteOptions {
        url: url.to_owned(),
        model: "agentworld-test".to_owned(),
    })
    .unwrap()
    .with_cooldown(cooldown);
    let mut config = RenderConfig::default();
    config.generate.time_budget = Some(budget);
    config.cache_capacity = 0;
    Renderer::new(Some(Box::new(engine)), config)
}

fn good_render() -> String {
    format!(
        "## Query: kest founder\n\n[1] {KEST}\nTitle: Kest\nSnippet: Kest, a city-state on \
         the … delta, was founded in … by ….\nDate: N/A\n"
    )
}

/// Renders the fixture search once.
fn render(renderer: &mut Renderer) -> fabula_lwm::Observation {
    let world = fixtures::world();
    let template = fixtures::search_template();
    let queries = vec!["kest founder".to_owned()];
    let controls = Controls::default();
    let request = SearchRequest {
        queries: &queries,
        controls: &controls,
        template: &template,
    };
    renderer.render_search(&world, &mut Session::default(), &request)
}

#[test]
fn an_engines_good_render_is_accepted_and_a_bad_one_falls_back() {
    let leak = format!("[1] {KEST}\nTitle: Kest\nSnippet: Founded in 1204.\nDate: N/A\n");
    let stub = Stub::start(vec![
        Reply::Completion(good_render()),
        Reply::Completion(leak),
    ]);
    let mut renderer = renderer(&format!("{}/v1/", stub.addr), Duration::from_secs(10));
    let accepted = render(&mut renderer);
    assert_eq!(accepted.rendered_by, RenderedBy::Lwm, "{accepted:?}");
    assert_eq!(accepted.text, good_render().trim_end());
    let rejected = render(&mut renderer);
    assert_eq!(rejected.rendered_by, RenderedBy::Template);
    assert_eq!(rejected.text, fixtures::search_template());
    assert!(rejected.fallback_reason.is_some(), "{rejected:?}");
    assert_ne!(rejected.fallback_reason, Some(FallbackReason::ModelError));
    // The engine got the system and user messages and the render's options.
    let requests = stub.requests();
    assert_eq!(requests.len(), 2);
    let request = &requests[0];
    assert_eq!(request["model"], "agentworld-test");
    assert_eq!(request["messages"][0]["role"], "system");
    assert!(
        request["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("kest founder")
    );
    assert_eq!(request["max_tokens"], 768);
    let snapshot = renderer.counters().snapshot();
    assert_eq!((snapshot.attempted, snapshot.accepted), (2, 1));
    assert_eq!(snapshot.tokens_generated, 24);
}

#[test]
fn a_busy_engine_is_retried_and_a_slow_one_times_out() {
    let stub = Stub::start(vec![
        Reply::Status(503),
        Reply::Status(429),
        Reply::Completion(good_render()),
    ]);
    let mut renderer = renderer(&stub.addr, Duration::from_secs(10));
    let started = Instant::now();
    let observation = render(&mut renderer);
    assert_eq!(observation.rendered_by, RenderedBy::Lwm, "{observation:?}");
    assert_eq!(stub.requests().len(), 3);
    // 250 ms then 500 ms of backoff.
    assert!(started.elapsed() >= Duration::from_millis(700));

    let always_busy = Stub::start(vec![Reply::Status(503)]);
    let mut renderer = renderer_for(&always_busy, Duration::from_secs(10));
    let observation = render(&mut renderer);
    assert_eq!(
        observation.fallback_reason,
        Some(FallbackReason::ModelError)
    );
    assert_eq!(always_busy.requests().len(), 1 + fabula_lwm::MAX_RETRIES);

    let slow = Stub::start(vec![Reply::Slow(Duration::from_secs(3), good_render())]);
    let mut renderer = renderer_for(&slow, Duration::from_millis(500));
    let started = Instant::now();
    let observation = render(&mut renderer);
    assert_eq!(
        observation.fallback_reason,
        Some(FallbackReason::TimeBudget)
    );
    assert_eq!(observation.text, fixtures::search_template());
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

fn renderer_for(stub: &Stub, budget: Duration) -> Renderer {
    renderer(&stub.addr, budget)
}

#[test]
fn renders_fall_back_while_the_engine_is_down_and_recover_when_it_returns() {
    // A port nothing listens on yet.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let cooldown = Duration::from_millis(400);
    let mut renderer =
        renderer_cooling(&format!("http://{addr}"), Duration::from_secs(5), cooldown);
    let down = render(&mut renderer);
    assert_eq!(down.rendered_by, RenderedBy::Template);
    assert_eq!(
        down.fallback_reason,
        Some(FallbackReason::EngineUnavailable)
    );
    assert!(
        down.fallback_detail
            .as_deref()
            .unwrap()
            .contains("/v1/chat/completions")
    );
    let failed = Instant::now();
    // The engine comes back on the same port; within the cool-down it is not asked.
    let listener = TcpListener::bind(addr).unwrap();
    let stub = Stub::serve(listener, vec![Reply::Completion(good_render())]);
    let skipped = render(&mut renderer);
    assert!(
        failed.elapsed() < cooldown,
        "the machine was too slow to test the cool-down"
    );
    assert_eq!(
        skipped.fallback_reason,
        Some(FallbackReason::EngineUnavailable)
    );
    assert!(
        skipped
            .fallback_detail
            .as_deref()
            .unwrap()
            .contains("skipped"),
        "{skipped:?}"
    );
    assert!(stub.requests().is_empty());
    // After it, the next render asks the engine again.
    thread::sleep(cooldown.saturating_sub(failed.elapsed()) + Duration::from_millis(50));
    let back = render(&mut renderer);
    assert_eq!(back.rendered_by, RenderedBy::Lwm, "{back:?}");
    assert_eq!(stub.requests().len(), 1);
    let snapshot = renderer.counters().snapshot();
    assert_eq!(snapshot.fallbacks_for(FallbackReason::EngineUnavailable), 2);
    assert_eq!(snapshot.fallbacks_for(FallbackReason::ModelError), 0);
    // Every model call was timed, the two that failed included.
    assert_eq!(snapshot.renders_timed(), 3);
    let text = fabula_lwm::prometheus_text(&snapshot);
    assert!(
        text.contains("fabula_lwm_render_seconds_count 3\n")
            && text.contains("fabula_lwm_render_seconds_bucket{le=\"+Inf\"} 3\n")
            && text.contains("fabula_lwm_fallbacks_total{reason=\"engine_unavailable\"} 2\n"),
        "{text}"
    );
    assert_eq!(snapshot.accepted, 1);
}

#[test]
fn a_stalled_engine_costs_one_budget_then_is_skipped_until_its_cool_down_ends() {
    // Answers nothing for 3 s each time: longer than the render budget.
    let stalled = Stub::start(vec![Reply::Slow(Duration::from_secs(3), good_render())]);
    let cooldown = Duration::from_secs(2);
    let mut renderer = renderer_cooling(&stalled.addr, Duration::from_millis(300), cooldown);
    let started = Instant::now();
    let first = render(&mut renderer);
    assert_eq!(first.fallback_reason, Some(FallbackReason::TimeBudget));
    assert!(started.elapsed() >= Duration::from_millis(300));
    // Four more renders queued behind it fall back at once instead of waiting a budget each.
    let queued = Instant::now();
    for _ in 0..4 {
        let observation = render(&mut renderer);
        assert_eq!(observation.rendered_by, RenderedBy::Template);
    }
    assert!(
        queued.elapsed() < Duration::from_millis(250),
        "{:?}",
        queued.elapsed()
    );
    assert_eq!(stalled.requests().len(), 1);
}
