//! What `fabula bench browse` requests: every request of every view, drawn before the server
//! starts with a ChaCha RNG seeded by `--seed`, from the dataset's manifest and the world files
//! themselves (page urls, table rows and task ids read through `fabula_file::WorldFile`), so that
//! one seed asks for the same pages of the same dataset.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fabula_file::{ColumnRole, ManifestEntry, Value, WorldFile};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::{Error, Result, bail, ensure};

/// What a path segment or query value keeps as is: RFC 3986's unreserved characters, as the
/// world browser encodes its own links.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// `text` percent-encoded whole, for one path segment or query value.
fn percent_encode(text: &str) -> String {
    utf8_percent_encode(text, UNRESERVED).to_string()
}

/// The listener that serves a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Listener {
    Agent,
    Admin,
}

/// One kind of page the world browser serves, with the listener it is measured on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum View {
    AgentDataset,
    AgentThemePage,
    World,
    Page,
    Row,
    AdminDataset,
    AdminWorld,
    Task,
    Sessions,
    Session,
}

impl View {
    /// Every view, in the order they are measured.
    pub const ALL: [View; 10] = [
        View::AgentDataset,
        View::AgentThemePage,
        View::World,
        View::Page,
        View::Row,
        View::AdminDataset,
        View::AdminWorld,
        View::Task,
        View::Sessions,
        View::Session,
    ];

    /// The name the report shows.
    pub fn label(self) -> &'static str {
        match self {
            View::AgentDataset => "agent dataset",
            View::AgentThemePage => "agent dataset, one theme",
            View::World => "world",
            View::Page => "page",
            View::Row => "row",
            View::AdminDataset => "admin dataset",
            View::AdminWorld => "admin world (with task tiers)",
            View::Task => "task",
            View::Sessions => "sessions list",
            View::Session => "session",
        }
    }

    pub fn listener(self) -> Listener {
        match self {
            View::AgentDataset | View::AgentThemePage | View::World | View::Page | View::Row => {
                Listener::Agent
            }
            View::AdminDataset | View::AdminWorld | View::Task | View::Sessions | View::Session => {
                Listener::Admin
            }
        }
    }
}

/// Sessions opened before the measurement, so the session views have content.
const SESSIONS: usize = 2;
/// Searches each session makes (each followed by an extract of a page of its world).
const SESSION_SEARCHES: usize = 2;

/// The path of one request, or the session (by creation order) whose view it asks for: session
/// ids are only known once the server made them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Path(String),
    Session(usize),
}

impl Target {
    /// The request's path, given the ids of the sessions opened.
    pub fn path(&self, session_ids: &[String]) -> String {
        match self {
            Target::Path(path) => path.clone(),
            Target::Session(idx) => format!("/ui/sessions/{}", session_ids[*idx]),
        }
    }
}

/// One session to open before the measurement: its world and its calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPlan {
    pub world: u32,
    pub seed: u64,
    /// Queries to search, each followed by an extract of the url beside it.
    pub calls: Vec<(String, String)>,
}

/// Every request of one run.
#[derive(Debug, Clone)]
pub struct Plan {
    pub n_worlds: usize,
    pub n_requests: usize,
    pub seed: u64,
    pub sessions: Vec<SessionPlan>,
    /// Each view with its requests, in measuring order.
    pub views: Vec<(View, Vec<Target>)>,
}

/// What a world offers to link to, read from its file.
struct WorldItems {
    /// Page urls with their titles.
    pages: Vec<(String, String)>,
    /// Domain rows as (table, row id).
    rows: Vec<(String, i64)>,
    tasks: Vec<String>,
}

/// A dataset's worlds, and the items of each world read so far.
struct Catalog {
    dir: PathBuf,
    worlds: Vec<ManifestEntry>,
    themes: Vec<String>,
    items: BTreeMap<u32, WorldItems>,
}

/// Draws every request of a run of `n_requests` per view over the dataset in `dir`.
pub fn plan(dir: &Path, n_requests: usize, seed: u64) -> Result<Plan> {
    let mut catalog = Catalog::open(dir)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let sessions = (0..SESSIONS)
        .map(|idx| catalog.session(idx as u64, &mut rng))
        .collect::<Result<Vec<_>>>()?;
    let mut views = Vec::with_capacity(View::ALL.len());
    for view in View::ALL {
        let targets = (0..n_requests)
            .map(|_| catalog.target(view, &mut rng))
            .collect::<Result<Vec<_>>>()?;
        views.push((view, targets));
    }
    Ok(Plan {
        n_worlds: catalog.worlds.len(),
        n_requests,
        seed,
        sessions,
        views,
    })
}

impl Catalog {
    fn open(dir: &Path) -> Result<Catalog> {
        let manifest = fabula_file::read_manifest(dir).map_err(|source| Error::File {
            what: format!("reading the manifest of {}", dir.display()),
            source,
        })?;
        ensure!(
            !manifest.worlds.is_empty(),
            "{} lists no worlds",
            dir.display()
        );
        let mut worlds = manifest.worlds;
        worlds.sort_by_key(|world| world.id);
        let mut themes: Vec<String> = worlds.iter().map(|world| world.theme.clone()).collect();
        themes.sort_unstable();
        themes.dedup();
        Ok(Catalog {
            dir: dir.to_path_buf(),
            worlds,
            themes,
            items: BTreeMap::new(),
        })
    }

