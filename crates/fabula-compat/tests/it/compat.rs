//! The drop-in shapes: Search-R1's `/retrieve` (as verl's SearchTool calls it), ASearcher's
//! `/access`, and Tavily's `/search` and `/extract`.

use serde_json::{Value, json};

use crate::support::{Answer, TestApp, assert_error};

#[tokio::test]
async fn retrieve_answers_search_r1_shape_with_scores() {
    let app = TestApp::new();
    let answer = app
        .post(
            "/v1/worlds/0/retrieve",
            json!({"queries": ["Oren Talvik", "ferry"], "topk": 3, "return_scores": true}),
        )
        .await;
    assert_eq!(answer.status, 200, "{:#}", answer.json);
    let result = answer.json["result"].as_array().unwrap();
    assert_eq!(result.len(), 2);
    let hits = result[0].as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 3);
    for hit in hits {
        let fields: Vec<&str> = hit
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(fields, ["document", "score"]);
        assert!(hit["score"].is_number());
        let contents = hit["document"]["contents"].as_str().unwrap();
        // verl splits contents at the first newline: a quoted title, then the text.
        let (title, _text) = contents.split_once('\n').unwrap();
        assert!(title.starts_with('"') && title.ends_with('"'), "{title}");
        assert!(
            hit["document"]["id"]
                .as_str()
                .unwrap()
                .starts_with("https://")
        );
        // ASearcher's client reads the page's url to /access it.
        let url = hit["document"]["url"].as_str().unwrap();
        assert!(
            hit["document"]["id"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{url}#p"))
        );
    }
    let mut scrubbed = answer.json.clone();
    for hits in scrubbed["result"].as_array_mut().unwrap() {
        for hit in hits.as_array_mut().unwrap() {
            hit["score"] = json!(0.0);
        }
    }
    insta::assert_json_snapshot!(scrubbed);
}

#[tokio::test]
async fn retrieve_without_scores_answers_bare_documents() {
    let app = TestApp::new();
    let answer = app
        .post(
            "/v1/worlds/0/retrieve",
            json!({"queries": ["harbour"], "return_scores": false}),
        )
        .await;
    assert_eq!(answer.status, 200);
    let hits = answer.json["result"][0].as_array().unwrap();
    assert_eq!(hits.len(), 3, "Search-R1's default topk is 3");
    for hit in hits {
        let fields: Vec<&str> = hit
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(fields, ["contents", "id", "url"]);
    }
}

#[tokio::test]
async fn root_retrieve_takes_the_world_from_the_body() {
    let app = TestApp::new();
    let answer = app
        .post(
            "/retrieve",
            json!({"queries": ["ferry"], "topk": 2, "return_scores": true, "world": 3}),
        )
        .await;
    assert_eq!(answer.status, 200);
    let id = answer.json["result"][0][0]["document"]["id"]
        .as_str()
        .unwrap();
    assert!(id.starts_with("https://dravosk.example/"));
    assert_error(
        &app.post("/retrieve", json!({"queries": ["ferry"], "world": 42}))
            .await,
        404,
        "world_not_found",
    );
    assert_error(
        &app.post(
            "/retrieve",
            json!({"queries": ["ferry"], "world": 3, "topk": 51}),
        )
        .await,
        400,
        "bad_request",
    );
    let empty = app
        .post("/retrieve", json!({"queries": [], "world": 3}))
        .await;
    assert_eq!(empty.json, json!({"result": []}));
}

