//! The Tavily shape's edges: domain and time filters honoured, unsupported options and
//! endpoints refused in Tavily's error shape, and a base URL with a trailing slash.

use serde_json::{Value, json};

use crate::support::TestApp;

/// The urls a Tavily search answers, in order.
async fn urls(app: &TestApp, path: &str, body: Value) -> Vec<String> {
    let answer = app.post(path, body.clone()).await;
    assert_eq!(answer.status, 200, "{body}: {:#}", answer.json);
    answer.json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| result["url"].as_str().unwrap().to_owned())
        .collect()
}

const NEWS: &str = "https://veloria.example/news/1999-04-12/harbour-festival";

#[tokio::test]
async fn domain_filters_keep_and_drop_pages() {
    let app = TestApp::new();
    let search = |filters: Value| {
        let mut body = json!({"query": "harbour lantern", "max_results": 20});
        body.as_object_mut()
            .unwrap()
            .extend(filters.as_object().unwrap().clone());
        body
    };
    let all = urls(&app, "/compat/tavily/0/search", search(json!({}))).await;
    assert!(all.len() > 5 && all.contains(&NEWS.to_owned()), "{all:?}");

    let news = search(json!({"include_domains": ["https://veloria.example/news/"]}));
    assert_eq!(urls(&app, "/compat/tavily/0/search", news).await, [NEWS]);
    let whole_host = search(json!({"include_domains": ["veloria.example"]}));
    assert_eq!(urls(&app, "/compat/tavily/0/search", whole_host).await, all);
    let elsewhere = search(json!({"include_domains": ["dravosk.example"]}));
    assert!(
        urls(&app, "/compat/tavily/0/search", elsewhere)
            .await
            .is_empty()
    );

    let no_wiki = search(json!({"exclude_domains": ["veloria.example/wiki"]}));
    assert_eq!(urls(&app, "/compat/tavily/0/search", no_wiki).await, [NEWS]);
    let few = search(json!({"exclude_domains": ["veloria.example/news"], "max_results": 3}));
    let few = urls(&app, "/compat/tavily/0/search", few).await;
    let expected: Vec<String> = all
        .iter()
        .filter(|url| *url != NEWS)
        .take(3)
        .cloned()
        .collect();
    assert_eq!(few, expected);
}

#[tokio::test]
async fn time_filters_count_back_from_the_latest_page_date() {
    let app = TestApp::new();
    // World 0's one dated page is its latest, 1999-04-12: the world's today.
    let check = |filters: Value, expect: &'static [&'static str]| {
        let mut body = json!({"query": "harbour festival lantern", "max_results": 10});
        body.as_object_mut()
            .unwrap()
            .extend(filters.as_object().unwrap().clone());
        let app = &app;
        async move {
            let got = urls(app, "/compat/tavily/0/search", body.clone()).await;
            assert_eq!(got, expect, "{body}");
        }
    };
    check(json!({"time_range": "day"}), &[NEWS]).await;
    check(json!({"time_range": "y"}), &[NEWS]).await;
    check(json!({"start_date": "1999-04-12"}), &[NEWS]).await;
    check(json!({"start_date": "1999-04-13"}), &[]).await;
    check(json!({"end_date": "1999-04-11"}), &[]).await;
    check(
        json!({"end_date": "1999-04-12", "time_range": "week"}),
        &[NEWS],
    )
    .await;
}

#[tokio::test]
async fn unsupported_options_and_endpoints_say_so() {
    let app = TestApp::new();
    let cases = [
        (
            json!({"query": "harbour", "include_answer": true}),
            "include_answer",
        ),
        (
            json!({"query": "harbour", "include_answer": "advanced"}),
            "include_answer",
        ),
        (
            json!({"query": "harbour", "include_images": true}),
            "include_images",
        ),
        (
            json!({"query": "harbour", "include_domains_mode": "prefer"}),
            "include_domains_mode",
        ),
        (
            json!({"query": "harbour", "time_range": "hour"}),
            "time_range",
        ),
        (
            json!({"query": "harbour", "start_date": "12/04/1999"}),
            "start_date",
        ),
    ];
    for (body, field) in cases {
        let answer = app.post("/compat/tavily/0/search", body.clone()).await;
        assert_eq!(answer.status, 400, "{body}: {:#}", answer.json);
        let error = answer.json["detail"]["error"].as_str().unwrap();
        assert!(error.contains(field), "{body}: {error}");
    }
    // What tavily-python sends by default, and the supported values, pass.
    let accepted = json!({"query": "harbour", "include_answer": false, "include_images": false,
        "include_domains_mode": "restrict", "search_depth": "basic", "topic": "general", "days": 3});
    assert_eq!(
        app.post("/compat/tavily/0/search", accepted).await.status,
        200
    );

    for endpoint in ["crawl", "map"] {
        let path = format!("/compat/tavily/0/{endpoint}");
        let answer = app
            .post(&path, json!({"url": "https://veloria.example/"}))
            .await;
        assert_eq!(answer.status, 400, "{path}");
        let error = answer.json["detail"]["error"].as_str().unwrap();
        assert!(
            error.starts_with(&format!("{endpoint} is not supported")),
            "{error}"
        );
    }
}

#[tokio::test]
async fn a_base_url_with_a_trailing_slash_works() {
    let app = TestApp::new();
    // tavily-python joins `api_base_url + "/search"`.
    let plain = urls(&app, "/compat/tavily/0/search", json!({"query": "harbour"})).await;
    let doubled = urls(
        &app,
        "/compat/tavily/0//search",
        json!({"query": "harbour"}),
    )
    .await;
    assert_eq!(plain, doubled);
    let extract = app
        .post("/compat/tavily/0//extract", json!({"urls": NEWS}))
        .await;
    assert_eq!(extract.status, 200, "{:#}", extract.json);
    assert_eq!(extract.json["results"][0]["url"], NEWS);
    let health = app.get("//health").await;
    assert_eq!(health.status, 200);
}
