//! OpenEnv's own protocol over the episode API, so openenv-core's clients (and TRL's OpenEnv
//! integration) drive fabula unchanged.
//!
//! openenv-core 0.2 and later (`EnvClient`, `GenericEnvClient`, `.sync()`) hold one WebSocket per
//! environment session at `/ws`; openenv-core 0.1's `HTTPEnvClient` posts to `/reset` and
//! `/step` and reads `/state` without naming an episode. Both are served here, on the admin
//! listener, since the reward needs the gold answers:
//!
//! | route | what |
//! | --- | --- |
//! | `POST /reset` | `{"seed"?, "task_id"?, "world"?, "controls"?}` -> `{"observation", "reward": null, "done": false}` |
//! | `POST /step` | `{"action": {"tool", ...}, "episode_id"?}` -> `{"observation", "reward", "done"}` |
//! | `GET /state` | `?episode_id=ID` -> `{"episode_id", "step_count", "world", "seed", "task_id", "session", "done", "reward"}` |
//! | `GET /ws` | the WebSocket: `{"type": "reset"/"step"/"state"/"close", "data"}` in, `{"type": "observation"/"state"/"error", "data"}` out |
//! | `GET /health`, `/metadata`, `/schema` | `{"status": "healthy"}`; the name and version; the action, observation and state schemas |
//!
//! A reset always picks a task: the one named by `task_id`, else one drawn from `seed` (in
//! `world` when given, else in any world). Without a seed, resets count up from 0, so a run's
//! tasks are reproducible. The seed is also the session's control seed. The observation is an
//! object `{"text", "info"}`: the question after a reset, the tool's text after a step, with
//! `info` as the native episode API's (`task_id` and `world` after a reset). Actions are the
//! native episode API's (`web_search`, `web_extractor`, `dict_memory`, `answer`); an `answer` ends the episode
//! with the task's score as reward. Unknown reset fields (such as openenv's `episode_id`, since
//! the server names its episodes) are ignored, like openenv's servers do; `metadata` in an action
//! (what a typed openenv `Action` dumps) is dropped.
//!
//! Over HTTP, `/step` and `/state` without an `episode_id` use the listener's latest reset, as
//! openenv-core 0.1's one-environment-per-server model expects; concurrent HTTP clients name
//! theirs (`observation.info.episode_id`). A step naming no episode before any reset is a state
//! conflict, 409 `episode_not_started` (as a step after the end is 409 `episode_done`). Over the
//! WebSocket each connection owns one episode at a time: a reset ends the previous one, and
//! closing the connection ends it and its session.
//! Errors on the WebSocket are openenv's `{"type": "error", "data": {"message", "code"}}` (codes
//! `INVALID_JSON`, `UNKNOWN_TYPE`, `VALIDATION_ERROR`, `EXECUTION_ERROR`, `CAPACITY_REACHED`) with
//! fabula's own code as `data.error` (a step before the connection's first reset:
//! `EXECUTION_ERROR`, `episode_not_started`); the connection stays open.
//!
//! Caps: at most [`MAX_CONNECTIONS`] WebSockets at once (429 `too_many_sessions` before the
//! upgrade beyond it), each closed after [`IDLE_TIMEOUT`] without a message, messages of at most
//! 64 KiB; every episode is a server session under the server's session cap.
//!
//! openenv-core's WebSocket client sends no headers of its own: give the admin token as the
//! password of the URL (`http://fabula:TOKEN@host:port`), which it sends as HTTP Basic auth.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use fabula_server::ErrorCode;
use fabula_server::controls::ControlsRequest;
use fabula_server::tools;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::OwnedSemaphorePermit;
use utoipa::ToSchema;

use crate::api_error::{self, ApiError, episode_not_found};
use crate::env::{self, ResetRequest, start_episode, take_step};
use crate::state::AdminState;
use crate::wire::{
    Health, Metadata, NoEpisode, Observation, ObservationInfo, OpenEnvAnswer, OpenEnvState,
    ResetInfo, WsError, WsMessage,
};

pub use crate::episodes::MAX_CONNECTIONS;

