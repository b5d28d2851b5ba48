//! The OpenEnv-style episode API that TRL's environment clients drive, on the admin listener
//! because scoring needs the gold answers.
//!
//! | route | what |
//! | --- | --- |
//! | `POST /v1/env/reset` | `{"world"?, "seed"?, "task_id"?, "controls"?}` -> `{"episode_id", "observation", "reward": null, "done": false}` |
//! | `POST /v1/env/step` | `{"episode_id", "action": {"tool", ...}}` -> `{"observation", "reward", "done", "info"}` |
//! | `GET /v1/env/state` | `?episode_id=ID` -> the episode's state; without it, `{"episodes": [..]}` |
//!
//! An episode is a server session (the same controls, seeds and log as `POST /v1/sessions`) plus,
//! when `task_id` is given, a task whose question is the first observation. The world defaults to
//! the task's world. Actions:
//!
//! - `{"tool": "web_search", "queries": [..]}` (or `"query"`, `"top_k"`): result blocks, reward 0;
//! - `{"tool": "web_extractor", "url", "start_index"?}`: the page as Markdown, reward 0;
//! - `{"tool": "answer", "answer": ..}`: ends the episode; the reward is the task's score, as
//!   `POST /admin/score` computes it (0 for an episode without a task).
//!
//! A search or extract that fails under the controls is an observation (`Error CODE (STATUS): ..`,
//! with `info.error`), not an HTTP error, so an agent sees it as it would over MCP. Bad requests
//! are 400 `bad_request`, unknown episodes 404 `episode_not_found`, unknown tasks 404
//! `task_not_found`, and a step after the end 409 `episode_done`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use fabula_score::{Gold, Prediction};
use fabula_server::controls::ControlsRequest;
use fabula_server::sessions::{CreateSessionRequest, create_session};
use fabula_server::tools;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{AdminState, ApiError, world_of_task};

/// The most episodes kept; the oldest is forgotten beyond it.
pub const MAX_EPISODES: usize = 10_000;

/// One episode.
#[derive(Debug, Clone)]
struct Episode {
    id: String,
    world: u32,
    seed: u64,
    task_id: Option<String>,
    session: String,
    n_steps: u64,
    done: bool,
    reward: Option<f64>,
}

impl Episode {
    fn state(&self) -> Value {
        json!({
            "episode_id": self.id,
            "world": self.world,
            "seed": self.seed,
            "task_id": self.task_id,
            "session": self.session,
            "step_count": self.n_steps,
            "done": self.done,
            "reward": self.reward,
        })
    }
}

/// The episodes held by the admin listener.
#[derive(Debug, Default)]
pub(crate) struct Episodes {
    n_created: u64,
    by_id: HashMap<String, Episode>,
    order: VecDeque<String>,
}

/// Locks the episodes, recovering the data if a holder panicked (no critical section here can
/// leave it half-updated).
fn lock(episodes: &Mutex<Episodes>) -> std::sync::MutexGuard<'_, Episodes> {
    episodes
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The episode store shared by the handlers.
pub(crate) type EpisodeStore = Arc<Mutex<Episodes>>;

fn bad_request(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
}

/// Carries a search-server error over with its status and code.
fn from_server(error: fabula_server::ApiError) -> ApiError {
    ApiError::new(error.code.status(), error.code.as_str(), error.message)
}

fn episode_not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "episode_not_found",
        format!("no episode `{id}` (it may have been forgotten)"),
    )
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResetRequest {
    world: Option<u32>,
    #[serde(default)]
    seed: u64,
    task_id: Option<String>,
    #[serde(default)]
    controls: ControlsRequest,
}

/// `POST /v1/env/reset`.
pub(crate) async fn reset(
    State(state): State<AdminState>,
    body: Result<Json<ResetRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(|error| bad_request(error.body_text()))?;
    let task_world = match &request.task_id {
        Some(task_id) => Some(world_of_task(task_id).ok_or_else(|| task_not_found(task_id))?),
        None => None,
    };
    let world = match (request.world, task_world) {
        (Some(world), Some(task_world)) if world != task_world => {
            return Err(bad_request(format!(
                "task `{}` belongs to world {task_world}, not {world}",
                request.task_id.as_deref().unwrap_or_default()
            )));
        }
        (Some(world), _) | (None, Some(world)) => world,
        (None, None) => return Err(bad_request("give `world`, `task_id` or both")),
    };
    let question = match &request.task_id {
        Some(task_id) => {
            if !state.files.contains_key(&world) {
                return Err(task_not_found(task_id));
            }
            let tasks = state.world_tasks(world)?;
            let task = tasks
                .iter()
                .find(|task| &task.id == task_id)
                .ok_or_else(|| task_not_found(task_id))?;
            Some(task.question.clone())
        }
        None => None,
    };
    let created = create_session(
        &state.search,
        CreateSessionRequest {
            world,
            seed: request.seed,
            controls: request.controls,
        },
    )
    .map_err(from_server)?;
    let observation = match question {
        Some(question) => question,
        None => format!(
            "You are searching world {world}. Use web_search and web_extractor, then answer."
        ),
    };
    let mut episodes = lock(&state.episodes);
    let id = format!("e{}-{}", episodes.n_created, created.session);
    episodes.n_created += 1;
    let episode = Episode {
        id: id.clone(),
        world,
        seed: request.seed,
        task_id: request.task_id,
        session: created.session,
        n_steps: 0,
        done: false,
        reward: None,
    };
    episodes.by_id.insert(id.clone(), episode);
    episodes.order.push_back(id.clone());
    while episodes.order.len() > MAX_EPISODES {
        if let Some(oldest) = episodes.order.pop_front() {
            episodes.by_id.remove(&oldest);
        }
    }
    Ok(Json(json!({
        "episode_id": id,
        "observation": observation,
        "reward": null,
        "done": false,
    })))
}

