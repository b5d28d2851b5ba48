//! Test support: small world files written to a temporary directory, and a helper that drives the
//! router in process and parses its JSON answers.

use std::path::Path;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use fabula_file::{Meta, Page, PageFact, PageKind, Task, TaskKind, ValueKind, WorldContents};
use fabula_server::{AppState, ServeConfig, Suite, app_with};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tempfile::TempDir;
use tower::ServiceExt;

/// One page of a fixture world.
pub struct PageSpec {
    pub url: String,
    pub title: String,
    pub kind: &'static str,
    pub published: Option<&'static str>,
    pub body: String,
    /// `(table, row_id, column, shown, value_kind)`.
    pub facts: Vec<(&'static str, i64, &'static str, &'static str, &'static str)>,
}

/// One fixture world.
pub struct WorldSpec {
    pub id: u32,
    pub name: &'static str,
    pub theme: &'static str,
    pub pages: Vec<PageSpec>,
}

fn page(
    url: &str,
    title: &str,
    kind: &'static str,
    published: Option<&'static str>,
    body: String,
) -> PageSpec {
    PageSpec {
        url: url.to_owned(),
        title: title.to_owned(),
        kind,
        published,
        body,
        facts: Vec::new(),
    }
}

/// The long history page's body: about 20,000 characters, so it takes three 8,000-character
/// windows.
pub fn long_history_body() -> String {
    let mut body = String::from("# History of the Veloria Isles\n\n");
    for era in 0..60 {
        body.push_str(&format!(
            "## Era {era}\n\nIn era {era} the harbour guilds of Veloria argued over tolls, lanterns \
             and the upkeep of the tide walls, and the islands' archives record each dispute.\n\n"
        ));
    }
    body.push_str("The history ends here.\n");
    body
}