    fn target(&mut self, view: View, rng: &mut ChaCha8Rng) -> Result<Target> {
        let path = match view {
            View::AgentDataset | View::AdminDataset => "/".to_owned(),
            View::AgentThemePage => {
                let theme = &self.themes[rng.random_range(0..self.themes.len())];
                format!("/ui/?theme={}", percent_encode(theme))
            }
            View::World | View::AdminWorld => {
                let world = &self.worlds[rng.random_range(0..self.worlds.len())];
                format!("/ui/worlds/{}", world.id)
            }
            View::Page => {
                let (id, items) = self.pick_world(rng, |world| world.pages)?;
                let (url, _) = pick(&items.pages, rng, id, "pages")?;
                format!("/ui/worlds/{id}/page?url={}", percent_encode(url))
            }
            View::Row => {
                let (id, items) = self.pick_world(rng, |world| world.rows)?;
                let (table, row) = pick(&items.rows, rng, id, "rows")?;
                format!("/ui/worlds/{id}/rows/{}/{row}", percent_encode(table))
            }
            View::Task => {
                let (id, items) = self.pick_world(rng, |world| world.tasks)?;
                let task = pick(&items.tasks, rng, id, "tasks")?;
                format!("/ui/worlds/{id}/tasks/{}", percent_encode(task))
            }
            View::Sessions => "/ui/sessions".to_owned(),
            View::Session => return Ok(Target::Session(rng.random_range(0..SESSIONS))),
        };
        Ok(Target::Path(path))
    }

    /// A session on a random world: searches for page titles, extracts of page urls.
    fn session(&mut self, seed: u64, rng: &mut ChaCha8Rng) -> Result<SessionPlan> {
        let (world, items) = self.pick_world(rng, |world| world.pages)?;
        let mut calls = Vec::with_capacity(SESSION_SEARCHES);
        for _ in 0..SESSION_SEARCHES {
            let (_, title) = pick(&items.pages, rng, world, "pages")?;
            let (url, _) = pick(&items.pages, rng, world, "pages")?;
            calls.push((title.clone(), url.clone()));
        }
        Ok(SessionPlan { world, seed, calls })
    }

    /// A random world among those whose manifest entry counts some of what `count` counts,
    /// with its items (read on first use).
    fn pick_world(
        &mut self,
        rng: &mut ChaCha8Rng,
        count: impl Fn(&ManifestEntry) -> usize,
    ) -> Result<(u32, &WorldItems)> {
        let eligible: Vec<usize> = (0..self.worlds.len())
            .filter(|&idx| count(&self.worlds[idx]) > 0)
            .collect();
        if eligible.is_empty() {
            bail!(
                "no world of {} has what this view shows",
                self.dir.display()
            );
        }
        let world = &self.worlds[eligible[rng.random_range(0..eligible.len())]];
        let id = world.id;
        if !self.items.contains_key(&id) {
            let path = self.dir.join(&world.file);
            let items = read_items(&path).map_err(|source| Error::File {
                what: format!("reading {}", path.display()),
                source,
            })?;
            self.items.insert(id, items);
        }
        Ok((id, &self.items[&id]))
    }
}

/// A random item of a world's list; an error when the list is empty although the manifest
/// counted some.
fn pick<'a, T>(items: &'a [T], rng: &mut ChaCha8Rng, world: u32, what: &str) -> Result<&'a T> {
    ensure!(
        !items.is_empty(),
        "world {world} has no {what}, unlike its manifest entry"
    );
    Ok(&items[rng.random_range(0..items.len())])
}

/// A world's page urls and titles, rows and task ids.
fn read_items(path: &Path) -> fabula_file::Result<WorldItems> {
    let file = WorldFile::open(path)?;
    let pages = (file.page_heads()?.into_iter())
        .map(|head| (head.url, head.title))
        .collect();
    let mut rows = Vec::new();
    for table in file.tables()? {
        let Some(id_idx) = table.columns.iter().position(|c| c.role == ColumnRole::Id) else {
            continue;
        };
        for cells in file.table_rows(&table)? {
            if let Some(Value::Int(row_id)) = cells.get(id_idx) {
                rows.push((table.name.clone(), *row_id));
            }
        }
    }
    let tasks = file.tasks()?.into_iter().map(|task| task.id).collect();
    Ok(WorldItems { pages, rows, tasks })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_urls_are_encoded_whole_as_the_browser_links_them() {
        fn check(text: &str, expect: &str) {
            assert_eq!(percent_encode(text), expect, "{text}");
        }
        check("island-nation", "island-nation");
        check(
            "https://a.example/wiki/Port_Amsel?x=1&y",
            "https%3A%2F%2Fa.example%2Fwiki%2FPort_Amsel%3Fx%3D1%26y",
        );
        check("a b~c.d", "a%20b~c.d");
        check("Ærø", "%C3%86r%C3%B8");
    }

    #[test]
    fn session_views_name_sessions_by_creation_order() {
        let ids = ["s_a".to_owned(), "s_b".to_owned()];
        assert_eq!(Target::Session(1).path(&ids), "/ui/sessions/s_b");
        assert_eq!(
            Target::Path("/ui/sessions".into()).path(&ids),
            "/ui/sessions"
        );
    }

    #[test]
    fn every_view_is_on_one_listener_and_named_once() {
        let mut labels: Vec<&str> = View::ALL.iter().map(|view| view.label()).collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), View::ALL.len());
        let admin = View::ALL
            .iter()
            .filter(|view| view.listener() == Listener::Admin)
            .count();
        assert_eq!(admin, 5);
    }
}
