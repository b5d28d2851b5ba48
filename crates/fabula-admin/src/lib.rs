//! The trainers' listener: gold answers and scoring, served apart from the agent-facing API.
//!
//! Gold answers must never reach an agent, so they live on a second listener with its own address
//! and a required token, in a crate the agent-facing server does not depend on. Routes:
//!
//! | route | what |
//! | --- | --- |
//! | `GET /admin/worlds/{id}/tasks` | `{"world", "tasks": [{"id", "kind", "question", "answer", "evidence", "hops"}]}` |
//! | `POST /admin/score` | `{"task_id", "answer"}` -> `{"task_id", "kind", "reward", "score": {...}}` |
//! | `POST /v1/env/reset`, `POST /v1/env/step`, `GET /v1/env/state` | the OpenEnv-style episode API of [`env`] |
//!
//! Every route needs `Authorization: Bearer TOKEN`; errors are `{"error": {"code", "message"}}`
//! with the codes `unauthorized` (401), `world_not_found` and `task_not_found` (404), and
//! `bad_request` (400).

pub mod env;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use fabula_score::{Gold, Prediction};
use rusqlite::{Connection, OpenFlags};
use serde::Deserialize;
use serde_json::{Value, json};

/// Errors of starting the admin listener.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the admin listener needs a non-empty token")]
    MissingToken,
    #[error(transparent)]
    World(#[from] fabula_world::Error),
    #[error("cannot bind the admin listener to {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("cannot open the worlds for the episode API")]
    Search(#[from] fabula_server::Error),
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One task as the admin API returns it.
#[derive(Debug, Clone)]
struct Task {
    id: String,
    kind: String,
    question: String,
    answer: Value,
    evidence: Value,
    hops: i64,
}

/// Shared state: the dataset's world files and the tasks read so far.
#[derive(Clone)]
pub struct AdminState {
    token: Arc<str>,
    files: Arc<BTreeMap<u32, PathBuf>>,
    tasks: Arc<Mutex<BTreeMap<u32, Arc<Vec<Task>>>>>,
    /// The search machinery the episodes' searches and extracts run on.
    search: fabula_server::AppState,
    episodes: env::EpisodeStore,
}

impl AdminState {
    /// Reads the dataset's manifest; tasks are read from a world file on first use.
    pub fn open(worlds: &Path, token: &str) -> Result<AdminState> {
        if token.is_empty() {
            return Err(Error::MissingToken);
        }
        let manifest = fabula_world::dataset::read_manifest(worlds)?;
        let files = manifest
            .worlds
            .iter()
            .map(|w| (w.id, worlds.join(&w.file)))
            .collect();
        let search = fabula_server::AppState::open(&fabula_server::ServeConfig {
            worlds: worlds.to_path_buf(),
            ..fabula_server::ServeConfig::default()
        })?;
        Ok(AdminState {
            token: token.into(),
            files: Arc::new(files),
            tasks: Arc::default(),
            search,
            episodes: env::EpisodeStore::default(),
        })
    }

    fn world_tasks(&self, world: u32) -> Result<Arc<Vec<Task>>, ApiError> {
        if let Some(tasks) = self.tasks.lock().expect("lock").get(&world) {
            return Ok(tasks.clone());
        }
        let path = self
            .files
            .get(&world)
            .ok_or_else(|| ApiError::world_not_found(world))?;
        let tasks = Arc::new(read_tasks(path).map_err(|e| ApiError::internal(&e.to_string()))?);
        self.tasks
            .lock()
            .expect("lock")
            .insert(world, tasks.clone());
        Ok(tasks)
    }
}

fn read_tasks(path: &Path) -> rusqlite::Result<Vec<Task>> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let mut stmt = conn.prepare(
        "SELECT id, kind, question, answer, evidence, hops FROM fabula_tasks ORDER BY id",
    )?;
    let rows = stmt.query_map([], |r| {
        let answer: String = r.get(3)?;
        let evidence: String = r.get(4)?;
        Ok(Task {
            id: r.get(0)?,
            kind: r.get(1)?,
            question: r.get(2)?,
            answer: serde_json::from_str(&answer).unwrap_or(Value::String(answer)),
            evidence: serde_json::from_str(&evidence).unwrap_or(Value::String(evidence)),
            hops: r.get(5)?,
        })
    })?;
    rows.collect()
}

/// An error answer with a stable code.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }
    fn world_not_found(world: u32) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "world_not_found",
            format!("no world {world} in this dataset"),
        )
    }
    fn internal(message: &str) -> ApiError {
        // Internals are logged by the caller's terminal, not returned.
        eprintln!("admin: internal error: {message}");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the world file could not be read",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(json!({"error": {"code": self.code, "message": self.message}})),
        )
            .into_response()
    }
}