/// World 0, an island nation with a dozen harbour pages, and world 3, a river city-state with
/// two news items a month apart and a dated yearbook.
pub fn fixture_worlds() -> Vec<WorldSpec> {
    let mut veloria = vec![
        PageSpec {
            facts: vec![
                ("city", 1, "name", "Port Amsel", "name"),
                ("city", 1, "population", "48,213", "number"),
                ("city", 1, "founded", "1203", "year"),
                ("city", 1, "founder_id", "Oren Talvik", "entity"),
            ],
            ..page(
                "https://veloria.example/wiki/Port_Amsel",
                "Port Amsel",
                "entity",
                None,
                "# Port Amsel\n\n| Population | 48,213 |\n| Founded | 1203 |\n\nPort Amsel is a \
                 harbour city on Kessa Isle. It has a population of 48,213 and was founded in 1203 \
                 by Oren Talvik, whose lantern guild still keeps the harbour lights.\n"
                    .to_owned(),
            )
        },
        PageSpec {
            facts: vec![
                ("person", 1, "name", "Oren Talvik", "name"),
                ("person", 1, "born", "1171", "year"),
            ],
            ..page(
                "https://veloria.example/wiki/Oren_Talvik",
                "Oren Talvik",
                "entity",
                None,
                "# Oren Talvik\n\nOren Talvik was a navigator born in 1171 who founded a harbour \
                 town and a lantern guild on Kessa Isle.\n"
                    .to_owned(),
            )
        },
        page(
            "https://veloria.example/news/1999-04-12/harbour-festival",
            "Harbour festival opens in Port Amsel",
            "news",
            Some("1999-04-12"),
            "# Harbour festival opens in Port Amsel\n\nThe harbour festival opened with lantern \
             boats and a parade of guild banners along the tide walls.\n"
                .to_owned(),
        ),
        page(
            "https://veloria.example/wiki/History_of_the_Veloria_Isles",
            "History of the Veloria Isles",
            "history",
            None,
            long_history_body(),
        ),
    ];
    for (idx, name) in [
        "Belmora", "Caskel", "Dunfray", "Elsweir", "Ferrin", "Galdow", "Hask", "Ivren",
    ]
    .iter()
    .enumerate()
    {
        veloria.push(page(
            &format!("https://veloria.example/wiki/{name}_Harbour"),
            &format!("{name} Harbour"),
            "entity",
            None,
            format!(
                "# {name} Harbour\n\n{name} Harbour is a small harbour of the Veloria Isles with \
                 {} berths and a lantern tower.\n",
                10 + idx
            ),
        ));
    }
    veloria.push(page(
        "https://veloria.example/wiki/List_of_harbours",
        "List of harbours of the Veloria Isles",
        "list",
        None,
        "# List of harbours\n\n- Port Amsel\n- Belmora Harbour\n- Caskel Harbour\n".to_owned(),
    ));
    let dravosk = vec![
        page(
            "https://dravosk.example/wiki/Dravosk",
            "Dravosk",
            "entity",
            None,
            "# Dravosk\n\nDravosk is a river city-state whose ferry guilds cross the Orrun.\n"
                .to_owned(),
        ),
        page(
            "https://dravosk.example/news/2004-09-01/ferry-strike",
            "Ferry strike on the Orrun",
            "news",
            Some("2004-09-01"),
            "# Ferry strike on the Orrun\n\nThe ferry guilds of Dravosk stopped work for a week.\n"
                .to_owned(),
        ),
        page(
            "https://dravosk.example/news/2004-08-02/ferry-fares",
            "Ferry fares rise on the Orrun",
            "news",
            Some("2004-08-02"),
            "# Ferry fares rise on the Orrun\n\nThe ferry guilds of Dravosk raised their fares by \
             a copper.\n"
                .to_owned(),
        ),
        page(
            "https://dravosk.example/archive/yearbook-2003",
            "Dravosk yearbook 2003",
            "history",
            Some("2003-12-31"),
            "# Dravosk yearbook 2003\n\nAt the end of 2003 the ferry guilds of Dravosk kept eleven \
             boats on the Orrun.\n"
                .to_owned(),
        ),
    ];
    vec![
        WorldSpec {
            id: 0,
            name: "Veloria Isles",
            theme: "island-nation",
            pages: veloria,
        },
        WorldSpec {
            id: 3,
            name: "Dravosk Reach",
            theme: "river-city-state",
            pages: dravosk,
        },
    ]
}

/// Writes the worlds' SQLite files and `manifest.json` into `dir`.
pub fn write_corpus(dir: &Path, worlds: &[WorldSpec]) {
    let mut entries = Vec::new();
    for world in worlds {
        let file = format!("world-{:05}.sqlite", world.id);
        write_world(&dir.join(&file), world);
        entries.push(json!({
            "id": world.id,
            "file": file,
            "sha256": fabula_file::sha256_file(&dir.join(&file)).unwrap(),
            "theme": world.theme,
            "name": world.name,
            "rows": 10,
            "tables": 2,
            "pages": world.pages.len(),
            "tasks": 0,
        }));
    }
    let manifest = json!({
        "format_version": fabula_file::FORMAT_VERSION,
        "generator_version": "test",
        "master_seed": 0,
        "count": worlds.len(),
        "worlds": entries,
    });
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
}

/// Writes one world through the world file's own writer, with a task whose gold answer no agent
/// route may reveal.
fn write_world(path: &Path, world: &WorldSpec) {
    let meta = Meta {
        world_id: world.id,
        name: world.name.to_owned(),
        theme: world.theme.to_owned(),
        theme_label: world.theme.replace('-', " "),
        master_seed: 0,
        world_seed: u64::from(world.id),
        generator_version: "test".to_owned(),
        format_version: fabula_file::FORMAT_VERSION,
        present_year: 2240,
        earliest_year: 1100,
        limits: None,
    };
    let pages: Vec<Page> = world.pages.iter().map(PageSpec::to_page).collect();
    let tasks = [Task {
        id: format!("w{:05}-t000", world.id),
        kind: TaskKind::Lookup,
        question: "Who founded Port Amsel?".to_owned(),
        answer: "\"GOLD-ANSWER-Oren\"".to_owned(),
        evidence: "[]".to_owned(),
        hops: 1,
        sql: "SELECT 'GOLD-ANSWER-Oren'".to_owned(),
        tier: fabula_file::Tier::Easy,
        effort: None,
    }];
    let contents = WorldContents {
        meta: &meta,
        tables: &[],
        pages: &pages,
        tasks: &tasks,
    };
    fabula_file::write_world(path, &contents).unwrap();
}