/// The `Retry-After` of a WebSocket refused for want of a connection slot, in seconds.
const RETRY_AFTER_S: u64 = 1;
/// How long a WebSocket may stay silent before the server closes it.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// The largest WebSocket message accepted, as the REST bodies.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;

/// An OpenEnv reset: openenv's `seed` (and `episode_id`, ignored) plus fabula's `task_id`,
/// `world` and `controls`. Other fields are ignored; so is a missing body.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub(crate) struct OpenEnvReset {
    /// Draws the task and seeds the session's controls; without it, resets count up from 0.
    #[schema(format = "uint64", maximum = 18446744073709551615_u64)]
    seed: Option<u64>,
    /// The task to run; without it, one drawn from `seed`.
    task_id: Option<String>,
    /// The world to draw the task from; without it, any world.
    #[schema(format = "uint32", maximum = 4294967295_u64)]
    world: Option<u32>,
    /// The session's controls, as `POST /v1/sessions` takes them.
    #[serde(default)]
    controls: ControlsRequest,
}

/// An OpenEnv step over HTTP; openenv's `timeout_s` and `request_id` are ignored.
#[derive(Debug, Deserialize, ToSchema)]
pub(crate) struct OpenEnvStep {
    /// `{"tool": "web_search" | "web_extractor" | "dict_memory" | "answer", ..}` with the
    /// tool's arguments.
    #[schema(value_type = Object)]
    action: Value,
    /// The episode; without it, the listener's latest reset.
    episode_id: Option<String>,
}

/// `?episode_id=` of `GET /state`.
#[derive(Debug, Deserialize)]
pub(crate) struct StateQuery {
    episode_id: Option<String>,
}

/// A reset or step answer in OpenEnv's shape.
fn step_result(
    text: String,
    info: ObservationInfo,
    reward: Option<f64>,
    done: bool,
) -> OpenEnvAnswer {
    OpenEnvAnswer {
        done,
        observation: Observation { info, text },
        reward,
    }
}

/// Opens an episode on a task picked by the request; returns its id and OpenEnv answer.
fn reset_episode(
    state: &AdminState,
    request: OpenEnvReset,
) -> Result<(String, OpenEnvAnswer), ApiError> {
    let seed = request
        .seed
        .unwrap_or_else(|| state.openenv.n_resets.fetch_add(1, Ordering::Relaxed));
    let task_id = match request.task_id {
        Some(task_id) => task_id,
        None => pick_task(state, request.world, seed)?,
    };
    let started = start_episode(
        state,
        ResetRequest {
            world: request.world,
            seed,
            task_id: Some(task_id.clone()),
            controls: request.controls,
        },
    )?;
    let info = ObservationInfo::Reset(ResetInfo {
        episode_id: started.id.clone(),
        seed,
        task_id,
        world: started.world,
    });
    let answer = step_result(started.observation, info, None, false);
    Ok((started.id, answer))
}

/// The task a seed draws: a world of the dataset (or the one given), then one of its tasks.
/// Worlds without tasks are passed over.
fn pick_task(state: &AdminState, world: Option<u32>, seed: u64) -> Result<String, ApiError> {
    let ids: Vec<u32> = match world {
        Some(world) if state.has_world(world) => vec![world],
        Some(world) => return Err(api_error::world_not_found(world)),
        None => state.search.worlds().iter().map(|info| info.id).collect(),
    };
    let first = mix(seed) as usize % ids.len().max(1);
    for offset in 0..ids.len() {
        let world = ids[(first + offset) % ids.len()];
        let tasks = state.world_tasks(world)?;
        if !tasks.is_empty() {
            let task_idx = mix(seed ^ 0x5eed_7a5c) as usize % tasks.len();
            return Ok(tasks[task_idx].id.clone());
        }
    }
    Err(ApiError::bad_request(match world {
        Some(world) => format!("world {world} has no tasks"),
        None => "the dataset has no tasks".to_owned(),
    }))
}

