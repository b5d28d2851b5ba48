//! Sessions and their controls: every control's effect, the log and reproducibility from the
//! seed. The bounds on sessions and their owners are tested in `limits_sessions`.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{Answer, TestApp, assert_error};

/// Creates a session on world 0 and returns its id.
async fn session(app: &TestApp, seed: u64, controls: Value) -> String {
    let answer = app
        .post(
            "/v1/sessions",
            json!({"world": 0, "seed": seed, "controls": controls}),
        )
        .await;
    assert_eq!(answer.status, 200, "{:#}", answer.json);
    answer.json["session"].as_str().unwrap().to_owned()
}

async fn search(app: &TestApp, sid: &str, body: Value) -> Answer {
    app.post(&format!("/v1/sessions/{sid}/search"), body).await
}

async fn log(app: &TestApp, sid: &str) -> Value {
    let answer = app.get(&format!("/v1/sessions/{sid}/log")).await;
    assert_eq!(answer.status, 200, "{:#}", answer.json);
    answer.json
}

#[tokio::test]
async fn create_answers_id_and_resolved_controls() {
    let app = TestApp::new();
    let answer = app
        .post(
            "/v1/sessions",
            json!({"world": 0, "seed": 42, "controls": {"noise_level": 1.0}}),
        )
        .await;
    assert_eq!(answer.status, 200);
    let mut created = answer.json;
    assert_eq!(created["session"].as_str().unwrap().len(), "s_".len() + 32);
    created["session"] = json!("<sid>");
    insta::assert_json_snapshot!(created);
    let half = app
        .post(
            "/v1/sessions",
            json!({"world": 0, "seed": 1, "controls": {"noise_level": 0.5, "drop_rate": 0.0}}),
        )
        .await;
    insta::assert_json_snapshot!(half.json["controls"]);
}

#[tokio::test]
async fn a_clean_session_searches_like_the_world() {
    let app = TestApp::new();
    let sid = session(&app, 1, json!({})).await;
    let body = json!({"query": "harbour lantern", "top_k": 5});
    let direct = app.post("/v1/worlds/0/search", body.clone()).await;
    let through = search(&app, &sid, body).await;
    assert_eq!(through.status, 200);
    assert_eq!(through.json, direct.json);
    let url = "https://veloria.example/wiki/Port_Amsel";
    let direct = app.post("/v1/worlds/0/extract", json!({"url": url})).await;
    let through = app
        .post(&format!("/v1/sessions/{sid}/extract"), json!({"url": url}))
        .await;
    assert_eq!(through.json, direct.json);
}

#[tokio::test]
async fn bad_sessions_are_rejected() {
    let app = TestApp::new();
    assert_error(
        &app.post("/v1/sessions", json!({"world": 9})).await,
        404,
        "world_not_found",
    );
    for controls in [
        json!({"error_rate": 1.5}),
        json!({"noise_level": -0.1}),
        json!({"drop_rate": "high"}),
        json!({"error_kinds": []}),
        json!({"error_kinds": ["explode"]}),
        json!({"latency_ms": [50, 120_001]}),
        json!({"latency_ms": [1]}),
        json!({"page_size": 0}),
        json!({"page_size": 51}),
        json!({"truncate_extract": 0}),
        json!({"timeout_ms": 1_000_000}),
        json!({"errorrate": 0.1}),
    ] {
        let answer = app
            .post("/v1/sessions", json!({"world": 0, "controls": controls}))
            .await;
        assert_error(&answer, 400, "bad_request");
    }
    assert_error(
        &app.post("/v1/sessions", json!({"seed": 1})).await,
        400,
        "bad_request",
    );
    assert_error(
        &search(&app, "s9-nope", json!({"query": "x"})).await,
        404,
        "session_not_found",
    );
    assert_error(
        &app.post("/v1/sessions/s9-nope/extract", json!({"url": "x"}))
            .await,
        404,
        "session_not_found",
    );
    assert_error(
        &app.get("/v1/sessions/s9-nope/log").await,
        404,
        "session_not_found",
    );
}

