//! OpenEnv's HTTP protocol on the admin listener: reset without an episode id, step with
//! `{"action"}`, state, health, metadata and schema, in openenv's shapes, driven in process.

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use fabula_admin::admin_app;

use super::{TOKEN, admin_state, fixture};

/// One admin app kept across calls, so episodes outlive a request.
pub(crate) struct Env {
    app: Router,
    _dir: tempfile::TempDir,
}

impl Env {
    pub(crate) fn new() -> Env {
        let dir = fixture();
        let app = admin_app(admin_state(dir.path(), TOKEN).unwrap());
        Env { app, _dir: dir }
    }

    async fn send(
        &self,
        method: &str,
        uri: &str,
        auth: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = Request::builder().method(method).uri(uri);
        if let Some(auth) = auth {
            request = request.header("authorization", auth);
        }
        let body = match body {
            Some(body) => {
                request = request.header("content-type", "application/json");
                Body::from(body.to_string())
            }
            None => Body::empty(),
        };
        let response = self
            .app
            .clone()
            .oneshot(request.body(body).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    pub(crate) async fn call(
        &self,
        method: &str,
        uri: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        self.send(method, uri, Some(&format!("Bearer {TOKEN}")), body)
            .await
    }
}

/// Checks that an answer has exactly openenv's `ResetResponse`/`StepResponse` fields.
fn assert_step_shape(answer: &Value) {
    let keys: Vec<&str> = answer
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["done", "observation", "reward"], "{answer}");
    assert!(answer["observation"]["text"].is_string(), "{answer}");
    assert!(answer["observation"]["info"].is_object(), "{answer}");
}

#[tokio::test]
async fn an_episode_runs_without_naming_it() {
    let env = Env::new();
    let (status, reset) = env.call("POST", "/reset", Some(json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{reset}");
    assert_step_shape(&reset);
    assert_eq!(reset["done"], false);
    assert_eq!(reset["reward"], Value::Null);
    let task_id = reset["observation"]["info"]["task_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(task_id.starts_with("w00042-t00"), "{task_id}");
    assert_eq!(reset["observation"]["info"]["world"], 42);

    let (status, state) = env.call("GET", "/state", None).await;
    assert_eq!(status, StatusCode::OK, "{state}");
    assert_eq!(
        state["episode_id"],
        reset["observation"]["info"]["episode_id"]
    );
    assert_eq!(state["step_count"], 0);
    assert_eq!(state["task_id"], task_id.as_str());

    let search = json!({"action": {"tool": "web_search", "query": "Kelvar", "metadata": {}}, "timeout_s": 15});
    let (status, step) = env.call("POST", "/step", Some(search)).await;
    assert_eq!(status, StatusCode::OK, "{step}");
    assert_step_shape(&step);
    assert_eq!(
        (step["done"].clone(), step["reward"].clone()),
        (json!(false), json!(0.0))
    );

    // Notes in the episode's dict_memory, then read back: reward 0, the seed's wording.
    let note =
        json!({"action": {"tool": "dict_memory", "operation": "add", "dict": {"lead": "Kelvar"}}});
    let (status, step) = env.call("POST", "/step", Some(note)).await;
    assert_eq!(status, StatusCode::OK, "{step}");
    assert_step_shape(&step);
    assert_eq!(
        step["observation"]["text"],
        "Successfully added items of ['lead'] to memory."
    );
    let read = json!({"action": {"tool": "dict_memory", "operation": "retrieve", "key_list": ["lead", "x"]}});
    let (_, step) = env.call("POST", "/step", Some(read)).await;
    assert_eq!(
        step["observation"]["text"],
        "{\"lead\":\"Kelvar\"}\nKey not found: ['x']"
    );
    assert_eq!(step["reward"], 0.0);

    let answer = if task_id == "w00042-t000" {
        json!("1841")
    } else {
        json!("no idea")
    };
    let (status, step) = env
        .call(
            "POST",
            "/step",
            Some(json!({"action": {"tool": "answer", "answer": answer}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{step}");
    assert_step_shape(&step);
    assert_eq!(step["done"], true);
    let expected = if task_id == "w00042-t000" { 1.0 } else { 0.0 };
    assert_eq!(step["reward"], expected, "{step}");
    assert_eq!(step["observation"]["info"]["task_id"], task_id.as_str());

    let (_, state) = env.call("GET", "/state", None).await;
    assert_eq!(
        (state["step_count"].clone(), state["done"].clone()),
        (json!(4), json!(true))
    );
    let (status, again) = env
        .call(
            "POST",
            "/step",
            Some(json!({"action": {"tool": "web_search", "query": "x"}})),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{again}");
    assert_eq!(again["error"]["code"], "episode_done");
}

#[tokio::test]
async fn resets_pick_tasks_by_seed_or_by_name() {
    let env = Env::new();
    let picked = |answer: &Value| answer["observation"]["info"]["task_id"].clone();
    let (_, first) = env.call("POST", "/reset", Some(json!({"seed": 5}))).await;
    let (_, again) = env
        .call(
            "POST",
            "/reset",
            Some(json!({"seed": 5, "episode_id": "mine"})),
        )
        .await;
    assert_eq!(picked(&first), picked(&again));
    let seeds: std::collections::BTreeSet<String> = {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..16 {
            let (_, answer) = env
                .call("POST", "/reset", Some(json!({"seed": seed})))
                .await;
            seen.insert(picked(&answer).as_str().unwrap().to_owned());
        }
        seen
    };
    assert_eq!(seeds.len(), 2, "both tasks are drawn: {seeds:?}");

    let (status, named) = env
        .call(
            "POST",
            "/reset",
            Some(json!({"task_id": "w00042-t001", "controls": {"page_size": 2}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{named}");
    assert_eq!(named["observation"]["text"], "List the guilds of Kelvar.");
    // An empty body, as openenv-core 0.1's client may send, is an empty reset.
    let (status, _) = env
        .send("POST", "/reset", Some(&format!("Bearer {TOKEN}")), None)
        .await;
    assert_eq!(status, StatusCode::OK);

    for (body, status, code) in [
        (
            json!({"task_id": "w00042-t999"}),
            StatusCode::NOT_FOUND,
            "task_not_found",
        ),
        (
            json!({"world": 7}),
            StatusCode::NOT_FOUND,
            "world_not_found",
        ),
        (json!({"seed": -1}), StatusCode::BAD_REQUEST, "bad_request"),
        (
            json!({"controls": {"error_rate": 2}}),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
    ] {
        let (got, answer) = env.call("POST", "/reset", Some(body.clone())).await;
        assert_eq!(
            (got, answer["error"]["code"].as_str()),
            (status, Some(code)),
            "{body}: {answer}"
        );
    }
}

#[tokio::test]
async fn steps_name_their_episode_or_need_a_reset() {
    let env = Env::new();
    let step = json!({"action": {"tool": "web_search", "query": "Kelvar"}});
    // A schema-valid step before any reset is a state conflict, as a step after the end is.
    let (status, answer) = env.call("POST", "/step", Some(step.clone())).await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("episode_not_started")),
        "{answer}"
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("POST /reset first")
    );
    // Naming an episode the listener does not hold is still 404, reset or not.
    let (status, answer) = env
        .call(
            "POST",
            "/step",
            Some(json!({"action": {"tool": "web_search", "query": "Kelvar"}, "episode_id": "e9"})),
        )
        .await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("episode_not_found")),
        "{answer}"
    );
    let (_, state) = env.call("GET", "/state", None).await;
    assert_eq!(state, json!({"episode_id": null, "step_count": 0}));

    let (_, first) = env.call("POST", "/reset", Some(json!({"seed": 1}))).await;
    let first_id = first["observation"]["info"]["episode_id"]
        .as_str()
        .unwrap()
        .to_owned();
    env.call("POST", "/reset", Some(json!({"seed": 2}))).await;
    let named =
        json!({"action": {"tool": "web_search", "query": "Kelvar"}, "episode_id": first_id});
    let (status, _) = env.call("POST", "/step", Some(named)).await;
    assert_eq!(status, StatusCode::OK);
    let (_, state) = env
        .call("GET", &format!("/state?episode_id={first_id}"), None)
        .await;
    assert_eq!(state["step_count"], 1);
    let (_, latest) = env.call("GET", "/state", None).await;
    assert_eq!(latest["step_count"], 0);

    let (status, answer) = env
        .call("POST", "/step", Some(json!({"action": {"tool": "browse"}})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown tool `browse`")
    );
    let (status, _) = env
        .call("POST", "/step", Some(json!({"episode_id": "e1"})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a step needs an action");
}

#[tokio::test]
async fn health_is_open_and_metadata_and_schema_describe_the_environment() {
    let env = Env::new();
    let (status, health) = env.send("GET", "/health", None, None).await;
    assert_eq!(
        (status, health),
        (StatusCode::OK, json!({"status": "healthy"}))
    );
    let (status, _) = env.send("GET", "/metadata", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let (status, metadata) = env.call("GET", "/metadata", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(metadata["name"], "fabula");
    assert_eq!(metadata["version"], env!("CARGO_PKG_VERSION"));
    let (status, schema) = env.call("GET", "/schema", None).await;
    assert_eq!(status, StatusCode::OK);
    let keys: Vec<&str> = schema
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["action", "observation", "state"]);
    assert_eq!(schema["action"]["oneOf"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn the_token_may_come_as_basic_auth() {
    let env = Env::new();
    // base64("fabula:s3cret") and base64("fabula:wrong")
    let (status, _) = env
        .send("GET", "/state", Some("Basic ZmFidWxhOnMzY3JldA=="), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = env
        .send("GET", "/state", Some("Basic ZmFidWxhOndyb25n"), None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
}

#[tokio::test]
async fn a_websocket_upgrade_needs_the_token() {
    let env = Env::new();
    let upgrade = |auth: Option<&str>| {
        let mut request = Request::builder()
            .method("GET")
            .uri("/ws")
            .header("connection", "upgrade")
            .header("upgrade", "websocket")
            .header("sec-websocket-version", "13")
            .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==");
        if let Some(auth) = auth {
            request = request.header("authorization", auth);
        }
        request.body(Body::empty()).unwrap()
    };
    let refused = env.app.clone().oneshot(upgrade(None)).await.unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
}

/// The number of server sessions, from the agent listener's `/health`.
async fn n_sessions(search: &fabula_server::AppState) -> u64 {
    let request = Request::get("/health").body(Body::empty()).unwrap();
    let response = fabula_server::app(search.clone())
        .oneshot(request)
        .await
        .unwrap();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let health: Value = serde_json::from_slice(&bytes).unwrap();
    health["sessions"].as_u64().unwrap()
}

/// An episode over openenv's WebSocket protocol on a real socket, as openenv-core's
/// `EnvClient` speaks it; the connection's end ends its session.
#[tokio::test]
async fn an_episode_runs_over_the_websocket() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;

    let dir = fixture();
    let config = fabula_server::ServeConfig {
        worlds: dir.path().to_owned(),
        ..fabula_server::ServeConfig::default()
    };
    let search = fabula_server::AppState::open(&config).unwrap();
    let admin = fabula_admin::bind(search.clone(), "127.0.0.1:0".parse().unwrap(), TOKEN)
        .await
        .unwrap();
    let addr = admin.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(admin.run_until(async move {
        let _ = stopped.await;
    }));

    let connect = |auth: &'static str| {
        let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
        request
            .headers_mut()
            .insert("authorization", auth.parse().unwrap());
        tokio_tungstenite::connect_async(request)
    };
    // base64("fabula:wrong"), then base64("fabula:s3cret")
    assert!(connect("Basic ZmFidWxhOndyb25n").await.is_err());
    let (mut socket, _) = connect("Basic ZmFidWxhOnMzY3JldA==").await.unwrap();
    let mut exchange = async |message: &str| -> Value {
        socket.send(Message::text(message)).await.unwrap();
        let Some(Ok(Message::Text(answer))) = socket.next().await else {
            panic!("no answer to {message}");
        };
        serde_json::from_str(&answer).unwrap()
    };

    let before =
        exchange(r#"{"type": "step", "data": {"tool": "web_search", "query": "x"}}"#).await;
    assert_eq!(before["type"], "error", "{before}");
    assert_eq!(
        (
            before["data"]["code"].clone(),
            before["data"]["error"].clone()
        ),
        (json!("EXECUTION_ERROR"), json!("episode_not_started"))
    );
    let reset = exchange(r#"{"type": "reset", "data": {"task_id": "w00042-t000"}}"#).await;
    assert_eq!(reset["type"], "observation", "{reset}");
    assert_eq!(
        reset["data"]["observation"]["text"],
        "When was Kelvar founded?"
    );
    assert_eq!(n_sessions(&search).await, 1);
    let search_step =
        exchange(r#"{"type": "step", "data": {"tool": "web_search", "query": "Kelvar"}}"#).await;
    assert_eq!(search_step["data"]["done"], false, "{search_step}");
    let wrong = exchange(r#"{"type": "step", "data": {"tool": "browse"}}"#).await;
    assert_eq!(
        (
            wrong["data"]["code"].clone(),
            wrong["data"]["error"].clone()
        ),
        (json!("VALIDATION_ERROR"), json!("bad_request"))
    );
    assert_eq!(exchange("{oops").await["data"]["code"], "INVALID_JSON");
    assert_eq!(
        exchange(r#"{"type": "render"}"#).await["data"]["code"],
        "UNKNOWN_TYPE"
    );
    let answer =
        exchange(r#"{"type": "step", "data": {"tool": "answer", "answer": "1,841"}}"#).await;
    assert_eq!(answer["data"]["reward"], 1.0, "{answer}");
    assert_eq!(answer["data"]["done"], true);
    let state = exchange(r#"{"type": "state"}"#).await;
    assert_eq!(state["type"], "state");
    assert_eq!(
        (
            state["data"]["step_count"].clone(),
            state["data"]["done"].clone()
        ),
        (json!(2), json!(true))
    );

    // A second reset on the connection replaces the episode and its session.
    exchange(r#"{"type": "reset", "data": {"seed": 3}}"#).await;
    assert_eq!(n_sessions(&search).await, 1);
    socket
        .send(Message::text(r#"{"type": "close"}"#))
        .await
        .unwrap();
    let mut n_left = n_sessions(&search).await;
    for _ in 0..100 {
        if n_left == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        n_left = n_sessions(&search).await;
    }
    assert_eq!(n_left, 0, "the connection's end closes its session");
    stop.send(()).unwrap();
    served.await.unwrap().unwrap();
}