/// SplitMix64: spreads consecutive seeds over the worlds and tasks.
fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Runs an action and answers in OpenEnv's shape.
async fn step_episode(
    state: &AdminState,
    episode_id: &str,
    action: Value,
) -> Result<OpenEnvAnswer, ApiError> {
    let action = match action {
        Value::Object(mut fields) => {
            fields.remove("metadata");
            Value::Object(fields)
        }
        other => other,
    };
    let answer = take_step(state, episode_id, action).await?;
    Ok(step_result(
        answer.observation,
        ObservationInfo::Step(answer.info),
        Some(answer.reward),
        answer.done,
    ))
}

/// The episode's state, or openenv's empty state when there is none.
fn episode_state(state: &AdminState, episode_id: Option<&str>) -> Result<OpenEnvState, ApiError> {
    let Some(id) = episode_id else {
        return Ok(OpenEnvState::None(NoEpisode {
            episode_id: None,
            step_count: 0,
        }));
    };
    let episodes = state.episodes.lock();
    let episode = episodes
        .by_id
        .get(id)
        .ok_or_else(|| episode_not_found(id))?;
    Ok(OpenEnvState::Episode(episode.state()))
}

/// `POST /reset`.
#[utoipa::path(post, path = "/reset", operation_id = "openenv_reset", tag = "openenv",
    summary = "OpenEnv: start an episode on a task named or drawn from a seed",
    request_body(content = Option<OpenEnvReset>, description = "Optional: a missing body is `{}`"),
    responses((status = 200, description = "openenv's `ResetResponse`: the question", body = OpenEnvAnswer)))]
pub(crate) async fn reset(
    State(state): State<AdminState>,
    body: Result<Json<Value>, JsonRejection>,
) -> Result<Json<OpenEnvAnswer>, ApiError> {
    // openenv-core 0.1 posts `{}`; a missing body is an empty reset too.
    let body = match body {
        Ok(Json(body)) => body,
        Err(JsonRejection::MissingJsonContentType(_)) => json!({}),
        Err(error) => return Err(api_error::body_rejected(error)),
    };
    let request = parse_reset(body)?;
    let (id, answer) = reset_episode(&state, request)?;
    *state.openenv.latest.lock() = Some(id);
    Ok(Json(answer))
}

/// Reads a reset (`null` is an empty one); a whole number written with a fraction (`3.0`) is the
/// integer it is, as the agent-facing listener reads its bodies.
fn parse_reset(mut body: Value) -> Result<OpenEnvReset, ApiError> {
    fabula_server::extractors::read_whole_numbers(&mut body);
    match body {
        Value::Null => Ok(OpenEnvReset::default()),
        body => serde_json::from_value(body)
            .map_err(|error| ApiError::bad_request(format!("bad reset: {error}"))),
    }
}

/// `POST /step`.
#[utoipa::path(post, path = "/step", operation_id = "openenv_step", tag = "openenv",
    summary = "OpenEnv: run an action of the named episode, or of the latest reset",
    request_body = OpenEnvStep,
    responses((status = 200, description = "openenv's `StepResponse`", body = OpenEnvAnswer)))]
pub(crate) async fn step(
    State(state): State<AdminState>,
    body: Result<Json<OpenEnvStep>, JsonRejection>,
) -> Result<Json<OpenEnvAnswer>, ApiError> {
    let Json(request) = body.map_err(api_error::body_rejected)?;
    let latest = state.openenv.latest.lock().clone();
    let Some(episode_id) = request.episode_id.or(latest) else {
        return Err(api_error::episode_not_started("POST /reset"));
    };
    step_episode(&state, &episode_id, request.action)
        .await
        .map(Json)
}

/// `GET /state`.
#[utoipa::path(get, path = "/state", operation_id = "openenv_state", tag = "openenv",
    summary = "OpenEnv: the named episode's state, or the latest reset's",
    params(("episode_id" = Option<String>, Query, description = "The episode; without it, the listener's latest reset.")),
    responses((status = 200, description = "The episode, or `{\"episode_id\": null, \"step_count\": 0}` before any reset", body = OpenEnvState)))]
pub(crate) async fn get_state(
    State(state): State<AdminState>,
    query: Result<Query<StateQuery>, QueryRejection>,
) -> Result<Json<OpenEnvState>, ApiError> {
    let Query(query) = query.map_err(api_error::query_rejected)?;
    let latest = state.openenv.latest.lock().clone();
    let episode_id = query.episode_id.or(latest);
    episode_state(&state, episode_id.as_deref()).map(Json)
}

