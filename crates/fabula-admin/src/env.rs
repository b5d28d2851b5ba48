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
//! - `{"tool": "dict_memory", "operation", "dict"?, "key_list"?}`: the session's key-value
//!   notebook (`fabula_server::memory`), reward 0;
//! - `{"tool": "answer", "answer": ..}`: ends the episode; the reward is the task's score, as
//!   `POST /admin/score` computes it (0 for an episode without a task).
//!
//! A search or extract that fails under the controls is an observation (`Error CODE (STATUS): ..`,
//! with `info.error`), not an HTTP error, so an agent sees it as it would over MCP. Bad requests
//! are 400 `bad_request`, unknown episodes 404 `episode_not_found`, unknown tasks 404
//! `task_not_found`, and a step after the end 409 `episode_done`.

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use fabula_server::controls::ControlsRequest;
use fabula_server::sessions::{CreateSessionRequest, create_session};
use fabula_server::tools;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::api_error::{self, ApiError, episode_not_found};
pub use crate::episodes::MAX_EPISODES;
use crate::episodes::{Episode, Episodes};
use crate::state::{AdminState, world_of_task};
use crate::wire::{EnvState, EpisodeList, ResetAnswer, StepAnswer, StepInfo};

/// The body of `POST /v1/env/reset`: `world`, `task_id` or both.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResetRequest {
    /// The world to search; defaults to the task's world.
    #[schema(format = "uint32", maximum = 4294967295_u64)]
    pub world: Option<u32>,
    /// The session's control seed (0 when not given).
    #[serde(default)]
    #[schema(format = "uint64", maximum = 18446744073709551615_u64)]
    pub seed: u64,
    /// The task whose question is the first observation and whose gold answer scores `answer`.
    pub task_id: Option<String>,
    /// The session's controls, as `POST /v1/sessions` takes them.
    #[serde(default)]
    pub controls: ControlsRequest,
}

/// The world an episode runs in: the request's, else its task's; they must agree when both are
/// given.
fn episode_world(request: &ResetRequest) -> Result<u32, ApiError> {
    let task_world = match &request.task_id {
        Some(task_id) => {
            Some(world_of_task(task_id).ok_or_else(|| api_error::task_not_found(task_id))?)
        }
        None => None,
    };
    match (request.world, task_world) {
        (Some(world), Some(task_world)) if world != task_world => {
            Err(ApiError::bad_request(format!(
                "task `{}` belongs to world {task_world}, not {world}",
                request.task_id.as_deref().unwrap_or_default()
            )))
        }
        (Some(world), _) | (None, Some(world)) => Ok(world),
        (None, None) => Err(ApiError::bad_request("give `world`, `task_id` or both")),
    }
}

/// `POST /v1/env/reset`.
#[utoipa::path(post, path = "/v1/env/reset", operation_id = "env_reset", tag = "episodes",
    summary = "Start an episode: a session in a world, and a task's question",
    request_body = ResetRequest,
    responses((status = 200, description = "The episode and its first observation", body = ResetAnswer)))]
pub(crate) async fn reset(
    State(state): State<AdminState>,
    body: Result<Json<Value>, JsonRejection>,
) -> Result<Json<ResetAnswer>, ApiError> {
    let Json(body) = body.map_err(api_error::body_rejected)?;
    let started = start_episode(&state, parse_reset(body)?)?;
    Ok(Json(ResetAnswer {
        done: false,
        episode_id: started.id,
        observation: started.observation,
        reward: None,
    }))
}

/// Reads a reset's body as the agent-facing listener reads its bodies: a whole number written
/// with a fraction (`3.0`) is the integer it is, as the OpenAPI document's `integer` counts it.
fn parse_reset(mut body: Value) -> Result<ResetRequest, ApiError> {
    fabula_server::extractors::read_whole_numbers(&mut body);
    serde_json::from_value(body)
        .map_err(|error| ApiError::bad_request(format!("invalid request: {error}")))
}

/// A new episode: its id and first observation.
pub(crate) struct Started {
    pub id: String,
    pub world: u32,
    pub observation: String,
}

/// Opens an episode: a server session in the episode's world, and its task's question as the
/// first observation.
pub(crate) fn start_episode(
    state: &AdminState,
    request: ResetRequest,
) -> Result<Started, ApiError> {
    let world = episode_world(&request)?;
    let question = match &request.task_id {
        Some(task_id) => Some(state.task(task_id)?.question),
        None => None,
    };
    let created = create_session(
        &state.search,
        CreateSessionRequest {
            world,
            seed: request.seed,
            controls: request.controls,
        },
    )?;
    let observation = match question {
        Some(question) => question,
        None => format!(
            "You are searching world {world}. Use web_search and web_extractor, then answer."
        ),
    };
    let id = state
        .episodes
        .lock()
        .insert(world, request.seed, request.task_id, created.session);
    Ok(Started {
        id,
        world,
        observation,
    })
}

/// The tool name of the action that ends an episode.
pub(crate) const ANSWER: &str = "answer";

/// The arguments of an `answer` action (beside its `tool`); OpenEnv's action schema is derived
/// from this type.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AnswerArgs {
    /// The final answer: text, or a table as JSON or Markdown.
    answer: Value,
}

/// The body of `POST /v1/env/step`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepRequest {
    /// The episode, from `POST /v1/env/reset`.
    episode_id: String,
    /// `{"tool": "web_search" | "web_extractor" | "dict_memory" | "answer", ..}` with the
    /// tool's arguments.
    #[schema(value_type = Object)]
    action: Value,
}