fn task_not_found(task_id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "task_not_found",
        format!("no task `{task_id}`"),
    )
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepRequest {
    episode_id: String,
    action: Value,
}

/// `POST /v1/env/step`.
pub(crate) async fn step(
    State(state): State<AdminState>,
    body: Result<Json<StepRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(|error| bad_request(error.body_text()))?;
    let Value::Object(mut action) = request.action else {
        return Err(bad_request("`action` must be an object with a `tool`"));
    };
    let tool = match action.remove("tool") {
        Some(Value::String(tool)) => tool,
        _ => return Err(bad_request("`action.tool` must be a string")),
    };
    let episode = {
        let episodes = lock(&state.episodes);
        let episode = episodes
            .by_id
            .get(&request.episode_id)
            .ok_or_else(|| episode_not_found(&request.episode_id))?;
        episode.clone()
    };
    if episode.done {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "episode_done",
            format!("episode `{}` has ended; reset to start another", episode.id),
        ));
    }
    let answer = match tool.as_str() {
        tools::WEB_SEARCH | tools::WEB_EXTRACTOR => {
            let called = tools::call_tool(
                &state.search,
                &episode.session,
                &tool,
                Value::Object(action),
            )
            .await;
            match called {
                Ok(output) => json!({
                    "observation": output.text,
                    "reward": 0.0,
                    "done": false,
                    "info": {"result": output.structured},
                }),
                Err(error) if error.code == fabula_server::ErrorCode::BadRequest => {
                    return Err(from_server(error));
                }
                Err(error) => json!({
                    "observation": tools::error_text(&error),
                    "reward": 0.0,
                    "done": false,
                    "info": tools::error_json(&error),
                }),
            }
        }
        "answer" => {
            let Some(answer) = action.remove("answer") else {
                return Err(bad_request("an `answer` action needs `answer`"));
            };
            if let Some(key) = action.keys().next() {
                return Err(bad_request(format!("unknown field `{key}` in the action")));
            }
            score_answer(&state, &episode, &answer)?
        }
        other => {
            return Err(bad_request(format!(
                "unknown tool `{other}`: use `web_search`, `web_extractor` or `answer`"
            )));
        }
    };
    let mut episodes = lock(&state.episodes);
    let Some(stored) = episodes.by_id.get_mut(&episode.id) else {
        return Err(episode_not_found(&episode.id));
    };
    stored.n_steps += 1;
    if answer["done"] == json!(true) {
        stored.done = true;
        stored.reward = answer["reward"].as_f64();
    }
    Ok(Json(answer))
}

/// Scores an answer against the episode's task, as `POST /admin/score` does.
fn score_answer(state: &AdminState, episode: &Episode, answer: &Value) -> Result<Value, ApiError> {
    let Some(task_id) = &episode.task_id else {
        return Ok(json!({
            "observation": "This episode has no task; the answer was not scored.",
            "reward": 0.0,
            "done": true,
            "info": {},
        }));
    };
    let tasks = state.world_tasks(episode.world)?;
    let task = tasks
        .iter()
        .find(|task| &task.id == task_id)
        .ok_or_else(|| task_not_found(task_id))?;
    let gold = Gold::from_json(&task.answer).map_err(|e| ApiError::internal(&e.to_string()))?;
    let prediction = match answer {
        Value::String(text) => Prediction::from_text(text),
        other => Prediction::from_json(other),
    };
    let score = fabula_score::score(&gold, &prediction);
    let reward = score.reward();
    Ok(json!({
        "observation": format!("Answer recorded for task {task_id}; reward {reward:.3}."),
        "reward": reward,
        "done": true,
        "info": {"task_id": task_id, "kind": task.kind, "score": score},
    }))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StateQuery {
    episode_id: Option<String>,
}

/// `GET /v1/env/state`.
pub(crate) async fn get_state(
    State(state): State<AdminState>,
    query: Result<Query<StateQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(query) = query.map_err(|error| bad_request(error.body_text()))?;
    let episodes = lock(&state.episodes);
    match query.episode_id {
        Some(id) => {
            let episode = episodes
                .by_id
                .get(&id)
                .ok_or_else(|| episode_not_found(&id))?;
            Ok(Json(episode.state()))
        }
        None => {
            let list: Vec<Value> = episodes
                .order
                .iter()
                .filter_map(|id| episodes.by_id.get(id))
                .map(Episode::state)
                .collect();
            Ok(Json(json!({ "episodes": list })))
        }
    }
}