#[tokio::test]
async fn rate_limit_is_429_with_retry_after() {
    let app = TestApp::new();
    let sid = session(
        &app,
        1,
        json!({"error_rate": 1.0, "error_kinds": ["rate_limit"]}),
    )
    .await;
    let answer = search(&app, &sid, json!({"query": "harbour"})).await;
    assert_error(&answer, 429, "rate_limited");
    assert_eq!(answer.headers["retry-after"], "1");
    let extract = app
        .post(
            &format!("/v1/sessions/{sid}/extract"),
            json!({"url": "https://veloria.example/wiki/Port_Amsel"}),
        )
        .await;
    assert_error(&extract, 429, "rate_limited");
}

#[tokio::test]
async fn server_error_is_500() {
    let app = TestApp::new();
    let sid = session(
        &app,
        1,
        json!({"error_rate": 1.0, "error_kinds": ["server_error"]}),
    )
    .await;
    assert_error(
        &search(&app, &sid, json!({"query": "harbour"})).await,
        500,
        "injected_server_error",
    );
}

#[tokio::test]
async fn timeout_is_504_after_timeout_ms() {
    let app = TestApp::new();
    let sid = session(
        &app,
        1,
        json!({"error_rate": 1.0, "error_kinds": ["timeout"], "timeout_ms": 60}),
    )
    .await;
    let started = Instant::now();
    let answer = search(&app, &sid, json!({"query": "harbour"})).await;
    assert_error(&answer, 504, "timeout");
    assert!(started.elapsed() >= Duration::from_millis(60));
    assert_eq!(log(&app, &sid).await["entries"][0]["latency_ms"], 60);
}

#[tokio::test]
async fn default_error_kinds_are_rate_limit_and_server_error() {
    let app = TestApp::new();
    let sid = session(&app, 5, json!({"error_rate": 1.0})).await;
    let mut statuses = Vec::new();
    for _ in 0..40 {
        statuses.push(
            search(&app, &sid, json!({"query": "harbour"}))
                .await
                .status
                .as_u16(),
        );
    }
    assert!(
        statuses.contains(&429) && statuses.contains(&500),
        "{statuses:?}"
    );
    assert!(statuses.iter().all(|status| [429, 500].contains(status)));
}

#[tokio::test]
async fn error_rate_fails_about_that_share_of_calls() {
    let app = TestApp::new();
    let sid = session(&app, 11, json!({"error_rate": 0.3})).await;
    let mut n_failed = 0;
    for _ in 0..100 {
        if search(&app, &sid, json!({"query": "harbour"})).await.status != 200 {
            n_failed += 1;
        }
    }
    assert!(
        (15..=45).contains(&n_failed),
        "{n_failed} of 100 failed at rate 0.3"
    );
}

#[tokio::test]
async fn page_size_caps_results_per_page() {
    let app = TestApp::new();
    let sid = session(&app, 1, json!({"page_size": 2})).await;
    let first = search(&app, &sid, json!({"query": "harbour", "top_k": 10})).await;
    assert_eq!(first.json["results"].as_array().unwrap().len(), 2);
    assert_eq!(first.json["has_more"], true);
    let second = search(
        &app,
        &sid,
        json!({"query": "harbour", "top_k": 10, "page": 2}),
    )
    .await;
    let ranks: Vec<&Value> = second.json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| &h["rank"])
        .collect();
    assert_eq!(ranks, [3, 4]);
    let small = search(&app, &sid, json!({"query": "harbour", "top_k": 1})).await;
    assert_eq!(
        small.json["results"].as_array().unwrap().len(),
        1,
        "a smaller top_k still holds"
    );
}

#[tokio::test]
async fn drop_rate_silently_leaves_results_out() {
    let app = TestApp::new();
    let all = session(&app, 1, json!({"drop_rate": 1.0})).await;
    let answer = search(&app, &all, json!({"query": "harbour", "top_k": 10})).await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json["results"], json!([]));
    assert_eq!(log(&app, &all).await["entries"][0]["dropped_results"], 10);

    let some = session(&app, 3, json!({"drop_rate": 0.5})).await;
    let mut n_shown = 0;
    for _ in 0..10 {
        let answer = search(&app, &some, json!({"query": "harbour", "top_k": 10})).await;
        let results = answer.json["results"].as_array().unwrap();
        n_shown += results.len();
        for (position, hit) in results.iter().enumerate() {
            assert_eq!(
                hit["rank"],
                position + 1,
                "ranks are renumbered so gaps do not show"
            );
        }
    }
    assert!(
        (20..=80).contains(&n_shown),
        "{n_shown} of 100 shown at drop rate 0.5"
    );
}