/// The hosts of a retrieve answer's first list, in rank order.
fn hosts(answer: &Answer) -> Vec<String> {
    answer.json["result"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| {
            // Bare documents: these requests ask for no scores.
            let id = hit["id"].as_str().unwrap();
            id.trim_start_matches("https://")
                .split('/')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn root_retrieve_without_a_world_searches_every_world() {
    let app = TestApp::new();
    // Each question finds its own world's page first, whatever world it is in.
    for (query, host) in [
        ("Oren Talvik navigator", "veloria.example"),
        ("ferry", "dravosk.example"),
    ] {
        let answer = app
            .post("/retrieve", json!({"queries": [query], "topk": 5}))
            .await;
        assert_eq!(answer.status, 200, "{:#}", answer.json);
        assert_eq!(hosts(&answer)[0], host, "{query}: {:#}", answer.json);
    }
    let wide = app
        .post(
            "/retrieve",
            json!({"queries": ["harbour ferry town"], "topk": 50}),
        )
        .await;
    let mut seen = hosts(&wide);
    seen.sort();
    seen.dedup();
    assert!(seen.len() >= 2, "{seen:?}");
}

#[tokio::test]
async fn passages_are_whole_unless_hiding_is_asked_for() {
    let app = TestApp::new();
    let contents = |answer: &Answer| {
        answer.json["result"][0][0]["contents"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let whole = app
        .post(
            "/retrieve",
            json!({"queries": ["Port Amsel population"], "topk": 1}),
        )
        .await;
    assert!(contents(&whole).contains("48,213"), "{:#}", whole.json);
    let partial = app
        .post(
            "/retrieve",
            json!({"queries": ["Port Amsel population"], "topk": 1, "hiding": "partial"}),
        )
        .await;
    let text = contents(&partial);
    assert!(!text.contains("48,213") && text.contains('…'), "{text}");
    assert_error(
        &app.post("/retrieve", json!({"queries": ["x"], "hiding": "loud"}))
            .await,
        400,
        "bad_request",
    );
}

#[tokio::test]
async fn retrieve_ignores_unknown_fields_like_search_r1() {
    let app = TestApp::new();
    let answer = app
        .post(
            "/v1/worlds/0/retrieve",
            json!({"queries": ["harbour"], "topk": 1, "extra": 1}),
        )
        .await;
    assert_eq!(answer.status, 200);
}

#[tokio::test]
async fn tavily_search_answers_tavily_fields() {
    let app = TestApp::new();
    let answer = app
        .post(
            "/compat/tavily/0/search",
            json!({"query": "Port Amsel", "max_results": 2, "search_depth": "basic",
                   "include_answer": false, "api_key": "tvly-ignored"}),
        )
        .await;
    assert_eq!(answer.status, 200, "{:#}", answer.json);
    let mut json = answer.json.clone();
    assert!(json["response_time"].as_f64().unwrap() >= 0.0);
    json["response_time"] = json!(0.0);
    for result in json["results"].as_array_mut().unwrap() {
        let score = result["score"].as_f64().unwrap();
        assert!(score > 0.0 && score < 1.0, "{score}");
        result["score"] = json!(0.5);
    }
    insta::assert_json_snapshot!(json);
}

#[tokio::test]
async fn tavily_search_defaults_and_raw_content() {
    let app = TestApp::new();
    let answer = app
        .post("/compat/tavily/0/search", json!({"query": "harbour"}))
        .await;
    assert_eq!(
        answer.json["results"].as_array().unwrap().len(),
        5,
        "Tavily's default is 5"
    );
    assert!(answer.json["results"][0]["raw_content"].is_null());
    for (include, markdown) in [
        (json!(true), true),
        (json!("markdown"), true),
        (json!("text"), false),
    ] {
        let answer = app
            .post(
                "/compat/tavily/0/search",
                json!({"query": "Oren Talvik", "max_results": 1, "include_raw_content": include}),
            )
            .await;
        let raw = answer.json["results"][0]["raw_content"].as_str().unwrap();
        assert_eq!(raw.starts_with("# Oren Talvik\n"), markdown, "{raw}");
        assert!(raw.contains("born in 1171"), "{raw}");
    }
    let none = app
        .post(
            "/compat/tavily/0/search",
            json!({"query": "harbour", "max_results": 0}),
        )
        .await;
    assert_eq!(none.json["results"], json!([]));
}

#[tokio::test]
async fn tavily_extract_answers_results_and_failures() {
    let app = TestApp::new();
    let answer = app
        .post(
            "/compat/tavily/0/extract",
            json!({"urls": ["https://veloria.example/wiki/Oren_Talvik", "https://veloria.example/nope"],
                   "format": "markdown"}),
        )
        .await;
    assert_eq!(answer.status, 200, "{:#}", answer.json);
    let mut json = answer.json.clone();
    json["response_time"] = json!(0.0);
    insta::assert_json_snapshot!(json);
    let one = app
        .post(
            "/compat/tavily/0/extract",
            json!({"urls": "https://veloria.example/wiki/Oren_Talvik"}),
        )
        .await;
    assert_eq!(one.json["results"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn tavily_errors_use_detail_error() {
    let app = TestApp::new();
    let cases: Vec<(&str, Value, u16)> = vec![
        ("/compat/tavily/0/search", json!({"query": ""}), 400),
        (
            "/compat/tavily/0/search",
            json!({"query": "x", "max_results": 21}),
            400,
        ),
        ("/compat/tavily/0/search", json!({"query": 5}), 400),
        ("/compat/tavily/0/search", json!({"max_results": 3}), 400),
        (
            "/compat/tavily/0/search",
            json!({"query": "x", "include_raw_content": 3}),
            400,
        ),
        ("/compat/tavily/9/search", json!({"query": "x"}), 404),
        ("/compat/tavily/x/search", json!({"query": "x"}), 400),
        ("/compat/tavily/0/extract", json!({"urls": []}), 400),
        (
            "/compat/tavily/0/extract",
            json!({"urls": vec!["u"; 21]}),
            400,
        ),
    ];
    for (path, body, status) in cases {
        let answer = app.post(path, body.clone()).await;
        assert_eq!(answer.status, status, "{path} {body}: {:#}", answer.json);
        assert!(
            answer.json["detail"]["error"].as_str().is_some(),
            "{:#}",
            answer.json
        );
        assert!(answer.json.get("error").is_none());
    }
    let malformed = app.post_raw("/compat/tavily/0/search", "{oops").await;
    assert_eq!(malformed.status, 400);
    assert!(malformed.json["detail"]["error"].is_string());
}

/// Search-R1 sends a training step's queries in one call: batches of thousands of queries, in
/// bodies far over the 64 KiB of other routes, where a bad query empties its own slot only.
#[tokio::test]
async fn retrieve_takes_search_r1_sized_batches() {
    let app = TestApp::new();
    let check = |answer: &Answer, n_queries: usize| {
        assert_eq!(answer.status, 200, "{:#}", answer.json);
        assert_eq!(answer.json["result"].as_array().unwrap().len(), n_queries);
    };
    let long_query = format!("harbour {}", "x".repeat(140));
    let queries: Vec<&str> = std::iter::repeat_n(long_query.as_str(), 512).collect();
    let body = json!({"queries": queries, "world": 0});
    assert!(body.to_string().len() > 64 * 1024);
    check(&app.post("/retrieve", body).await, 512);
    let many: Vec<&str> = std::iter::repeat_n("harbour", 4_096).collect();
    check(
        &app.post("/v1/worlds/0/retrieve", json!({"queries": many}))
            .await,
        4_096,
    );

    let too_long = "harbour ".repeat(300);
    let mixed = json!({"queries": ["harbour", "", "  ", too_long, "harbour"], "world": 0});
    let answer = app.post("/retrieve", mixed).await;
    check(&answer, 5);
    let slots = answer.json["result"].as_array().unwrap();
    assert!(!slots[0].as_array().unwrap().is_empty());
    assert_eq!(slots[0], slots[4]);
    for slot in &slots[1..4] {
        assert_eq!(slot, &json!([]));
    }

    let over: Vec<&str> = std::iter::repeat_n("harbour", 4_097).collect();
    let answer = app
        .post("/v1/worlds/0/retrieve", json!({"queries": over}))
        .await;
    assert_error(&answer, 400, "bad_request");
    let wide: Vec<&str> = std::iter::repeat_n("harbour", 1_000).collect();
    let answer = app
        .post(
            "/v1/worlds/0/retrieve",
            json!({"queries": wide, "topk": 50}),
        )
        .await;
    assert_error(&answer, 400, "bad_request");
    let huge = "x".repeat(11 << 20);
    let answer = app
        .post("/retrieve", json!({"queries": [huge], "world": 0}))
        .await;
    assert_error(&answer, 413, "payload_too_large");
    let other_route = app
        .post("/v1/worlds/0/extract", json!({"url": "x".repeat(70 << 10)}))
        .await;
    assert_error(&other_route, 413, "payload_too_large");
}

#[tokio::test]
async fn access_answers_asearchers_shape_across_worlds() {
    let app = TestApp::new();
    let urls = json!([
        "https://dravosk.example/wiki/Dravosk",
        "https://veloria.example/wiki/Port_Amsel",
        "https://nowhere.example/x",
        "https://veloria.example/wiki/No_such_page",
        "not a url"
    ]);
    let answer = app.post("/access", json!({"urls": urls})).await;
    assert_eq!(answer.status, 200, "{:#}", answer.json);
    let result = answer.json["result"].as_array().unwrap();
    assert_eq!(result.len(), 5);
    // What ASearcher's client reads: `contents` of each page, null for none.
    assert_eq!(result[0]["url"], "https://dravosk.example/wiki/Dravosk");
    assert_eq!(result[0]["title"], "Dravosk");
    assert!(result[0]["contents"].as_str().unwrap().contains("Dravosk"));
    assert_eq!(result[1]["title"], "Port Amsel");
    assert_eq!(result[2..], [Value::Null, Value::Null, Value::Null]);
    // Asked again, in another order, the same answers.
    let again = app
        .post(
            "/access",
            json!({"urls": ["https://veloria.example/wiki/Port_Amsel"]}),
        )
        .await;
    assert_eq!(again.json["result"][0], result[1]);
    // One world's route, and `world` in the root one, read that world only.
    let one = app
        .post(
            "/v1/worlds/0/access",
            json!({"urls": ["https://dravosk.example/wiki/Dravosk", "https://veloria.example/wiki/Port_Amsel"]}),
        )
        .await;
    assert_eq!(one.json["result"][0], Value::Null);
    assert_eq!(one.json["result"][1], result[1]);
    let named = app
        .post(
            "/access",
            json!({"urls": ["https://veloria.example/wiki/Port_Amsel"], "world": 1}),
        )
        .await;
    assert_eq!(named.json["result"][0], Value::Null);
    // Bad requests.
    assert_error(
        &app.post("/access", json!({"urls": []})).await,
        400,
        "bad_request",
    );
    let many: Vec<String> = (0..101).map(|i| format!("https://a.example/{i}")).collect();
    assert_error(
        &app.post("/access", json!({"urls": many})).await,
        400,
        "bad_request",
    );
    assert_error(
        &app.post("/v1/worlds/9/access", json!({"urls": ["x"]}))
            .await,
        404,
        "world_not_found",
    );
}
