//! [`Browse`]: the browser's routes and their shared state. Handlers check the world with the
//! server (so a world is read only after its file matched the manifest), read the world file on
//! a blocking thread, and render a template; every error is an HTML page with its status.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use fabula_file::WorldFile;
use fabula_search::{Hiding, SearchOptions};
use fabula_server::AppState;
use serde_json::{Value as Json, json};
use tokio::sync::OnceCell;

use crate::admin::{self, ParsedTask, Summary};
use crate::error::{Error, Result, file_failed};
use crate::templates::Templates;
use crate::views::{self, DatasetQuery};
use fabula_tasks::difficulty::Features;

/// The browser's state: the server's state, the templates and, on the admin listener, the dataset's tier summary (computed once).
#[derive(Clone)]
pub struct Browse {
    inner: Arc<Inner>,
}

struct Inner {
    app: AppState,
    templates: Templates,
    admin: bool,
    summary: OnceCell<Summary>,
}

#[derive(Debug, serde::Deserialize)]
struct PageQuery {
    url: Option<String>,
}

impl Browse {
    /// The agent listener's browser: worlds, pages and rows; never tasks or sessions.
    pub fn agent(app: AppState) -> Browse {
        Browse::new(app, false)
    }

    /// The trainers' listener's browser: everything, with tasks, tiers and sessions.
    pub fn admin(app: AppState) -> Browse {
        Browse::new(app, true)
    }

    fn new(app: AppState, admin: bool) -> Browse {
        Browse {
            inner: Arc::new(Inner {
                app,
                templates: Templates::new(),
                admin,
                summary: OnceCell::new(),
            }),
        }
    }

    /// Adds the browser to `router`: the dataset at `/` and everything at `/ui/...`.
    pub fn mount<S: Clone + Send + Sync + 'static>(&self, router: Router<S>) -> Router<S> {
        let ui = self.router();
        // `route_service` refuses a `Router` of the outer state's type; its service form is
        // the same routes.
        router
            .route_service("/", ui.clone().into_service::<Body>())
            .nest_service("/ui", ui)
    }

    /// Computes the admin listener's tier summary now rather than on the first dataset view
    /// (a no-op on the agent listener).
    pub async fn warm(&self) {
        if self.inner.admin {
            self.summary().await;
        }
    }

    fn router(&self) -> Router {
        let mut router = Router::new()
            .route("/", get(dataset))
            .route("/worlds/{id}", get(world))
            .route("/worlds/{id}/page", get(page))
            .route("/worlds/{id}/rows/{table}/{row}", get(row))
            .route("/worlds/{id}/search", get(search));
        if self.inner.admin {
            router = router
                .route("/worlds/{id}/tasks/{task}", get(task))
                .route("/sessions", get(sessions))
                .route("/sessions/{sid}", get(session));
        }
        router.fallback(not_found).with_state(self.clone())
    }

    async fn summary(&self) -> &Summary {
        self.inner
            .summary
            .get_or_init(|| compute_summary(self.inner.app.clone()))
            .await
    }

    /// Renders `template` with `context` (plus the listener flag), or the error page.
    fn respond(&self, template: &str, context: Result<Json>) -> Response {
        let rendered = context.and_then(|mut context| {
            context["admin"] = json!(self.inner.admin);
            self.inner.templates.render(template, &context)
        });
        match rendered {
            Ok(html) => html_response(StatusCode::OK, html),
            Err(error) => self.error_page(&error),
        }
    }

    fn error_page(&self, error: &Error) -> Response {
        let status = error.status();
        if status.is_server_error() && status != StatusCode::SERVICE_UNAVAILABLE {
            tracing::error!(%error, "browser view failed");
        }
        let message = if status == StatusCode::INTERNAL_SERVER_ERROR {
            "the view failed; the server log has the cause".to_owned()
        } else {
            error.to_string()
        };
        let context = json!({"title": status.as_u16().to_string(), "status": status.as_u16(),
                             "message": message, "admin": self.inner.admin});
        let html = self
            .inner
            .templates
            .render("error.html.j2", &context)
            .unwrap_or_else(|_| message.clone());
        html_response(status, html)
    }

    /// Checks the world with the server and returns its file's path.
    async fn world_file(&self, id: &str) -> Result<(u32, PathBuf)> {
        let world_id: u32 = id
            .parse()
            .map_err(|_| Error::NotFound(format!("no world with id `{id}`")))?;
        self.inner
            .app
            .world_ready(world_id)
            .await
            .map_err(Error::from_api)?;
        let info = self.inner.app.world_info(world_id);
        let path = info
            .map(|info| info.file.clone())
            .ok_or_else(|| Error::NotFound(format!("no world with id {world_id}")))?;
        Ok((world_id, path))
    }

    /// Runs `work` on a world's file on a blocking thread.
    async fn with_file<F>(&self, id: &str, work: F) -> Result<Json>
    where
        F: FnOnce(&WorldFile, u32) -> Result<Json> + Send + 'static,
    {
        let (world_id, path) = self.world_file(id).await?;
        self.on_blocking(move || work(&WorldFile::open(&path)?, world_id))
            .await
            .map_err(|error| file_failed(&self.inner.app, world_id, error))
    }

    /// Runs `work` on a blocking thread under the server's permits for such work.
    async fn on_blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.inner
            .app
            .run_blocking(work)
            .await
            .map_err(|e| Error::Join(e.message))?
    }

    /// A world's tasks with their features.
    async fn tasks_with_features(&self, id: &str) -> Result<(u32, Vec<(ParsedTask, Features)>)> {
        let (world_id, path) = self.world_file(id).await?;
        let tasks = tasks_with_features(&self.inner.app, world_id, path).await?;
        Ok((world_id, tasks))
    }
}