/// The admin router.
pub fn admin_app(state: AdminState) -> Router {
    Router::new()
        .route("/admin/worlds/{id}/tasks", get(list_tasks))
        .route("/admin/score", post(score))
        .route("/v1/env/reset", post(env::reset))
        .route("/v1/env/step", post(env::step))
        .route("/v1/env/state", get(env::get_state))
        .fallback(|| async {
            ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such admin route")
        })
        .layer(middleware::from_fn_with_state(state.clone(), require_token))
        .with_state(state)
}

async fn require_token(State(state): State<AdminState>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    if !fabula_server::constant_time_eq(given.as_bytes(), state.token.as_bytes()) {
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing or wrong admin token",
        )
        .into_response();
    }
    next.run(request).await
}

async fn list_tasks(
    State(state): State<AdminState>,
    UrlPath(id): UrlPath<String>,
) -> Result<Json<Value>, ApiError> {
    let world: u32 = id.parse().map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("world id `{id}` is not a number"),
        )
    })?;
    let tasks = state.world_tasks(world)?;
    let list: Vec<Value> = tasks
        .iter()
        .map(|t| json!({"id": t.id, "kind": t.kind, "question": t.question, "answer": t.answer, "evidence": t.evidence, "hops": t.hops}))
        .collect();
    Ok(Json(json!({"world": world, "tasks": list})))
}

#[derive(Deserialize)]
struct ScoreRequest {
    task_id: String,
    answer: Value,
}

/// The world id inside a task id such as `w00042-t017`.
pub fn world_of_task(task_id: &str) -> Option<u32> {
    task_id.strip_prefix('w')?.split('-').next()?.parse().ok()
}

async fn score(
    State(state): State<AdminState>,
    body: Result<Json<ScoreRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) =
        body.map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_request", e.body_text()))?;
    let not_found = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "task_not_found",
            format!("no task `{}`", request.task_id),
        )
    };
    let world = world_of_task(&request.task_id).ok_or_else(not_found)?;
    if !state.files.contains_key(&world) {
        return Err(not_found());
    }
    let tasks = state.world_tasks(world)?;
    let task = tasks
        .iter()
        .find(|t| t.id == request.task_id)
        .ok_or_else(not_found)?;
    let gold = Gold::from_json(&task.answer).map_err(|e| ApiError::internal(&e.to_string()))?;
    let prediction = match &request.answer {
        Value::String(text) => Prediction::from_text(text),
        other => Prediction::from_json(other),
    };
    let score = fabula_score::score(&gold, &prediction);
    Ok(Json(
        json!({"task_id": task.id, "kind": task.kind, "reward": score.reward(), "score": score}),
    ))
}

/// The admin listener bound to its socket.
pub struct BoundAdmin {
    listener: tokio::net::TcpListener,
    router: Router,
}

impl BoundAdmin {
    /// The address actually bound.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until `shutdown` completes.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<()> {
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(shutdown)
            .await?;
        Ok(())
    }
}

/// Opens the dataset and binds the admin listener.
pub async fn bind(worlds: &Path, addr: SocketAddr, token: &str) -> Result<BoundAdmin> {
    let state = AdminState::open(worlds, token)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| Error::Bind { addr, source })?;
    Ok(BoundAdmin {
        listener,
        router: admin_app(state),
    })
}
