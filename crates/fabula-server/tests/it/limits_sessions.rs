//! The bounds and privacy of REST sessions: random ids, sessions owned by the API key that made
//! them, the session cap with its time to live, and the byte budgets of the call logs.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Answer, TestApp, assert_error};

const KEY_A: &str = "key-a-0123456789abcdef";
const KEY_B: &str = "key-b-0123456789abcdef";

/// Sends a request with `key` as the bearer key, when there is one.
async fn send(app: &TestApp, method: &str, path: &str, body: Option<Value>, key: &str) -> Answer {
    let auth = format!("Bearer {key}");
    let headers: &[(&str, &str)] = if key.is_empty() {
        &[]
    } else {
        &[("authorization", &auth)]
    };
    let body = body.map(|body| serde_json::to_vec(&body).unwrap());
    app.send(method, path, body, headers).await
}

/// Creates a session on world 0 with `controls` and returns the answer.
async fn create(app: &TestApp, controls: Value, key: &str) -> Answer {
    let body = json!({"world": 0, "seed": 5, "controls": controls});
    send(app, "POST", "/v1/sessions", Some(body), key).await
}

/// Creates a session on world 0 and returns its id.
async fn session(app: &TestApp, controls: Value, key: &str) -> String {
    let answer = create(app, controls, key).await;
    assert_eq!(answer.status, 200, "{:#}", answer.json);
    answer.json["session"].as_str().unwrap().to_owned()
}

async fn log(app: &TestApp, sid: &str) -> Answer {
    app.get(&format!("/v1/sessions/{sid}/log")).await
}