fn html_response(status: StatusCode, html: String) -> Response {
    let headers = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CACHE_CONTROL, "no-store"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'",
        ),
    ];
    (status, headers, html).into_response()
}

/// Every world's tasks with their tiers; worlds that cannot be read are listed as such.
async fn compute_summary(app: AppState) -> Summary {
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let mut pending = app.worlds().iter().map(|info| (info.id, info.file.clone()));
    let mut running = tokio::task::JoinSet::new();
    let mut measured = BTreeMap::new();
    loop {
        while running.len() < workers
            && let Some((world_id, path)) = pending.next()
        {
            let app = app.clone();
            running.spawn(async move { (world_id, world_tiers(&app, world_id, path).await) });
        }
        let Some(done) = running.join_next().await else {
            break;
        };
        if let Ok((world_id, tiers)) = done {
            measured.insert(world_id, tiers);
        }
    }
    // Added in world order, so the summary does not depend on which world finished first.
    let mut summary = Summary::default();
    for (world_id, tiers) in measured {
        match tiers {
            Ok(tasks) => {
                for (task, features) in &tasks {
                    summary.add(world_id, task, features);
                }
            }
            Err(_) => summary.unreadable.push(world_id),
        }
    }
    summary
}

/// One world's tasks with their features, for the summary: after checking the world.
async fn world_tiers(
    app: &AppState,
    world_id: u32,
    path: PathBuf,
) -> Result<Vec<(ParsedTask, Features)>> {
    app.world_ready(world_id).await.map_err(Error::from_api)?;
    tasks_with_features(app, world_id, path).await
}

/// A checked world's tasks with their features (measured without searching; the tiers are
/// the stored ones).
async fn tasks_with_features(
    app: &AppState,
    world_id: u32,
    path: PathBuf,
) -> Result<Vec<(ParsedTask, Features)>> {
    let tasks = admin::world_tasks(app, world_id, path).await?;
    let mut out = Vec::with_capacity(tasks.len());
    for task in tasks {
        let features = admin::features(&task);
        out.push((task, features));
    }
    Ok(out)
}

async fn dataset(
    State(browse): State<Browse>,
    query: Result<Query<DatasetQuery>, QueryRejection>,
) -> Response {
    let query = query.map(|Query(q)| q).unwrap_or_default();
    let mut context = views::dataset(browse.inner.app.worlds(), &query);
    if browse.inner.admin {
        let summary = browse.summary().await;
        if let Some(rows) = context["worlds"].as_array_mut() {
            for row in rows {
                let id = row["id"].as_u64().unwrap_or_default() as u32;
                row["tiers"] = json!(summary.per_world.get(&id).copied().unwrap_or_default());
            }
        }
        context["summary"] = summary.context();
    }
    browse.respond("dataset.html.j2", Ok(context))
}

async fn world(State(browse): State<Browse>, Path(id): Path<String>) -> Response {
    let mut context = browse.with_file(&id, views::world).await;
    if browse.inner.admin
        && let Ok(context) = &mut context
    {
        match browse.tasks_with_features(&id).await {
            Ok((world_id, tasks)) => context["tasks"] = admin::task_rows(world_id, &tasks),
            Err(error) => return browse.error_page(&error),
        }
    }
    browse.respond("world.html.j2", context)
}

