//! The renderer choice: `rendered_by` on native and session answers, the world model's fallback
//! to templates with a tiny random checkpoint, and `GET /metrics`.

use axum::body::Body;
use axum::http::Request;
use fabula_server::lwm::{LwmOptions, RenderService, results_from_text, search_template};
use fabula_server::wire::HitJson;
use fabula_server::{AppState, ServeConfig};
use http_body_util::BodyExt;
use serde_json::json;
use tempfile::TempDir;
use tower::ServiceExt;

use crate::support::{TestApp, fixture_worlds};

/// Fetches a text route (the JSON helper would reject Prometheus text).
async fn get_text(app: &TestApp, path: &str) -> (u16, String) {
    let request = Request::builder().uri(path).body(Body::empty()).unwrap();
    let response = app.router.clone().oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(bytes.to_vec()).unwrap())
}

/// A tiny random checkpoint whose tokenizer learnt the fixture worlds' pages.
fn tiny_model() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text: Vec<String> = fixture_worlds()
        .into_iter()
        .flat_map(|world| world.pages.into_iter().map(|page| page.body))
        .collect();
    fabula_lwm::write_tiny(dir.path(), 7, &text).unwrap();
    dir
}

fn lwm_app(model: &TempDir) -> TestApp {
    TestApp::with_config(|config| {
        config.lwm = Some(LwmOptions {
            max_new_tokens: Some(8),
            ..LwmOptions::new(model.path())
        });
    })
}

/// The value of one sample line of a Prometheus text, e.g. `name{labels}`.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.parse().ok())
}

/// Searches, extracts and does both in a session; returns the four answers' `rendered_by`.
async fn exercise(app: &TestApp) -> Vec<serde_json::Value> {
    let search = app
        .post(
            "/v1/worlds/0/search",
            json!({"query": "Port Amsel founded"}),
        )
        .await;
    assert_eq!(search.status, 200, "{:#}", search.json);
    let url = search.json["results"][0]["url"]
        .as_str()
        .unwrap()
        .to_owned();
    let extract = app.post("/v1/worlds/0/extract", json!({"url": url})).await;
    assert_eq!(extract.status, 200, "{:#}", extract.json);
    let session = app
        .post("/v1/sessions", json!({"world": 0, "seed": 1}))
        .await;
    let sid = session.json["session"].as_str().unwrap().to_owned();
    let batch = app
        .post(
            &format!("/v1/sessions/{sid}/search"),
            json!({"queries": ["Port Amsel", "harbour festival"]}),
        )
        .await;
    assert_eq!(batch.status, 200, "{:#}", batch.json);
    let session_extract = app
        .post(&format!("/v1/sessions/{sid}/extract"), json!({"url": url}))
        .await;
    assert_eq!(session_extract.status, 200, "{:#}", session_extract.json);
    vec![
        search.json["rendered_by"].clone(),
        extract.json["rendered_by"].clone(),
        batch.json["responses"][0]["rendered_by"].clone(),
        batch.json["responses"][1]["rendered_by"].clone(),
        session_extract.json["rendered_by"].clone(),
    ]
}

#[tokio::test]
async fn template_renderer_marks_every_answer_and_counts_it() {
    let app = TestApp::new();
    assert_eq!(exercise(&app).await, vec![json!("template"); 5]);
    let (status, text) = get_text(&app, "/metrics").await;
    assert_eq!(status, 200);
    assert_eq!(
        sample(&text, "fabula_renderer_info{renderer=\"template\"}"),
        Some(1.0)
    );
    assert_eq!(
        sample(
            &text,
            "fabula_observations_total{endpoint=\"search\",rendered_by=\"template\"}"
        ),
        Some(3.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            "fabula_observations_total{endpoint=\"extract\",rendered_by=\"template\"}"
        ),
        Some(2.0),
        "{text}"
    );
    assert!(!text.contains("fabula_lwm_"), "{text}");
}

