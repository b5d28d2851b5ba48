//! The native REST endpoints: health, the world list, search (single and batch, paging, hiding)
//! and extract (windows of a long page).

use serde_json::{Value, json};

use crate::support::{TestApp, long_history_body};

#[tokio::test]
async fn health_reports_worlds() {
    let app = TestApp::new();
    let answer = app.get("/health").await;
    assert_eq!(answer.status, 200);
    insta::assert_json_snapshot!(answer.json, @r#"
    {
      "sessions": 0,
      "status": "ok",
      "unavailable": [],
      "worlds": 2
    }
    "#);
}

#[tokio::test]
async fn worlds_are_listed_by_id() {
    let app = TestApp::new();
    let answer = app.get("/v1/worlds").await;
    assert_eq!(answer.status, 200);
    insta::assert_json_snapshot!(answer.json);
}

#[tokio::test]
async fn single_query_answers_one_object() {
    let app = TestApp::new();
    let answer = app
        .post(
            "/v1/worlds/0/search",
            json!({"query": "Port Amsel founded", "top_k": 3}),
        )
        .await;
    assert_eq!(answer.status, 200, "{:#}", answer.json);
    insta::assert_json_snapshot!(answer.json);
}

#[tokio::test]
async fn results_carry_rank_url_title_snippet_date() {
    let app = TestApp::new();
    let answer = app
        .post("/v1/worlds/0/search", json!({"query": "harbour festival"}))
        .await;
    assert_eq!(answer.status, 200);
    let results = answer.json["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for (position, hit) in results.iter().enumerate() {
        let fields: Vec<&str> = hit
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(fields, ["date", "rank", "snippet", "title", "url"]);
        assert_eq!(hit["rank"], position + 1);
    }
    let news = results
        .iter()
        .find(|hit| hit["url"] == "https://veloria.example/news/1999-04-12/harbour-festival")
        .expect("the festival news is found");
    assert_eq!(news["date"], "1999-04-12");
    let reference = results.iter().find(|hit| hit["date"].is_null());
    assert!(reference.is_some(), "reference pages have a null date");
}

#[tokio::test]
async fn batch_answers_one_response_per_query_in_order() {
    let app = TestApp::new();
    let answer = app
        .post(
            "/v1/worlds/0/search",
            json!({"queries": ["lantern guild", "tide walls", "Oren Talvik"], "top_k": 2}),
        )
        .await;
    assert_eq!(answer.status, 200);
    let responses = answer.json["responses"].as_array().unwrap();
    let queries: Vec<&Value> = responses
        .iter()
        .map(|response| &response["query"])
        .collect();
    assert_eq!(queries, ["lantern guild", "tide walls", "Oren Talvik"]);
    for response in responses {
        assert_eq!(response["page"], 1);
        assert!(response["results"].as_array().unwrap().len() <= 2);
        assert!(response["has_more"].is_boolean());
    }
}

#[tokio::test]
async fn pages_continue_the_ranking() {
    let app = TestApp::new();
    let search = |page: usize| {
        app.post(
            "/v1/worlds/0/search",
            json!({"query": "harbour", "top_k": 4, "page": page}),
        )
    };
    let first = search(1).await.json;
    let second = search(2).await.json;
    assert_eq!(first["page"], 1);
    assert_eq!(first["has_more"], true);
    assert_eq!(second["page"], 2);
    let ranks: Vec<u64> = second["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, [5, 6, 7, 8]);
    let first_urls: Vec<&Value> = first["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| &h["url"])
        .collect();
    for hit in second["results"].as_array().unwrap() {
        assert!(
            !first_urls.contains(&&hit["url"]),
            "page 2 repeats a page-1 result"
        );
    }
    let deep = search(50).await.json;
    assert_eq!(deep["results"], json!([]));
    assert_eq!(deep["has_more"], false);
}

#[tokio::test]
async fn hiding_levels_change_snippets_not_results() {
    let app = TestApp::new();
    let mut snippets = Vec::new();
    let mut urls = Vec::new();
    for hiding in ["none", "partial", "strict"] {
        let answer = app
            .post(
                "/v1/worlds/0/search",
                json!({"query": "Port Amsel population", "top_k": 1, "hiding": hiding}),
            )
            .await;
        assert_eq!(answer.status, 200);
        let hit = &answer.json["results"][0];
        urls.push(hit["url"].clone());
        snippets.push(hit["snippet"].as_str().unwrap().to_owned());
    }
    assert!(urls.iter().all(|url| url == &urls[0]));
    assert!(
        !snippets[1].contains("48,213"),
        "partial hiding leaks a number: {}",
        snippets[1]
    );
    assert!(
        !snippets[2].contains("48,213"),
        "strict hiding leaks a number: {}",
        snippets[2]
    );
    let default = app
        .post(
            "/v1/worlds/0/search",
            json!({"query": "Port Amsel population", "top_k": 1}),
        )
        .await;
    assert_eq!(
        default.json["results"][0]["snippet"], snippets[1],
        "the default is partial"
    );
}

#[tokio::test]
async fn extract_pages_through_a_long_page() {
    let app = TestApp::new();
    let url = "https://veloria.example/wiki/History_of_the_Veloria_Isles";
    let body: Vec<char> = long_history_body().chars().collect();
    let mut start = 0;
    let mut content = String::new();
    let mut n_windows = 0;
    loop {
        let answer = app
            .post("/v1/worlds/0/extract", json!({"url": url, "start": start}))
            .await;
        assert_eq!(answer.status, 200, "{:#}", answer.json);
        assert_eq!(answer.json["title"], "History of the Veloria Isles");
        assert!(answer.json["date"].is_null());
        let window = answer.json["content"].as_str().unwrap();
        assert!(window.chars().count() <= 8000);
        content.push_str(window);
        n_windows += 1;
        match answer.json["next_start"].as_u64() {
            Some(next) => start = next as usize,
            None => break,
        }
    }
    assert_eq!(n_windows, body.len().div_ceil(8000));
    assert!(content.contains("The history ends here."));
}

#[tokio::test]
async fn extract_answers_the_documented_fields() {
    let app = TestApp::new();
    let answer = app
        .post(
            "/v1/worlds/0/extract",
            json!({"url": "https://veloria.example/news/1999-04-12/harbour-festival", "max_chars": 60}),
        )
        .await;
    assert_eq!(answer.status, 200);
    insta::assert_json_snapshot!(answer.json);
}

#[tokio::test]
async fn worlds_are_separate() {
    let app = TestApp::new();
    let answer = app
        .post("/v1/worlds/3/search", json!({"query": "harbour lantern"}))
        .await;
    assert_eq!(answer.status, 200);
    for hit in answer.json["results"].as_array().unwrap() {
        assert!(
            hit["url"]
                .as_str()
                .unwrap()
                .starts_with("https://dravosk.example/")
        );
    }
    let other = app
        .post(
            "/v1/worlds/3/extract",
            json!({"url": "https://veloria.example/wiki/Port_Amsel"}),
        )
        .await;
    assert_eq!(
        other.status, 404,
        "a page of another world is not reachable"
    );
}

#[tokio::test]
async fn tasks_are_never_served() {
    let app = TestApp::new();
    let answer = app
        .post("/v1/worlds/0/search", json!({"query": "GOLD-ANSWER-Oren"}))
        .await;
    assert_eq!(answer.status, 200);
    assert!(!answer.json["results"].to_string().contains("GOLD-ANSWER"));
}