/// `GET /health`.
#[utoipa::path(get, path = "/health", operation_id = "health", tag = "openenv",
    summary = "Whether the listener is up; needs no token",
    security(()),
    responses((status = 200, description = "Always healthy", body = Health)))]
pub(crate) async fn health() -> Json<Health> {
    Json(Health { status: "healthy" })
}

/// `GET /metadata`.
#[utoipa::path(get, path = "/metadata", operation_id = "openenv_metadata", tag = "openenv",
    summary = "OpenEnv: the environment's name, description and version",
    responses((status = 200, description = "openenv's `EnvironmentMetadata`", body = Metadata)))]
pub(crate) async fn metadata() -> Json<Metadata> {
    Json(Metadata {
        author: None,
        description: "Answer a question about a fictional world by searching its web \
            (web_search, web_extractor; notes in dict_memory), then give the answer (answer); \
            the reward is the \
            answer's score against the gold answer.",
        documentation_url: None,
        name: "fabula",
        readme_content: None,
        version: env!("CARGO_PKG_VERSION"),
    })
}

/// One schema per tool, each with `tool` fixed to the tool's name.
pub(crate) fn action_schema() -> Value {
    let variants: Vec<Value> = [
        (tools::WEB_SEARCH, tools::web_search_schema()),
        (tools::WEB_EXTRACTOR, tools::web_extractor_schema()),
        (tools::DICT_MEMORY, {
            let mut schema = tools::dict_memory_schema();
            schema["oneOf"] = fabula_server::memory::by_operation();
            schema
        }),
        (env::ANSWER, tools::input_schema::<env::AnswerArgs>()),
    ]
    .into_iter()
    .map(|(name, mut schema)| {
        schema["properties"]["tool"] = json!({"const": name});
        let required = schema["required"].as_array().cloned().unwrap_or_default();
        schema["required"] = Value::Array([vec![json!("tool")], required].concat());
        schema
    })
    .collect();
    json!({"oneOf": variants})
}

/// `GET /ws`: one OpenEnv session per connection, refused with 429 beyond [`MAX_CONNECTIONS`].
/// Left out of the OpenAPI document ([`crate::openapi::UNDOCUMENTED_ROUTES`]).
pub(crate) async fn websocket(
    State(state): State<AdminState>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(rejection) => return api_error::upgrade_rejected(rejection).into_response(),
    };
    let Ok(permit) = Arc::clone(&state.openenv.connections).try_acquire_owned() else {
        let mut error = ApiError::new(
            ErrorCode::TooManySessions,
            format!("at most {MAX_CONNECTIONS} OpenEnv connections at once; retry later"),
        );
        error.retry_after_s = Some(RETRY_AFTER_S);
        return error.into_response();
    };
    upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| serve_socket(state, socket, permit))
}

/// What a message asks of the connection.
enum Reply {
    /// Send this JSON text.
    Send(String),
    Close,
}

/// A reply `{"type": kind, "data": data}`.
fn send<T: Serialize>(kind: &'static str, data: T) -> Reply {
    let message = WsMessage { data, kind };
    match serde_json::to_string(&message) {
        Ok(text) => Reply::Send(text),
        Err(error) => {
            tracing::error!(%error, "admin: a WebSocket answer could not be written as JSON");
            Reply::Close
        }
    }
}

