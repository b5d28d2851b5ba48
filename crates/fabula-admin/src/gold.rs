//! The gold-answer routes: `GET /admin/worlds/{id}/tasks` lists a world's tasks with their gold
//! answers, and `POST /admin/score` scores an answer to one task.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::api_error::{self, ApiError};
use crate::state::AdminState;
use crate::wire::{ScoreAnswer, TaskList};

/// `GET /admin/worlds/{id}/tasks`.
#[utoipa::path(get, path = "/admin/worlds/{id}/tasks", operation_id = "list_tasks", tag = "gold",
    summary = "A world's tasks with their gold answers",
    params(("id" = u32, Path, description = "The world's id.", maximum = 4294967295_u64)),
    responses((status = 200, description = "The world's tasks", body = TaskList)))]
pub(crate) async fn list_tasks(
    State(state): State<AdminState>,
    Path(id): Path<String>,
) -> Result<Json<TaskList>, ApiError> {
    let world: u32 = id
        .parse()
        .map_err(|_| ApiError::bad_request(format!("world id `{id}` is not a number")))?;
    let tasks = state.world_tasks(world)?;
    Ok(Json(TaskList {
        tasks: tasks.to_vec(),
        world,
    }))
}

/// The body of `POST /admin/score`.
#[derive(Deserialize, ToSchema)]
pub(crate) struct ScoreRequest {
    /// The task's id, such as `w00042-t017`.
    task_id: String,
    /// The answer: text (a table may be Markdown), or a table as JSON.
    answer: Value,
}

/// `POST /admin/score`.
#[utoipa::path(post, path = "/admin/score", operation_id = "score", tag = "gold",
    summary = "Score an answer against a task's gold answer",
    request_body = ScoreRequest,
    responses((status = 200, description = "The answer's score", body = ScoreAnswer)))]
pub(crate) async fn score(
    State(state): State<AdminState>,
    body: Result<Json<ScoreRequest>, JsonRejection>,
) -> Result<Json<ScoreAnswer>, ApiError> {
    let Json(request) = body.map_err(api_error::body_rejected)?;
    let task = state.task(&request.task_id)?;
    let score = task.score(&request.answer)?;
    Ok(Json(ScoreAnswer {
        kind: task.kind,
        reward: score.reward(),
        score,
        task_id: task.id,
    }))
}