#[tokio::test]
async fn a_random_world_model_falls_back_to_templates() {
    let model = tiny_model();
    let lwm = lwm_app(&model);
    let template = TestApp::new();
    assert_eq!(exercise(&lwm).await, vec![json!("template"); 5]);
    // Fallbacks answer exactly what the template renderer answers.
    let body = json!({"query": "harbour lantern guild", "hiding": "strict"});
    let a = lwm.post("/v1/worlds/0/search", body.clone()).await;
    let b = template.post("/v1/worlds/0/search", body).await;
    assert_eq!(a.json, b.json);

    let (status, text) = get_text(&lwm, "/metrics").await;
    assert_eq!(status, 200);
    assert_eq!(
        sample(&text, "fabula_renderer_info{renderer=\"lwm\"}"),
        Some(1.0)
    );
    let attempted = sample(&text, "fabula_lwm_renders_attempted_total").unwrap();
    assert!(attempted >= 5.0, "{text}");
    assert_eq!(
        sample(&text, "fabula_lwm_renders_accepted_total"),
        Some(0.0)
    );
    let fallbacks: f64 = text
        .lines()
        .filter(|line| line.starts_with("fabula_lwm_fallbacks_total{"))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert_eq!(fallbacks, attempted, "{text}");
    assert_eq!(
        sample(
            &text,
            "fabula_observations_total{endpoint=\"search\",rendered_by=\"lwm\"}"
        ),
        Some(0.0)
    );
}