/// Answers a connection's messages until it closes, idles or fails, then ends its episode.
async fn serve_socket(state: AdminState, mut socket: WebSocket, _permit: OwnedSemaphorePermit) {
    let mut episode: Option<String> = None;
    loop {
        let message = match tokio::time::timeout(IDLE_TIMEOUT, socket.recv()).await {
            Ok(Some(Ok(message))) => message,
            Ok(Some(Err(error))) => {
                tracing::warn!(%error, "admin: an OpenEnv WebSocket failed");
                break;
            }
            Ok(None) | Err(_) => break,
        };
        let text = match message {
            Message::Text(text) => text.to_string(),
            Message::Binary(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Message::Ping(_) | Message::Pong(_) => continue,
            Message::Close(_) => break,
        };
        match handle_message(&state, &mut episode, &text).await {
            Reply::Send(answer) => {
                if let Err(error) = socket.send(Message::Text(answer.into())).await {
                    tracing::warn!(%error, "admin: an OpenEnv WebSocket answer was not sent");
                    break;
                }
            }
            Reply::Close => break,
        }
    }
    if let Some(id) = episode {
        end_episode(&state, &id);
    }
}

/// Forgets an episode and closes its server session.
fn end_episode(state: &AdminState, episode_id: &str) {
    let removed = state.episodes.lock().remove(episode_id);
    if let Some(episode) = removed {
        fabula_server::sessions::close_session(&state.search, &episode.session);
    }
}

/// Answers one WebSocket message.
async fn handle_message(state: &AdminState, episode: &mut Option<String>, text: &str) -> Reply {
    let message: Map<String, Value> = match serde_json::from_str(text) {
        Ok(Value::Object(message)) => message,
        Ok(_) => return ws_error("VALIDATION_ERROR", "a message is a JSON object", None),
        Err(error) => return ws_error("INVALID_JSON", &format!("Invalid JSON: {error}"), None),
    };
    let data = message.get("data").cloned().unwrap_or(Value::Null);
    let answer = match message
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
    {
        "reset" => ws_reset(state, episode, data),
        "step" => match episode.as_deref() {
            Some(id) => step_episode(state, id, data).await,
            None => Err(api_error::episode_not_started("send a reset")),
        },
        "state" => {
            return match episode_state(state, episode.as_deref()) {
                Ok(data) => send("state", data),
                Err(error) => ws_api_error(&error),
            };
        }
        "close" => return Reply::Close,
        other => {
            return ws_error(
                "UNKNOWN_TYPE",
                &format!("Unknown message type: {other}"),
                None,
            );
        }
    };
    match answer {
        Ok(data) => send("observation", data),
        Err(error) => ws_api_error(&error),
    }
}

/// A reset on a connection: ends its episode, if any, and opens another.
fn ws_reset(
    state: &AdminState,
    episode: &mut Option<String>,
    data: Value,
) -> Result<OpenEnvAnswer, ApiError> {
    let request = parse_reset(data)?;
    if let Some(previous) = episode.take() {
        end_episode(state, &previous);
    }
    let (id, answer) = reset_episode(state, request)?;
    *episode = Some(id);
    Ok(answer)
}

fn ws_api_error(error: &ApiError) -> Reply {
    let code = match (error.code.status(), error.code) {
        (_, ErrorCode::TooManySessions) => "CAPACITY_REACHED",
        (StatusCode::BAD_REQUEST, _) => "VALIDATION_ERROR",
        _ => "EXECUTION_ERROR",
    };
    ws_error(code, &error.message, Some(error.code.as_str()))
}

fn ws_error(code: &'static str, message: &str, fabula_code: Option<&'static str>) -> Reply {
    let data = WsError {
        code,
        error: fabula_code,
        message: message.to_owned(),
    };
    send("error", data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_action_schema_names_each_tool() {
        let schema = action_schema();
        let tools: Vec<&Value> = schema["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|variant| &variant["properties"]["tool"]["const"])
            .collect();
        assert_eq!(
            tools,
            [
                &json!("web_search"),
                &json!("web_extractor"),
                &json!("dict_memory"),
                &json!("answer")
            ]
        );
        for variant in schema["oneOf"].as_array().unwrap() {
            assert_eq!(variant["required"][0], "tool", "{variant}");
        }
        // The answer's schema is its Rust type's: one required field, nothing else allowed.
        let answer = &schema["oneOf"][3];
        assert_eq!(answer["required"], json!(["tool", "answer"]));
        assert_eq!(answer["additionalProperties"], json!(false));
        assert!(
            answer["properties"]["answer"]["description"]
                .as_str()
                .is_some_and(|d| d.starts_with("The final answer")),
            "{answer}"
        );
    }

    #[test]
    fn consecutive_seeds_spread() {
        let picks: std::collections::BTreeSet<u64> = (0..64).map(|seed| mix(seed) % 8).collect();
        assert_eq!(picks.len(), 8);
    }
}