async fn page(
    State(browse): State<Browse>,
    Path(id): Path<String>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    let url = match query {
        Ok(Query(PageQuery { url: Some(url) })) if !url.is_empty() => url,
        Ok(_) => return browse.error_page(&Error::BadRequest("name a page with ?url=".into())),
        Err(rejection) => return browse.error_page(&Error::BadRequest(rejection.body_text())),
    };
    let context = browse
        .with_file(&id, move |file, world_id| views::page(file, world_id, &url))
        .await;
    browse.respond("page.html.j2", context)
}

async fn row(
    State(browse): State<Browse>,
    Path((id, table, row)): Path<(String, String, String)>,
) -> Response {
    let Ok(row_id) = row.parse::<i64>() else {
        return browse.error_page(&Error::NotFound(format!("no row `{row}` in {table}")));
    };
    let context = browse
        .with_file(&id, move |file, world_id| {
            views::row(file, world_id, &table, row_id)
        })
        .await;
    browse.respond("row.html.j2", context)
}

#[derive(Debug, serde::Deserialize)]
struct SearchQuery {
    q: Option<String>,
    hiding: Option<String>,
}

/// What an agent's search of a world returns: the same index, snippets and hiding.
async fn search(
    State(browse): State<Browse>,
    Path(id): Path<String>,
    query: Result<Query<SearchQuery>, QueryRejection>,
) -> Response {
    let context = async {
        let Query(query) = query.map_err(|r| Error::BadRequest(r.body_text()))?;
        let hiding = match query.hiding.as_deref().filter(|h| !h.is_empty()) {
            None => Hiding::Partial,
            Some(text) => Hiding::parse(text).ok_or_else(|| {
                Error::BadRequest(format!("hiding is none, partial or strict, not `{text}`"))
            })?,
        };
        let (world_id, _) = browse.world_file(&id).await?;
        let text = query.q.unwrap_or_default();
        let text = text.trim();
        if text.chars().count() > MAX_QUERY_CHARS {
            return Err(Error::BadRequest(format!(
                "a query has at most {MAX_QUERY_CHARS} characters"
            )));
        }
        let hits = if text.is_empty() {
            Vec::new()
        } else {
            let options = SearchOptions {
                top_k: 20,
                offset: 0,
                hiding,
            };
            let results = browse
                .inner
                .app
                .search_world(world_id, text.to_owned(), options)
                .await;
            results.map_err(Error::from_api)?.hits
        };
        Ok(
            json!({"title": format!("Search world {world_id}"), "world": world_id, "q": text,
                  "hiding": hiding.as_str(), "searched": !text.is_empty(),
                  "hits": views::hits_view(world_id, &hits, &[])}),
        )
    }
    .await;
    browse.respond("search.html.j2", context)
}

/// The longest query the search view takes, as the search API.
const MAX_QUERY_CHARS: usize = 2_000;

async fn task(
    State(browse): State<Browse>,
    Path((id, task_id)): Path<(String, String)>,
) -> Response {
    let context = async {
        let (world_id, path) = browse.world_file(&id).await?;
        let tasks = admin::world_tasks(&browse.inner.app, world_id, path.clone()).await?;
        let parsed = tasks
            .into_iter()
            .find(|t| t.task.id == task_id)
            .ok_or_else(|| Error::NotFound(format!("world {world_id} has no task `{task_id}`")))?;
        let (features, hits) = admin::features_and_hits(&browse.inner.app, world_id, &parsed).await;
        browse
            .on_blocking(move || {
                admin::task(
                    &WorldFile::open(&path)?,
                    world_id,
                    &parsed,
                    &features,
                    &hits,
                )
            })
            .await
            .map_err(|error| file_failed(&browse.inner.app, world_id, error))
    }
    .await;
    browse.respond("task.html.j2", context)
}

async fn sessions(State(browse): State<Browse>) -> Response {
    let records = fabula_server::sessions::session_records(&browse.inner.app);
    browse.respond("sessions.html.j2", Ok(admin::sessions(&records)))
}

async fn session(State(browse): State<Browse>, Path(sid): Path<String>) -> Response {
    let context = fabula_server::sessions::session_record_of(&browse.inner.app, &sid)
        .map(|record| admin::session(&record))
        .ok_or_else(|| Error::NotFound(format!("no live session `{sid}`")));
    browse.respond("session.html.j2", context)
}

async fn not_found(State(browse): State<Browse>, uri: axum::http::Uri) -> Response {
    browse.error_page(&Error::NotFound(format!("no page at {}", uri.path())))
}