/// The sum of a counter family's samples.
fn family_total(text: &str, family: &str) -> f64 {
    text.lines()
        .filter(|line| line.starts_with(&format!("{family}{{")))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[tokio::test]
async fn a_remote_engine_renders_through_the_same_fallback_and_outlives_its_engine() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    // A stub OpenAI-compatible engine whose every answer is text in no tool's format.
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let engine = axum::Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move |axum::Json(body): axum::Json<serde_json::Value>| {
            let counter = Arc::clone(&counter);
            async move {
                assert_eq!(body["model"], "agentworld");
                assert_eq!(body["messages"][0]["role"], "system");
                counter.fetch_add(1, Ordering::SeqCst);
                axum::Json(json!({
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": "I cannot browse."}}],
                    "usage": {"completion_tokens": 4}
                }))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let running = tokio::spawn(async move { axum::serve(listener, engine).await.unwrap() });
    let app = TestApp::with_config(|config| {
        config.lwm = Some(LwmOptions::remote(fabula_lwm::RemoteOptions {
            url: format!("http://{addr}"),
            model: "agentworld".to_owned(),
        }));
    });
    assert_eq!(exercise(&app).await, vec![json!("template"); 5]);
    assert!(asked.load(Ordering::SeqCst) >= 3, "{asked:?}");
    let (_, text) = get_text(&app, "/metrics").await;
    let attempted = sample(&text, "fabula_lwm_renders_attempted_total").unwrap();
    assert_eq!(
        family_total(&text, "fabula_lwm_fallbacks_total"),
        attempted,
        "{text}"
    );
    assert_eq!(
        sample(&text, "fabula_lwm_fallbacks_total{reason=\"model_error\"}").unwrap_or(0.0),
        0.0,
        "{text}"
    );

    // The engine stops: every answer still comes, from the templates, counted as an engine that
    // is unavailable.
    running.abort();
    let _ = running.await;
    let search = app
        .post(
            "/v1/worlds/0/search",
            json!({"query": "lantern makers guild"}),
        )
        .await;
    assert_eq!(search.status, 200, "{:#}", search.json);
    assert_eq!(search.json["rendered_by"], "template");
    let (_, text) = get_text(&app, "/metrics").await;
    assert!(
        sample(
            &text,
            "fabula_lwm_fallbacks_total{reason=\"engine_unavailable\"}"
        )
        .unwrap_or(0.0)
            >= 1.0,
        "{text}"
    );
    // Every call of the engine was timed, the failed one included.
    assert!(
        sample(&text, "fabula_lwm_render_seconds_count").unwrap_or(0.0) >= 4.0,
        "{text}"
    );
}

/// A world model whose every generation panics: a bug inside a render.
struct Panicking;

impl fabula_lwm::Generator for Panicking {
    fn generate(
        &mut self,
        _prompt: &str,
        _options: &fabula_lwm::GenerateOptions,
    ) -> fabula_lwm::Result<fabula_lwm::Generation> {
        panic!("a bug in the world model")
    }
}

/// The fixture worlds served with a world model that panics on every render.
fn panicking_app() -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    crate::support::write_corpus(dir.path(), &fixture_worlds());
    let config = ServeConfig {
        worlds: dir.path().to_owned(),
        ..ServeConfig::default()
    };
    let corpus = fabula_search::Corpus::open_with(
        dir.path(),
        fabula_search::CorpusOptions {
            max_open_worlds: 4,
            write_indexes: false,
        },
    )
    .unwrap();
    let renderer = fabula_lwm::Renderer::new(Some(Box::new(Panicking)), Default::default());
    let service = RenderService::with_renderer(renderer, 8);
    TestApp {
        router: fabula_server::app(AppState::with_renderer(corpus, &config, service)),
        dir,
    }
}

#[tokio::test]
async fn a_render_that_panics_answers_with_the_templates() {
    let lwm = panicking_app();
    let template = TestApp::new();
    assert_eq!(exercise(&lwm).await, vec![json!("template"); 5]);
    // Each answer is the template renderer's, in its own shape (one object, or a batch).
    let searches = [
        json!({"query": "harbour lantern guild"}),
        json!({"queries": ["Port Amsel", "harbour festival"]}),
    ];
    for body in searches {
        let a = lwm.post("/v1/worlds/0/search", body.clone()).await;
        let b = template.post("/v1/worlds/0/search", body).await;
        assert_eq!(a.status, 200, "{:#}", a.json);
        assert_eq!(a.json, b.json);
    }
    let url = json!({"url": "https://veloria.example/wiki/Oren_Talvik"});
    let a = lwm.post("/v1/worlds/0/extract", url.clone()).await;
    let b = template.post("/v1/worlds/0/extract", url).await;
    assert_eq!(a.status, 200, "{:#}", a.json);
    assert_eq!(a.json, b.json);
}

/// The error of opening the state with this config, with its causes, as the CLI prints it.
fn open_error(config: &ServeConfig) -> String {
    let error = match AppState::open(config) {
        Ok(_) => panic!("the state opened"),
        Err(error) => error,
    };
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[test]
fn a_missing_model_folder_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    crate::support::write_corpus(dir.path(), &fixture_worlds());
    let config = ServeConfig {
        worlds: dir.path().to_owned(),
        lwm: Some(LwmOptions::new(dir.path().join("no-such-model"))),
        ..ServeConfig::default()
    };
    let error = open_error(&config);
    assert!(error.contains("no-such-model"), "{error}");
    assert!(!error.contains('\n'), "{error}");
    // A folder without a checkpoint names what is missing.
    let config = ServeConfig {
        lwm: Some(LwmOptions::new(dir.path())),
        ..config
    };
    let error = open_error(&config);
    assert!(
        error.starts_with("cannot load the world model: checkpoint "),
        "{error}"
    );
    assert!(error.contains("missing"), "{error}");
}

#[test]
fn search_templates_parse_back_into_the_same_results() {
    let results = vec![
        HitJson {
            rank: 1,
            url: "https://veloria.example/wiki/Port_Amsel".into(),
            title: "Port Amsel".into(),
            snippet: "Port Amsel is a harbour city on …".into(),
            date: None,
            score: 0.0,
        },
        HitJson {
            rank: 2,
            url: "https://veloria.example/news/1999-04-12/harbour-festival".into(),
            title: "Harbour festival opens in Port Amsel".into(),
            snippet: "The harbour festival opened.".into(),
            date: Some("1999-04-12".into()),
            score: 0.0,
        },
    ];
    let text = search_template(&results);
    assert!(text.starts_with("[1] https://veloria.example/wiki/Port_Amsel\nTitle: Port Amsel\n"));
    assert!(text.contains("Date: N/A\n"));
    assert_eq!(results_from_text(&text), Some(results));
}