/// Whether an id is `s_` and 32 lower-case hex digits.
fn is_session_id(id: &str) -> bool {
    id.strip_prefix("s_").is_some_and(|hex| {
        hex.len() == 32
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

#[tokio::test]
async fn ids_are_128_random_bits() {
    let first = TestApp::new();
    let second = TestApp::new();
    let a = session(&first, json!({}), "").await;
    let b = session(&second, json!({}), "").await;
    assert_ne!(a, b, "the same seed in two servers gives different ids");
    let mut ids = HashSet::new();
    for _ in 0..1_000 {
        let id = session(&first, json!({}), "").await;
        assert!(is_session_id(&id), "{id}");
        ids.insert(id);
    }
    assert_eq!(ids.len(), 1_000);
    assert!(!ids.contains(&a));
}

#[tokio::test]
async fn a_session_belongs_to_the_key_that_created_it() {
    let app = TestApp::with_config(|config| {
        config.api_keys = vec![KEY_A.to_owned(), KEY_B.to_owned()];
    });
    let sid = session(&app, json!({}), KEY_A).await;
    let search = json!({"query": "harbour"});
    let extract = json!({"url": "https://veloria.example/wiki/Port_Amsel"});
    // (method, path, body): every session route, tried with the other key and then the owner's.
    let routes = [
        ("POST", format!("/v1/sessions/{sid}/search"), Some(search)),
        ("POST", format!("/v1/sessions/{sid}/extract"), Some(extract)),
        ("GET", format!("/v1/sessions/{sid}/log"), None),
        (
            "POST",
            format!("/v1/sessions/{sid}/tools/dict_memory"),
            Some(json!({"operation": "retrieve_all"})),
        ),
        (
            "POST",
            format!("/v1/sessions/{sid}/tools/web_search"),
            Some(json!({"query": "harbour"})),
        ),
        ("DELETE", format!("/v1/sessions/{sid}"), None),
    ];
    for (method, path, body) in &routes {
        let other = send(&app, method, path, body.clone(), KEY_B).await;
        assert_error(&other, 404, "session_not_found");
    }
    let log = send(&app, "GET", &format!("/v1/sessions/{sid}/log"), None, KEY_A).await;
    assert_eq!(
        log.json["calls"], 0,
        "the other key's calls were not counted"
    );
    for (method, path, body) in &routes {
        let owner = send(&app, method, path, body.clone(), KEY_A).await;
        let expected = if *method == "DELETE" { 204 } else { 200 };
        assert_eq!(owner.status, expected, "{method} {path}: {:#}", owner.json);
    }
    // A session made by the other key is the other key's.
    let theirs = session(&app, json!({}), KEY_B).await;
    let path = format!("/v1/sessions/{theirs}/log");
    assert_error(
        &send(&app, "GET", &path, None, KEY_A).await,
        404,
        "session_not_found",
    );
    assert_eq!(send(&app, "GET", &path, None, KEY_B).await.status, 200);
}

#[tokio::test]
async fn the_cap_refuses_with_retry_after_while_every_session_is_fresh() {
    let app = TestApp::with_config(|config| config.max_sessions = 2);
    let first = session(&app, json!({}), "").await;
    let second = session(&app, json!({}), "").await;
    let refused = create(&app, json!({}), "").await;
    assert_error(&refused, 429, "too_many_sessions");
    let retry_after: u64 = refused.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=3_600).contains(&retry_after), "{retry_after}");
    for sid in [&first, &second] {
        assert_eq!(log(&app, sid).await.status, 200, "{sid} was not evicted");
    }
    assert_eq!(app.get("/health").await.json["sessions"], 2);
}

#[tokio::test]
async fn expired_sessions_make_room_and_answer_not_found() {
    let app = TestApp::with_config(|config| {
        config.max_sessions = 2;
        config.session_ttl = Duration::from_secs(60);
    });
    let expired = session(&app, json!({}), "").await;
    let also_expired = session(&app, json!({}), "").await;
    // Virtual time: the store's clock is tokio's, moved past the TTL without waiting.
    tokio::time::pause();
    tokio::time::advance(Duration::from_secs(61)).await;
    tokio::time::resume();
    assert_error(&log(&app, &expired).await, 404, "session_not_found");
    let fresh = session(&app, json!({}), "").await;
    assert_eq!(app.get("/health").await.json["sessions"], 1);
    assert_error(&log(&app, &also_expired).await, 404, "session_not_found");
    assert_eq!(log(&app, &fresh).await.status, 200);
    let path = format!("/v1/sessions/{also_expired}");
    assert_error(
        &send(&app, "DELETE", &path, None, "").await,
        404,
        "session_not_found",
    );
}

/// A session whose every call fails at once, so calls are logged without searching.
fn failing() -> Value {
    json!({"error_rate": 1.0, "error_kinds": ["server_error"]})
}

/// Makes `n_calls` searches of `n_queries` queries of `query_chars` characters each.
async fn search_many(
    app: &TestApp,
    sid: &str,
    n_calls: usize,
    n_queries: usize,
    query_chars: usize,
) {
    let queries = vec!["q".repeat(query_chars); n_queries];
    let body = json!({"queries": queries});
    for _ in 0..n_calls {
        let answer = app
            .post(&format!("/v1/sessions/{sid}/search"), body.clone())
            .await;
        assert_error(&answer, 500, "injected_server_error");
    }
}

/// The kept entries of a session's log as JSON bytes, after checking the counts add up.
async fn kept_log_bytes(app: &TestApp, sid: &str, n_calls: usize) -> usize {
    let log = log(app, sid).await.json;
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(log["calls"], n_calls);
    assert_eq!(
        log["forgotten"].as_u64().unwrap() + entries.len() as u64,
        n_calls as u64
    );
    serde_json::to_vec(entries).unwrap().len()
}

#[tokio::test]
async fn a_session_log_stays_within_its_byte_budget() {
    const LOG_BYTES: usize = 256 << 10;
    let app = TestApp::with_config(|config| config.session_log_bytes = LOG_BYTES);
    // (queries per call, characters per query, characters logged per query)
    let cases = [(100, 200, 200), (50, 1_000, 256)];
    for (n_queries, query_chars, logged_chars) in cases {
        let sid = session(&app, failing(), "").await;
        search_many(&app, &sid, 2_000, n_queries, query_chars).await;
        let log = log(&app, &sid).await.json;
        let entries = log["entries"].as_array().unwrap();
        assert!(
            entries.len() < 2_000 && !entries.is_empty(),
            "{}",
            entries.len()
        );
        assert_eq!(
            entries.last().unwrap()["call"],
            1_999,
            "the newest entry is kept"
        );
        let query = entries[0]["queries"][0].as_str().unwrap();
        assert_eq!(query.chars().count(), logged_chars);
        assert_eq!(query.ends_with('…'), logged_chars < query_chars);
        assert!(kept_log_bytes(&app, &sid, 2_000).await <= LOG_BYTES);
    }
}

#[tokio::test]
async fn all_logs_together_stay_within_the_total_budget() {
    const TOTAL_LOG_BYTES: usize = 200 << 10;
    let app = TestApp::with_config(|config| config.total_log_bytes = TOTAL_LOG_BYTES);
    let mut sessions = Vec::new();
    for _ in 0..4 {
        let sid = session(&app, failing(), "").await;
        search_many(&app, &sid, 50, 100, 200).await;
        sessions.push(sid);
    }
    let mut total = 0;
    for sid in &sessions {
        total += kept_log_bytes(&app, sid, 50).await;
    }
    assert!(total <= TOTAL_LOG_BYTES, "{total}");
    let last = log(&app, &sessions[3]).await.json;
    assert!(
        last["entries"].as_array().unwrap().is_empty(),
        "the budget was spent before"
    );
    // Deleting a session gives its budget back.
    let path = format!("/v1/sessions/{}", sessions[0]);
    assert_eq!(send(&app, "DELETE", &path, None, "").await.status, 204);
    let next = session(&app, failing(), "").await;
    search_many(&app, &next, 1, 100, 200).await;
    assert_eq!(
        log(&app, &next).await.json["entries"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}