/// `POST /v1/env/step`.
#[utoipa::path(post, path = "/v1/env/step", operation_id = "env_step", tag = "episodes",
    summary = "Run an action of an episode: search, extract or answer",
    request_body = StepRequest,
    responses((status = 200, description = "What the action returned; a search or extract that \
        failed under the session's controls is an observation with `info.error`", body = StepAnswer)))]
pub(crate) async fn step(
    State(state): State<AdminState>,
    body: Result<Json<StepRequest>, JsonRejection>,
) -> Result<Json<StepAnswer>, ApiError> {
    let Json(request) = body.map_err(api_error::body_rejected)?;
    let answer = take_step(&state, &request.episode_id, request.action).await?;
    Ok(Json(answer))
}

/// Runs one action of an episode: `{"observation", "reward", "done", "info"}`.
pub(crate) async fn take_step(
    state: &AdminState,
    episode_id: &str,
    action: Value,
) -> Result<StepAnswer, ApiError> {
    let Value::Object(mut action) = action else {
        return Err(ApiError::bad_request(
            "`action` must be an object with a `tool`",
        ));
    };
    let tool = match action.remove("tool") {
        Some(Value::String(tool)) => tool,
        _ => return Err(ApiError::bad_request("`action.tool` must be a string")),
    };
    let episode = state
        .episodes
        .lock()
        .by_id
        .get(episode_id)
        .cloned()
        .ok_or_else(|| episode_not_found(episode_id))?;
    if episode.done {
        return Err(api_error::episode_done(&episode.id));
    }
    let answer = match tool.as_str() {
        tools::WEB_SEARCH | tools::WEB_EXTRACTOR | tools::DICT_MEMORY => {
            call_tool(state, &episode, &tool, action).await?
        }
        ANSWER => {
            let args: AnswerArgs = serde_json::from_value(Value::Object(action))
                .map_err(|e| ApiError::bad_request(format!("an `answer` action: {e}")))?;
            score_answer(state, &episode, &args.answer)?
        }
        other => {
            return Err(ApiError::bad_request(format!(
                "unknown tool `{other}`: use `web_search`, `web_extractor`, `dict_memory` or `answer`"
            )));
        }
    };
    record_step(&mut state.episodes.lock(), &episode.id, &answer)?;
    Ok(answer)
}

/// Runs a tool in the episode's session. A failure under the session's controls (or a full
/// memory) is an observation; only a bad request is an HTTP error.
async fn call_tool(
    state: &AdminState,
    episode: &Episode,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<StepAnswer, ApiError> {
    let called = tools::call_tool(
        &state.search,
        &episode.session,
        tool,
        Value::Object(arguments),
    )
    .await;
    match called {
        Ok(output) => Ok(StepAnswer {
            done: false,
            info: StepInfo::Result {
                result: output.structured,
            },
            observation: output.text,
            reward: 0.0,
        }),
        Err(error) if error.code == fabula_server::ErrorCode::BadRequest => Err(error),
        Err(error) => Ok(StepAnswer {
            done: false,
            info: StepInfo::Error {
                error: tools::error_json(&error)["error"].take(),
            },
            observation: tools::error_text(&error),
            reward: 0.0,
        }),
    }
}

/// Counts a step and, when it ended the episode, keeps the reward.
fn record_step(
    episodes: &mut Episodes,
    episode_id: &str,
    answer: &StepAnswer,
) -> Result<(), ApiError> {
    let Some(stored) = episodes.by_id.get_mut(episode_id) else {
        return Err(episode_not_found(episode_id));
    };
    stored.n_steps += 1;
    if answer.done {
        stored.done = true;
        stored.reward = Some(answer.reward).filter(|reward| reward.is_finite());
    }
    Ok(())
}

/// Scores an answer against the episode's task, as `POST /admin/score` does.
fn score_answer(
    state: &AdminState,
    episode: &Episode,
    answer: &Value,
) -> Result<StepAnswer, ApiError> {
    let Some(task_id) = &episode.task_id else {
        return Ok(StepAnswer {
            done: true,
            info: StepInfo::Unscored {},
            observation: "This episode has no task; the answer was not scored.".to_owned(),
            reward: 0.0,
        });
    };
    let task = state.task(task_id)?;
    let score = task.score(answer)?;
    let reward = score.reward();
    Ok(StepAnswer {
        done: true,
        info: StepInfo::Score {
            kind: task.kind,
            score,
            task_id: task_id.clone(),
        },
        observation: format!("Answer recorded for task {task_id}; reward {reward:.3}."),
        reward,
    })
}

/// `?episode_id=` of `GET /v1/env/state`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StateQuery {
    episode_id: Option<String>,
}

/// `GET /v1/env/state`.
#[utoipa::path(get, path = "/v1/env/state", operation_id = "env_state", tag = "episodes",
    summary = "An episode's state, or every episode's",
    params(("episode_id" = Option<String>, Query, description = "The episode; without it, every episode held.")),
    responses((status = 200, description = "The episode, or `{\"episodes\"}` without `episode_id`", body = EnvState)))]
pub(crate) async fn get_state(
    State(state): State<AdminState>,
    query: Result<Query<StateQuery>, QueryRejection>,
) -> Result<Json<EnvState>, ApiError> {
    let Query(query) = query.map_err(api_error::query_rejected)?;
    let episodes = state.episodes.lock();
    match query.episode_id {
        Some(id) => {
            let episode = episodes
                .by_id
                .get(&id)
                .ok_or_else(|| episode_not_found(&id))?;
            Ok(Json(EnvState::One(episode.state())))
        }
        None => {
            let episodes = episodes
                .order
                .iter()
                .filter_map(|id| episodes.by_id.get(id))
                .map(Episode::state)
                .collect();
            Ok(Json(EnvState::All(EpisodeList { episodes })))
        }
    }
}