#[tokio::test]
async fn truncate_extract_cuts_and_ends_the_page() {
    let app = TestApp::new();
    let sid = session(&app, 1, json!({"truncate_extract": 100})).await;
    let url = "https://veloria.example/wiki/History_of_the_Veloria_Isles";
    let answer = app
        .post(&format!("/v1/sessions/{sid}/extract"), json!({"url": url}))
        .await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.json["content"].as_str().unwrap().chars().count(),
        100
    );
    assert!(answer.json["next_start"].is_null());
    let short = app
        .post(
            &format!("/v1/sessions/{sid}/extract"),
            json!({"url": url, "max_chars": 50}),
        )
        .await;
    assert_eq!(short.json["content"].as_str().unwrap().chars().count(), 50);
    assert_eq!(
        short.json["next_start"], 50,
        "a window within the limit is not cut"
    );
    let entries = log(&app, &sid).await["entries"].clone();
    assert_eq!(entries[0]["truncated"], true);
    assert_eq!(entries[1]["truncated"], false);
}

#[tokio::test]
async fn batch_failure_rate_fails_single_queries_of_a_batch() {
    let app = TestApp::new();
    let sid = session(&app, 2, json!({"batch_failure_rate": 0.5})).await;
    let queries: Vec<String> = (0..20).map(|idx| format!("harbour {idx}")).collect();
    let answer = search(&app, &sid, json!({"queries": queries})).await;
    assert_eq!(answer.status, 200);
    let responses = answer.json["responses"].as_array().unwrap();
    assert_eq!(responses.len(), 20);
    let failed: Vec<usize> = responses
        .iter()
        .enumerate()
        .filter(|(_, response)| response.get("error").is_some())
        .map(|(idx, _)| idx)
        .collect();
    assert!((3..=17).contains(&failed.len()), "{failed:?}");
    for &idx in &failed {
        assert_eq!(responses[idx]["query"], format!("harbour {idx}"));
        assert_eq!(responses[idx]["error"]["code"], "injected_server_error");
    }
    assert_eq!(
        log(&app, &sid).await["entries"][0]["failed_queries"],
        json!(failed)
    );
    let single = search(&app, &sid, json!({"query": "harbour"})).await;
    assert_eq!(single.status, 200, "a single query is not a batch");
}

#[tokio::test]
async fn latency_is_added_within_the_range() {
    let app = TestApp::new();
    let sid = session(&app, 1, json!({"latency_ms": [40, 40]})).await;
    let started = Instant::now();
    assert_eq!(
        search(&app, &sid, json!({"query": "harbour"})).await.status,
        200
    );
    assert!(started.elapsed() >= Duration::from_millis(40));
    let ranged = session(&app, 1, json!({"latency_ms": [0, 30]})).await;
    for _ in 0..5 {
        search(&app, &ranged, json!({"query": "harbour"})).await;
    }
    for entry in log(&app, &ranged).await["entries"].as_array().unwrap() {
        assert!(entry["latency_ms"].as_u64().unwrap() <= 30);
    }
}

#[tokio::test]
async fn hiding_control_overrides_the_request() {
    let app = TestApp::new();
    let sid = session(&app, 1, json!({"hiding": "strict"})).await;
    let body = json!({"query": "Port Amsel population", "top_k": 3, "hiding": "none"});
    let through = search(&app, &sid, body).await;
    let strict = app
        .post(
            "/v1/worlds/0/search",
            json!({"query": "Port Amsel population", "top_k": 3, "hiding": "strict"}),
        )
        .await;
    assert_eq!(through.json, strict.json);
}

#[tokio::test]
async fn noise_level_applies_its_mix() {
    let app = TestApp::new();
    let sid = session(&app, 9, json!({"noise_level": 1.0, "latency_ms": [0, 0]})).await;
    let mut statuses = Vec::new();
    for _ in 0..60 {
        let answer = search(&app, &sid, json!({"query": "harbour", "top_k": 10})).await;
        if answer.status == 200 {
            assert!(
                answer.json["results"].as_array().unwrap().len() <= 3,
                "page_size 3 at noise 1"
            );
        }
        statuses.push(answer.status.as_u16());
    }
    let n_failed = statuses.iter().filter(|status| **status != 200).count();
    assert!(
        (2..=25).contains(&n_failed),
        "{n_failed} of 60 failed at noise 1: {statuses:?}"
    );
}

