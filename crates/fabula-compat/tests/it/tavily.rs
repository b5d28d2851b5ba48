//! The Tavily shape's edges: domain, time and topic filters honoured, published dates, plain
//! text, unsupported options and endpoints refused in Tavily's error shape, and a base URL with a
//! trailing slash.

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

const STRIKE: &str = "https://dravosk.example/news/2004-09-01/ferry-strike";
const FARES: &str = "https://dravosk.example/news/2004-08-02/ferry-fares";
const YEARBOOK: &str = "https://dravosk.example/archive/yearbook-2003";

#[tokio::test]
async fn the_news_topic_keeps_dated_news_and_days_counts_back() {
    let app = TestApp::new();
    // World 3's today is its latest page date, 2004-09-01; its fares news is 30 days older.
    let search = |filters: Value| {
        let mut body = json!({"query": "ferry guilds Dravosk", "max_results": 10});
        body.as_object_mut()
            .unwrap()
            .extend(filters.as_object().unwrap().clone());
        body
    };
    let all = urls(&app, "/compat/tavily/3/search", search(json!({}))).await;
    assert_eq!(all.len(), 4, "{all:?}");
    let news_only: Vec<String> = all
        .iter()
        .filter(|url| [STRIKE, FARES].contains(&url.as_str()))
        .cloned()
        .collect();
    let check = |filters: Value, expect: Vec<String>| {
        let app = &app;
        let body = search(filters);
        async move {
            let got = urls(app, "/compat/tavily/3/search", body.clone()).await;
            assert_eq!(got, expect, "{body}");
        }
    };
    assert_eq!(news_only.len(), 2, "{all:?}");
    check(json!({"topic": "news"}), news_only.clone()).await;
    check(json!({"topic": "news", "days": 30}), news_only.clone()).await;
    check(json!({"topic": "news", "time_range": "year"}), news_only).await;
    check(
        json!({"topic": "news", "days": 29}),
        vec![STRIKE.to_owned()],
    )
    .await;
    // As in Tavily, `days` applies to the news topic only.
    check(json!({"topic": "general", "days": 1}), all.clone()).await;
    let dated = search(json!({"time_range": "year"}));
    let dated = urls(&app, "/compat/tavily/3/search", dated).await;
    assert!(dated.contains(&YEARBOOK.to_owned()), "{dated:?}");
}

#[tokio::test]
async fn dated_results_carry_tavilys_published_date() {
    let app = TestApp::new();
    let body = json!({"query": "ferry guilds Dravosk", "max_results": 10});
    let answer = app.post("/compat/tavily/3/search", body).await;
    assert_eq!(answer.status, 200, "{:#}", answer.json);
    let mut dates = std::collections::BTreeMap::new();
    for result in answer.json["results"].as_array().unwrap() {
        let url = result["url"].as_str().unwrap().to_owned();
        dates.insert(url, result.get("published_date").cloned());
    }
    let date = |text: &str| Some(json!(text));
    assert_eq!(dates[STRIKE], date("Wed, 01 Sep 2004 00:00:00 GMT"));
    assert_eq!(dates[FARES], date("Mon, 02 Aug 2004 00:00:00 GMT"));
    assert_eq!(dates[YEARBOOK], date("Wed, 31 Dec 2003 00:00:00 GMT"));
    // Undated pages carry no `published_date` at all, as Tavily's results do.
    assert_eq!(dates["https://dravosk.example/wiki/Dravosk"], None);
}

#[tokio::test]
async fn the_text_format_gives_plain_text() {
    let app = TestApp::new();
    let text = "Harbour festival opens in Port Amsel\n\nThe harbour festival opened with lantern \
                boats and a parade of guild banners along the tide walls.";
    let markdown = format!("# {text}\n");
    let extract = |format: Value| {
        let app = &app;
        async move {
            let answer = app
                .post(
                    "/compat/tavily/0/extract",
                    json!({"urls": [NEWS], "format": format}),
                )
                .await;
            assert_eq!(answer.status, 200, "{format}: {:#}", answer.json);
            answer.json["results"][0]["raw_content"].clone()
        }
    };
    assert_eq!(extract(json!("text")).await, text);
    assert_eq!(extract(json!("markdown")).await, markdown);
    assert_eq!(extract(Value::Null).await, markdown);
    for (raw, expect) in [("text", text), ("markdown", markdown.as_str())] {
        let body =
            json!({"query": "harbour festival", "max_results": 1, "include_raw_content": raw});
        let answer = app.post("/compat/tavily/0/search", body).await;
        assert_eq!(answer.json["results"][0]["url"], NEWS, "{:#}", answer.json);
        assert_eq!(answer.json["results"][0]["raw_content"], expect, "{raw}");
    }
    let answer = app
        .post(
            "/compat/tavily/0/extract",
            json!({"urls": [NEWS], "format": "html"}),
        )
        .await;
    assert_eq!(answer.status, 400, "{:#}", answer.json);
    let error = answer.json["detail"]["error"].as_str().unwrap();
    assert!(
        error.starts_with("format must be markdown or text"),
        "{error}"
    );
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
        (json!({"query": "harbour", "topic": "finance"}), "topic"),
        (json!({"query": "harbour", "topic": "sports"}), "topic"),
        (
            json!({"query": "harbour", "topic": "news", "days": 0}),
            "days",
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