impl PageSpec {
    fn to_page(&self) -> Page {
        let facts = self
            .facts
            .iter()
            .map(|&(table, row_id, column, shown, kind)| PageFact {
                table: table.to_owned(),
                row_id,
                column: column.to_owned(),
                shown: shown.to_owned(),
                value_kind: ValueKind::parse(kind).expect("a known value kind"),
            })
            .collect();
        Page {
            url: self.url.clone(),
            title: self.title.clone(),
            kind: PageKind::parse(self.kind).expect("a known page kind"),
            published: self.published.map(str::to_owned),
            body: self.body.clone(),
            facts,
        }
    }
}

/// A router over the fixture worlds, with the suites the test binary mounts (its root's
/// `suites`); the directory lives as long as the router. This file is shared by the integration
/// tests of fabula-server (every suite) and of the protocol crates (their own).
pub struct TestApp {
    pub router: Router,
    pub dir: TempDir,
}

/// An answer: status, headers, and the body parsed as JSON (`Value::Null` when empty).
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub json: Value,
}

impl TestApp {
    /// The fixture worlds with the default config.
    pub fn new() -> TestApp {
        TestApp::with_config(|_| {})
    }

    /// The fixture worlds with a config adjusted by `adjust`.
    pub fn with_config(adjust: impl FnOnce(&mut ServeConfig)) -> TestApp {
        TestApp::build(adjust, Router::new())
    }

    /// The fixture worlds with the default config and `extra` routes beside the service's own.
    pub fn with_routes(extra: Router<AppState>) -> TestApp {
        TestApp::build(|_| {}, extra)
    }

    fn build(adjust: impl FnOnce(&mut ServeConfig), extra: Router<AppState>) -> TestApp {
        let dir = tempfile::tempdir().unwrap();
        write_corpus(dir.path(), &fixture_worlds());
        let mut config = ServeConfig {
            worlds: dir.path().to_owned(),
            ..ServeConfig::default()
        };
        adjust(&mut config);
        let state = AppState::open(&config).unwrap();
        let mut suites = crate::suites(&state);
        suites.push(Suite::routes(extra));
        TestApp {
            router: app_with(state, suites),
            dir,
        }
    }

    /// Sends a request with a raw body and extra headers.
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<Vec<u8>>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut request = Request::builder().method(method).uri(path);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let body = match body {
            Some(bytes) => {
                request = request.header("content-type", "application/json");
                Body::from(bytes)
            }
            None => Body::empty(),
        };
        let response = self
            .router
            .clone()
            .oneshot(request.body(body).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let json = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap_or_else(|error| {
                panic!(
                    "{method} {path}: body is not JSON ({error}): {:?}",
                    String::from_utf8_lossy(&bytes)
                )
            })
        };
        Answer {
            status,
            headers,
            json,
        }
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.send("GET", path, None, &[]).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Answer {
        self.send("POST", path, Some(serde_json::to_vec(&body).unwrap()), &[])
            .await
    }

    pub async fn post_raw(&self, path: &str, body: &str) -> Answer {
        self.send("POST", path, Some(body.as_bytes().to_vec()), &[])
            .await
    }
}

/// Asserts an error answer: its status and stable code.
#[track_caller]
pub fn assert_error(answer: &Answer, status: u16, code: &str) {
    assert_eq!(answer.status.as_u16(), status, "answer: {:#}", answer.json);
    assert_eq!(
        answer.json["error"]["code"], code,
        "answer: {:#}",
        answer.json
    );
    assert!(
        answer.json["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
}