/// The statuses, result urls and latencies of a fixed sequence of calls in a fresh session.
async fn outcomes(app: &TestApp, seed: u64) -> Vec<Value> {
    let controls = json!({"error_rate": 0.4, "drop_rate": 0.3, "batch_failure_rate": 0.3,
                          "latency_ms": [0, 3], "truncate_extract": 500});
    let sid = session(app, seed, controls).await;
    let mut seen = Vec::new();
    for call in 0..24 {
        let answer = if call % 3 == 2 {
            app.post(
                &format!("/v1/sessions/{sid}/extract"),
                json!({"url": "https://veloria.example/wiki/History_of_the_Veloria_Isles"}),
            )
            .await
        } else if call % 3 == 1 {
            search(
                app,
                &sid,
                json!({"queries": ["harbour", "lantern guild", "tide"]}),
            )
            .await
        } else {
            search(app, &sid, json!({"query": "harbour"})).await
        };
        seen.push(json!([answer.status.as_u16(), answer.json]));
    }
    let mut log = log(app, &sid).await;
    log["session"] = Value::Null;
    seen.push(log);
    seen
}

#[tokio::test]
async fn the_same_seed_reproduces_the_same_outcomes() {
    let app = TestApp::new();
    let first = outcomes(&app, 77).await;
    let again = outcomes(&app, 77).await;
    assert_eq!(first, again);
    let other_server = TestApp::new();
    assert_eq!(
        first,
        outcomes(&other_server, 77).await,
        "another server, the same outcomes"
    );
    let other_seed = outcomes(&app, 78).await;
    assert_ne!(first, other_seed);
    let statuses: Vec<&Value> = first.iter().take(24).map(|call| &call[0]).collect();
    assert!(statuses.iter().any(|status| **status == 200));
    assert!(statuses.iter().any(|status| **status != 200));
}

#[tokio::test]
async fn the_log_lists_calls_and_outcomes() {
    let app = TestApp::new();
    let sid = session(
        &app,
        4,
        json!({"error_rate": 1.0, "error_kinds": ["server_error"]}),
    )
    .await;
    search(&app, &sid, json!({"query": "harbour"})).await;
    let clean = session(&app, 4, json!({})).await;
    search(
        &app,
        &clean,
        json!({"queries": ["harbour", "ferry"], "top_k": 2}),
    )
    .await;
    app.post(
        &format!("/v1/sessions/{clean}/extract"),
        json!({"url": "https://veloria.example/nope"}),
    )
    .await;
    app.post(
        &format!("/v1/sessions/{clean}/extract"),
        json!({"url": "https://veloria.example/wiki/Port_Amsel", "max_chars": 10}),
    )
    .await;
    // A request rejected as bad input is not a call.
    search(&app, &clean, json!({"query": ""})).await;
    let mut failing = log(&app, &sid).await;
    failing["session"] = json!("<sid>");
    insta::assert_json_snapshot!(failing);
    let mut clean_log = log(&app, &clean).await;
    clean_log["session"] = json!("<sid>");
    insta::assert_json_snapshot!(clean_log);
}

#[tokio::test]
async fn logs_keep_the_latest_entries() {
    let app = TestApp::with_config(|config| config.session_log_limit = 3);
    let sid = session(&app, 1, json!({})).await;
    for _ in 0..5 {
        search(&app, &sid, json!({"query": "harbour"})).await;
    }
    let log = log(&app, &sid).await;
    assert_eq!(log["calls"], 5);
    assert_eq!(log["forgotten"], 2);
    let calls: Vec<&Value> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["call"])
        .collect();
    assert_eq!(calls, [2, 3, 4]);
}

#[tokio::test]
async fn sessions_can_be_deleted() {
    let app = TestApp::new();
    let sid = session(&app, 1, json!({})).await;
    let answer = app
        .send("DELETE", &format!("/v1/sessions/{sid}"), None, &[])
        .await;
    assert_eq!(answer.status, 204);
    assert_error(
        &app.get(&format!("/v1/sessions/{sid}/log")).await,
        404,
        "session_not_found",
    );
    let again = app
        .send("DELETE", &format!("/v1/sessions/{sid}"), None, &[])
        .await;
    assert_error(&again, 404, "session_not_found");
}

