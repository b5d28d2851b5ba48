//! The gold-answer routes: `GET /admin/worlds/{id}/tasks` lists a world's tasks with their gold
//! answers, and `POST /admin/score` scores an answer to one task.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::api_error::ApiError;
use crate::state::AdminState;

/// `GET /admin/worlds/{id}/tasks`.
pub(crate) async fn list_tasks(
    State(state): State<AdminState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let world: u32 = id
        .parse()
        .map_err(|_| ApiError::bad_request(format!("world id `{id}` is not a number")))?;
    let tasks = state.world_tasks(world)?;
    let list: Vec<Value> = tasks
        .iter()
        .map(|t| json!({"id": t.id, "kind": t.kind, "question": t.question, "answer": t.answer, "evidence": t.evidence, "hops": t.hops}))
        .collect();
    Ok(Json(json!({"world": world, "tasks": list})))
}

#[derive(Deserialize)]
pub(crate) struct ScoreRequest {
    task_id: String,
    answer: Value,
}

/// `POST /admin/score`.
pub(crate) async fn score(
    State(state): State<AdminState>,
    body: Result<Json<ScoreRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(|e| ApiError::bad_request(e.body_text()))?;
    let task = state.task(&request.task_id)?;
    let score = task.score(&request.answer)?;
    Ok(Json(
        json!({"task_id": task.id, "kind": task.kind, "reward": score.reward(), "score": score}),
    ))
}
