//! The admin routes' answers as types, with their OpenAPI schemas (`utoipa::ToSchema`); the
//! requests are declared beside their handlers.
//!
//! Fields are declared in alphabetical order: the order the listener has always written them in
//! (it built its answers as `serde_json` maps, which sort their keys), so the bytes on the wire
//! stay as they were.

use std::borrow::Cow;

use fabula_score::Score;
use serde::Serialize;
use serde_json::Value;
use utoipa::openapi::{ObjectBuilder, RefOr, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

/// The OpenAPI schema of a task's kind: `fabula_file::TaskKind`'s spellings.
pub struct TaskKindName;

impl PartialSchema for TaskKindName {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(
                fabula_file::TaskKind::ALL.map(fabula_file::TaskKind::as_str),
            ))
            .description(Some("The kind of a task."))
            .into()
    }
}

impl ToSchema for TaskKindName {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("TaskKind")
    }
}

/// One task as the admin API returns it: the question and its gold answer.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Task {
    /// The gold answer: a string, or a table `{"columns", "key", "rows"}`.
    pub answer: Value,
    /// The urls of the pages that state the answer.
    pub evidence: Value,
    /// How many pages an agent must read to answer.
    pub hops: i64,
    pub id: String,
    #[schema(value_type = TaskKindName)]
    pub kind: fabula_file::TaskKind,
    pub question: String,
}

/// The answer of `GET /admin/worlds/{id}/tasks`: a world's tasks with their gold answers.
#[derive(Debug, Serialize, ToSchema)]
pub struct TaskList {
    pub tasks: Vec<Task>,
    #[schema(format = "uint32", maximum = 4294967295_u64)]
    pub world: u32,
}

/// The answer of `POST /admin/score`: the score of an answer against the task's gold answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct ScoreAnswer {
    #[schema(value_type = TaskKindName)]
    pub kind: fabula_file::TaskKind,
    /// The score's reward, from 0 to 1: `em` for short answers, `success` for tables.
    pub reward: f64,
    /// The scores that apply to the answer's kind (`em` and `f1`, or the table's row and item
    /// precision, recall and F1, `success`) and the `issues` found in the answer.
    #[schema(value_type = Object)]
    pub score: Score,
    pub task_id: String,
}

/// The answer of `POST /v1/env/reset`: the new episode and its first observation.
#[derive(Debug, Serialize, ToSchema)]
pub struct ResetAnswer {
    /// Always `false`.
    pub done: bool,
    pub episode_id: String,
    /// The task's question, or where to search for an episode without a task.
    pub observation: String,
    /// Always `null`: a reset earns nothing.
    #[schema(value_type = Option<f64>)]
    pub reward: Option<f64>,
}

/// The answer of `POST /v1/env/step`: what the action returned.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StepAnswer {
    /// Whether the episode ended (after an `answer`).
    pub done: bool,
    pub info: StepInfo,
    /// What the agent reads.
    pub observation: String,
    /// 0 for a search or an extract; the task's score for an answer.
    pub reward: f64,
}

/// The structured rest of a step's observation.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum StepInfo {
    /// A search's or an extract's structured answer, as the agent-facing API gives it.
    Result {
        #[schema(value_type = Object)]
        result: Value,
    },
    /// A search or an extract that failed under the session's controls:
    /// `{"code", "message", "status", "retry_after_s"?}`.
    Error {
        #[schema(value_type = Object)]
        error: Value,
    },
    /// An answer's score against the episode's task.
    Score {
        #[schema(value_type = TaskKindName)]
        kind: fabula_file::TaskKind,
        #[schema(value_type = Object)]
        score: Score,
        task_id: String,
    },
    /// An answer in an episode without a task: `{}`.
    Unscored {},
}

/// One episode as `GET /v1/env/state` and `GET /state` show it.
#[derive(Debug, Serialize, ToSchema)]
pub struct EpisodeState {
    pub done: bool,
    pub episode_id: String,
    /// The answer's reward once the episode has ended.
    pub reward: Option<f64>,
    #[schema(format = "uint64", maximum = 18446744073709551615_u64)]
    pub seed: u64,
    /// The server session the episode's searches and extracts run in.
    pub session: String,
    #[schema(format = "uint64", maximum = 18446744073709551615_u64)]
    pub step_count: u64,
    pub task_id: Option<String>,
    #[schema(format = "uint32", maximum = 4294967295_u64)]
    pub world: u32,
}

/// Every episode held, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct EpisodeList {
    pub episodes: Vec<EpisodeState>,
}

/// The answer of `GET /v1/env/state`: one episode, or all of them without `episode_id`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum EnvState {
    One(EpisodeState),
    All(EpisodeList),
}

/// An OpenEnv observation: the text the agent reads and the structured rest.
#[derive(Debug, Serialize, ToSchema)]
pub struct Observation {
    pub info: ObservationInfo,
    pub text: String,
}

/// The `info` of an OpenEnv observation.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum ObservationInfo {
    /// After a reset: the episode and its task.
    Reset(ResetInfo),
    /// After a step: the native episode API's `info`.
    Step(StepInfo),
}

/// The `info` of an OpenEnv reset's observation.
#[derive(Debug, Serialize, ToSchema)]
pub struct ResetInfo {
    pub episode_id: String,
    #[schema(format = "uint64", maximum = 18446744073709551615_u64)]
    pub seed: u64,
    pub task_id: String,
    #[schema(format = "uint32", maximum = 4294967295_u64)]
    pub world: u32,
}

/// openenv's `ResetResponse` and `StepResponse`: `POST /reset`, `POST /step` and the WebSocket's
/// observations.
#[derive(Debug, Serialize, ToSchema)]
pub struct OpenEnvAnswer {
    pub done: bool,
    pub observation: Observation,
    /// `null` after a reset.
    pub reward: Option<f64>,
}

/// openenv's state before any reset.
#[derive(Debug, Serialize, ToSchema)]
pub struct NoEpisode {
    /// Always `null`.
    #[schema(value_type = Option<String>)]
    pub episode_id: Option<String>,
    /// Always 0.
    pub step_count: u64,
}

/// The answer of `GET /state`: the episode, or openenv's empty state when there is none.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum OpenEnvState {
    Episode(EpisodeState),
    None(NoEpisode),
}

/// The answer of `GET /health`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// Always `healthy`.
    pub status: &'static str,
}

/// The answer of `GET /metadata`: openenv's `EnvironmentMetadata`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Metadata {
    pub author: Option<&'static str>,
    pub description: &'static str,
    pub documentation_url: Option<&'static str>,
    pub name: &'static str,
    pub readme_content: Option<&'static str>,
    pub version: &'static str,
}

/// The answer of `GET /schema`: the JSON Schemas of an action, an observation and a state.
#[derive(Debug, Serialize, ToSchema)]
pub struct Schemas {
    #[schema(value_type = Object)]
    pub action: Value,
    #[schema(value_type = Object)]
    pub observation: Value,
    #[schema(value_type = Object)]
    pub state: Value,
}

/// A WebSocket message sent to the client: `{"type", "data"}`.
#[derive(Debug, Serialize)]
pub struct WsMessage<T> {
    pub data: T,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// The `data` of an openenv WebSocket error, with fabula's own code as `error` when there is one.
#[derive(Debug, Serialize)]
pub struct WsError {
    pub code: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'static str>,
    pub message: String,
}