async fn tool(app: &TestApp, sid: &str, name: &str, arguments: Value) -> Answer {
    app.post(&format!("/v1/sessions/{sid}/tools/{name}"), arguments)
        .await
}

#[tokio::test]
async fn the_tools_route_runs_qwen_agentworlds_three_tools() {
    let app = TestApp::new();
    let sid = session(&app, 1, json!({})).await;
    let searched = tool(
        &app,
        &sid,
        "web_search",
        json!({"query": "harbour lantern"}),
    )
    .await;
    assert_eq!(searched.status, 200, "{:#}", searched.json);
    assert_eq!(searched.json["tool"], "web_search");
    let text = searched.json["text"].as_str().unwrap();
    assert!(text.contains("\n[1] https://"), "{text}");
    let url = searched.json["structured"]["responses"][0]["results"][0]["url"]
        .as_str()
        .unwrap()
        .to_owned();
    let page = tool(&app, &sid, "web_extractor", json!({"url": url})).await;
    assert_eq!(page.status, 200, "{:#}", page.json);
    assert!(page.json["text"].as_str().unwrap().contains(&url));
    // The searches count in the session's log; the memory is not a search.
    let add = json!({"operation": "add", "dict": {"port": "Amsel", "founded": 1204}});
    let added = tool(&app, &sid, "dict_memory", add).await;
    assert_eq!(added.status, 200, "{:#}", added.json);
    assert_eq!(
        added.json["text"],
        "Successfully added items of ['founded', 'port'] to memory."
    );
    let got = tool(
        &app,
        &sid,
        "dict_memory",
        json!({"operation": "retrieve", "key_list": ["founded", "ruler"]}),
    )
    .await;
    assert_eq!(
        got.json["text"],
        "{\"founded\":1204}\nKey not found: ['ruler']"
    );
    assert_eq!(got.json["structured"]["found"], json!({"founded": 1204}));
    assert_eq!(log(&app, &sid).await["calls"], 2);
    // Another session has its own memory.
    let other = session(&app, 2, json!({})).await;
    let empty = tool(
        &app,
        &other,
        "dict_memory",
        json!({"operation": "retrieve_all"}),
    )
    .await;
    assert_eq!(empty.json["text"], "{}");
    // Bad input is a 400 with a message; an unknown session or tool a 404.
    let unknown = tool(&app, &sid, "web_browse", json!({})).await;
    assert_error(&unknown, 404, "not_found");
    let bad = tool(&app, &sid, "dict_memory", json!({"operation": "forget"})).await;
    assert_error(&bad, 400, "bad_request");
    let no_dict = tool(&app, &sid, "dict_memory", json!({"operation": "add"})).await;
    assert_error(&no_dict, 400, "bad_request");
    let gone = tool(
        &app,
        "s_0",
        "dict_memory",
        json!({"operation": "retrieve_all"}),
    )
    .await;
    assert_error(&gone, 404, "session_not_found");
}

#[tokio::test]
async fn a_full_memory_is_409_and_keeps_what_it_had() {
    let app = TestApp::new();
    let sid = session(&app, 1, json!({})).await;
    // Request bodies hold at most 64 KiB, so a session's memory fills over several adds.
    let value = "x".repeat(60_000);
    let fits = fabula_server::memory::MAX_BYTES / 60_100;
    for i in 0..fits {
        let add = json!({"operation": "add", "dict": {format!("k{i}"): value}});
        let added = tool(&app, &sid, "dict_memory", add).await;
        assert_eq!(added.status, 200, "{i}: {:#}", added.json);
    }
    let add = json!({"operation": "add", "dict": {"last": value}});
    assert_error(
        &tool(&app, &sid, "dict_memory", add).await,
        409,
        "memory_full",
    );
    let keys = json!({"operation": "retrieve", "key_list": ["last", "k0"]});
    let kept = tool(&app, &sid, "dict_memory", keys).await;
    let text = kept.json["text"].as_str().unwrap();
    assert!(
        text.ends_with("Key not found: ['last']"),
        "{}",
        &text[text.len() - 40..]
    );
    assert_eq!(
        kept.json["structured"]["found"]["k0"]
            .as_str()
            .unwrap()
            .len(),
        60_000
    );
}
