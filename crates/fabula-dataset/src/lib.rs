//! Generating a dataset: many worlds into one directory, with a manifest, in parallel, resumably.
//! This crate sits above the pipeline it drives: it generates each world (`fabula_world`),
//! renders its pages (`fabula_pages`) and builds its tasks (`fabula_tasks`) through
//! [`FullRenderer`], and writes the world file; the stages below know nothing of datasets.
//!
//! Before a world's file is written, its pages are indexed in memory and every task's question
//! is searched there, so its tier (`fabula_tasks::difficulty`) is measured with the answer's
//! showing in the results and stored in the file. The same index is then persisted (unless
//! [`GenerateConfig::write_indexes`] is off) under the finished file's key, as `fabula index`
//! would write it, so a server is fast from its first request.
//!
//! Each world is written to a temporary file in the output directory, synced and renamed into
//! place, and recorded in a progress journal (`.progress.jsonl`). The manifest is written last, also
//! by rename. A run that was killed leaves only finished files under final names; the next run keeps
//! those whose hashes match the journal or manifest and redoes the rest. Worlds are independent, so
//! the bytes of each file depend only on (master seed, world id, versions), whatever `jobs` or
//! `shard` say. The manifest's types are those of [`fabula_file`], re-exported here.
//!
//! A sharded run (`--shard I/K`) writes its manifest as `manifest.shard-I-of-K.json` and its journal
//! as `.progress.shard-I-of-K.jsonl`, and touches no temporary file of another shard, so the `K`
//! shards of a dataset can run at once into one shared directory (a cluster's shared filesystem).
//! [`merge_shards`] then joins their manifests into the `manifest.json` of an unsharded run.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

use rayon::prelude::*;

pub use fabula_file::{
    MANIFEST, Manifest, ManifestEntry, parse_shard_manifest_name, shard_manifest_name,
    world_file_name,
};

use fabula_file::{Page, Task, Tier};
use fabula_search::{BuiltIndex, IndexKey, SearchOptions, WorldIndex};
use fabula_tasks::difficulty;

use fabula_world::theme::{self, Theme};
use fabula_world::{FORMAT_VERSION, GENERATOR_VERSION, World, generate_world, write_world};

mod error;

pub use error::{Error, Result};

const JOURNAL: &str = ".progress.jsonl";

/// Renders the pages and tasks of a world: [`FullRenderer`], or a stand-in (tests, bare worlds).
pub trait Renderer: Sync {
    /// A version string that changes whenever the same world would render differently.
    fn version(&self) -> String;
    /// Renders pages and tasks.
    fn render(&self, world: &World) -> (Vec<Page>, Vec<Task>);
}

/// Renders pages with `fabula_pages` and then builds tasks from them.
pub struct FullRenderer;

impl Renderer for FullRenderer {
    fn version(&self) -> String {
        format!("{}+{}", fabula_pages::version(), fabula_tasks::version())
    }

    fn render(&self, world: &World) -> (Vec<Page>, Vec<Task>) {
        let pages = fabula_pages::render_pages(world);
        let tasks = fabula_tasks::build_tasks(world, &pages);
        (pages, tasks)
    }
}

/// A renderer that writes no pages and no tasks: bare domain worlds.
pub struct NoPages;

impl Renderer for NoPages {
    fn version(&self) -> String {
        "bare".to_string()
    }
    fn render(&self, _world: &World) -> (Vec<Page>, Vec<Task>) {
        (Vec::new(), Vec::new())
    }
}

/// Which part of a dataset one run writes: the worlds with `id % total == index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub total: u32,
}

impl Shard {
    /// Whether world `id` belongs to this shard.
    pub fn contains(&self, id: u32) -> bool {
        id % self.total == self.index
    }
}

impl std::str::FromStr for Shard {
    type Err = Error;

    fn from_str(s: &str) -> Result<Shard> {
        let bad = || {
            Error::BadInput(format!(
                "--shard `{s}` must be I/N with 0 <= I < N, e.g. 0/4"
            ))
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let total: u32 = n.trim().parse().map_err(|_| bad())?;
        if total == 0 || index >= total {
            return Err(bad());
        }
        Ok(Shard { index, total })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.total)
    }
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenerateConfig {
    pub count: u32,
    pub master_seed: u64,
    pub out: PathBuf,
    pub jobs: usize,
    pub shard: Option<Shard>,
    /// Replace a directory that holds another seed's or version's worlds.
    pub force: bool,
    /// Restrict themes to these ids; empty means every theme.
    pub themes: Vec<String>,
    /// Persist each world's search index (`DIR/index/`) beside its file.
    pub write_indexes: bool,
}

/// The outcome of a run.
#[derive(Debug, Clone)]
pub struct Summary {
    pub worlds: usize,
    /// Worlds kept from an earlier run because their hashes matched.
    pub kept: usize,
    pub rows: usize,
    pub pages: usize,
    pub tasks: usize,
}

/// The full generator version of a dataset: the world generator's and the renderer's.
pub fn dataset_version(renderer: &dyn Renderer) -> String {
    format!("{GENERATOR_VERSION}/{}", renderer.version())
}

/// Resolves the theme filter into themes, in index order.
pub fn select_themes(names: &[String]) -> Result<Vec<Theme>> {
    let all = theme::all()?;
    if names.is_empty() {
        return Ok(all);
    }
    for name in names {
        theme::by_name(name)?;
    }
    Ok(all.into_iter().filter(|t| names.contains(&t.id)).collect())
}

/// The manifest this run writes: `manifest.json`, or the shard's own.
fn manifest_name(shard: Option<Shard>) -> String {
    match shard {
        Some(s) => shard_manifest_name(s.index, s.total),
        None => MANIFEST.to_string(),
    }
}

/// The progress journal this run writes: `.progress.jsonl`, or the shard's own.
fn journal_name(shard: Option<Shard>) -> String {
    match shard {
        Some(s) => format!(".progress.shard-{}-of-{}.jsonl", s.index, s.total),
        None => JOURNAL.to_string(),
    }
}

/// Checks the directory's manifests against this run and returns the entries to keep: the
/// entries of `manifest.json` and, for a shard, of its own manifest, then its journal's.
fn earlier_entries(
    cfg: &GenerateConfig,
    version: &str,
    themes: &[String],
) -> Result<BTreeMap<u32, ManifestEntry>> {
    let mut entries = BTreeMap::new();
    let mut names = vec![MANIFEST.to_string()];
    if cfg.shard.is_some() {
        names.push(manifest_name(cfg.shard));
    }
    for name in names {
        let Some(m) = read_if_present(&cfg.out.join(&name))? else {
            continue;
        };
        let same = m.master_seed == cfg.master_seed
            && m.generator_version == version
            && m.themes == themes;
        if same {
            entries.extend(m.worlds.into_iter().map(|e| (e.id, e)));
        } else if cfg.force {
            forget(cfg, &m, &name);
        } else {
            return Err(Error::ManifestMismatch {
                dir: cfg.out.clone(),
                seed: m.master_seed,
                version: m.generator_version,
            });
        }
    }
    // The journal of an interrupted run: its first line names the run, the rest its finished worlds.
    if let Ok(text) = fs::read_to_string(cfg.out.join(journal_name(cfg.shard))) {
        let mut lines = text.lines();
        let header = lines.next().unwrap_or_default();
        if header == journal_header(cfg.master_seed, version, themes) {
            // A torn last line (a kill mid-write) simply fails to parse and is redone.
            for line in lines {
                if let Ok(e) = serde_json::from_str::<ManifestEntry>(line) {
                    entries.insert(e.id, e);
                }
            }
        }
    }
    Ok(entries)
}

/// Reads a manifest, or `None` when there is no such file.
fn read_if_present(path: &Path) -> Result<Option<Manifest>> {
    match fabula_file::read_manifest_file(path) {
        Ok(m) => Ok(Some(m)),
        Err(fabula_file::Error::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// Removes a stale manifest (`name`) of another seed or version, the worlds of this run that it
/// lists, and this run's journal, so that no stale world is mistaken for a new one. A shard leaves
/// the other shards' worlds alone: they may be running at the same time.
fn forget(cfg: &GenerateConfig, stale: &Manifest, name: &str) {
    for e in &stale.worlds {
        if cfg.shard.is_none_or(|s| s.contains(e.id)) {
            let _ = fs::remove_file(cfg.out.join(&e.file));
        }
    }
    let _ = fs::remove_file(cfg.out.join(name));
    let _ = fs::remove_file(cfg.out.join(journal_name(cfg.shard)));
}

fn journal_header(seed: u64, version: &str, themes: &[String]) -> String {
    format!(
        "fabula-journal seed={seed} version={version} themes={}",
        themes.join(",")
    )
}

/// Generates a dataset. `progress` is called once per finished world.
pub fn generate_dataset(
    cfg: &GenerateConfig,
    renderer: &dyn Renderer,
    progress: &(dyn Fn() + Sync),
) -> Result<Summary> {
    if cfg.count == 0 {
        return Err(Error::BadInput("--count must be at least 1".into()));
    }
    let themes = select_themes(&cfg.themes)?;
    let mut theme_filter = cfg.themes.clone();
    theme_filter.sort();
    theme_filter.dedup();
    let version = dataset_version(renderer);
    prepare_dir(&cfg.out, cfg.shard)?;
    let earlier = earlier_entries(cfg, &version, &theme_filter)?;

    let ids: Vec<u32> = (0..cfg.count)
        .filter(|&id| cfg.shard.is_none_or(|s| s.contains(id)))
        .collect();
    let header = journal_header(cfg.master_seed, &version, &theme_filter);
    let journal = Journal::create(cfg.out.join(journal_name(cfg.shard)), &header)?;
    let mut results = keep_finished(cfg, &ids, &earlier, &journal, progress)?;
    let kept = results.len();
    let todo: Vec<u32> = ids
        .iter()
        .copied()
        .filter(|id| !results.contains_key(id))
        .collect();
    for entry in build_all(cfg, &todo, &themes, renderer, &journal, progress)? {
        results.insert(entry.id, entry);
    }
    let journal_path = journal.close();

    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        generator_version: version,
        master_seed: cfg.master_seed,
        count: cfg.count,
        shard: cfg.shard.map(|s| s.to_string()),
        themes: theme_filter,
        worlds: results.into_values().collect(),
    };
    let summary = Summary {
        worlds: manifest.worlds.len(),
        kept,
        rows: manifest.worlds.iter().map(|w| w.rows).sum(),
        pages: manifest.worlds.iter().map(|w| w.pages).sum(),
        tasks: manifest.worlds.iter().map(|w| w.tasks).sum(),
    };
    write_atomically(
        &cfg.out.join(manifest_name(cfg.shard)),
        manifest.to_json().as_bytes(),
    )?;
    let _ = fs::remove_file(&journal_path);
    Ok(summary)
}

/// Creates the output directory and removes the temporary files that killed runs of this shard
/// (or, unsharded, of any run) left; they never carry a final name.
fn prepare_dir(out: &Path, shard: Option<Shard>) -> Result<()> {
    fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    for entry in fs::read_dir(out).map_err(|e| Error::io(out, e))?.flatten() {
        if owns_tmp(shard, &entry.file_name().to_string_lossy()) {
            let _ = fs::remove_file(entry.path());
        }
    }
    Ok(())
}

/// Whether `name` is a temporary file of a run of `shard`: one of [`tmp_path`]'s names for its
/// manifest or for one of its worlds. Another shard's temporary files may be in use.
fn owns_tmp(shard: Option<Shard>, name: &str) -> bool {
    if !name.ends_with(".tmp") {
        return false;
    }
    let Some(s) = shard else { return true };
    if name.starts_with(&format!(".{}.", manifest_name(shard))) {
        return true;
    }
    name.strip_prefix(".world-")
        .and_then(|rest| rest.split_once(".sqlite."))
        .and_then(|(id, _)| id.parse::<u32>().ok())
        .is_some_and(|id| s.contains(id))
}

/// What [`merge_shards`] joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeSummary {
    /// The number of shards, `K`.
    pub shards: u32,
    pub worlds: usize,
}

/// Joins the manifests of all `K` shards that sharded runs wrote into `dir`
/// (`manifest.shard-I-of-K.json`) into `dir/manifest.json`, written atomically and byte-identical
/// to the manifest of an unsharded run of the same seed, count and themes. Refuses, naming the
/// problem, when the shards disagree (see [`Manifest::merge`]), when shards of different `K` are
/// mixed, when a shard manifest's name and contents differ, or when a listed world file is
/// missing. The shard manifests are removed afterwards unless `keep_shards`.
pub fn merge_shards(dir: &Path, keep_shards: bool) -> Result<MergeSummary> {
    let names = shard_manifest_names(dir)?;
    let mut shards = Vec::with_capacity(names.len());
    for (name, (index, total)) in &names {
        let m = fabula_file::read_manifest_file(&dir.join(name))?;
        let said = format!("{index}/{total}");
        if m.shard.as_deref() != Some(said.as_str()) {
            return Err(refuse(
                dir,
                format!(
                    "{name} holds shard {:?}, not {said}",
                    m.shard.as_deref().unwrap_or("none")
                ),
            ));
        }
        shards.push(m);
    }
    let merged = Manifest::merge(&shards).map_err(|reason| refuse(dir, reason))?;
    if let Some(e) = merged.worlds.iter().find(|e| !dir.join(&e.file).is_file()) {
        return Err(refuse(dir, format!("world file {} is missing", e.file)));
    }
    write_atomically(&dir.join(MANIFEST), merged.to_json().as_bytes())?;
    if !keep_shards {
        for (name, _) in &names {
            fs::remove_file(dir.join(name)).map_err(|e| Error::io(dir.join(name), e))?;
        }
    }
    Ok(MergeSummary {
        shards: names.first().map_or(0, |(_, (_, total))| *total),
        worlds: merged.worlds.len(),
    })
}

/// The shard manifests in `dir` with their shards `(I, K)`, in name order; an error when there
/// are none or when they are shards of different `K`.
fn shard_manifest_names(dir: &Path) -> Result<Vec<(String, (u32, u32))>> {
    let mut names: Vec<(String, (u32, u32))> = fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            parse_shard_manifest_name(&name).map(|shard| (name, shard))
        })
        .collect();
    names.sort();
    let Some((_, (_, total))) = names.first() else {
        return Err(refuse(
            dir,
            "there are no shard manifests (manifest.shard-I-of-K.json): \
             run `fabula generate --shard I/K` into it first",
        ));
    };
    if let Some((other, _)) = names.iter().find(|(_, (_, t))| t != total) {
        return Err(refuse(
            dir,
            format!(
                "{} and {other} are shards of different splits; remove the stale ones",
                names[0].0
            ),
        ));
    }
    Ok(names)
}

/// A refused merge of the shard manifests in `dir`.
fn refuse(dir: &Path, reason: impl Into<String>) -> Error {
    Error::ShardMerge {
        dir: dir.to_path_buf(),
        reason: reason.into(),
    }
}

/// The progress journal of a run: a header line naming the run, then one manifest entry per
/// finished world, appended as each finishes.
struct Journal {
    path: PathBuf,
    file: Mutex<fs::File>,
}

impl Journal {
    fn create(path: PathBuf, header: &str) -> Result<Journal> {
        let mut file = fs::File::create(&path).map_err(|e| Error::io(&path, e))?;
        writeln!(file, "{header}").map_err(|e| Error::io(&path, e))?;
        Ok(Journal {
            path,
            file: Mutex::new(file),
        })
    }

    fn record(&self, entry: &ManifestEntry) -> Result<()> {
        let line = serde_json::to_string(entry).expect("serialisable");
        let mut file = self.file.lock().expect("lock");
        writeln!(file, "{line}").map_err(|e| Error::io(&self.path, e))
    }

    /// Closes the file and returns its path.
    fn close(self) -> PathBuf {
        self.path
    }
}

/// The worlds of `ids` that an earlier run finished and that are still intact, recorded in the
/// fresh journal straight away.
fn keep_finished(
    cfg: &GenerateConfig,
    ids: &[u32],
    earlier: &BTreeMap<u32, ManifestEntry>,
    journal: &Journal,
    progress: &(dyn Fn() + Sync),
) -> Result<BTreeMap<u32, ManifestEntry>> {
    let mut kept = BTreeMap::new();
    for id in ids {
        let Some(e) = earlier.get(id) else { continue };
        let path = cfg.out.join(&e.file);
        if path.exists() && fabula_file::sha256_file(&path)? == e.sha256 {
            // A manifest written before sizes were recorded gets this one's.
            let mut e = e.clone();
            e.bytes = Some(fs::metadata(&path).map_err(|s| Error::io(&path, s))?.len());
            journal.record(&e)?;
            kept.insert(*id, e);
            progress();
        }
    }
    Ok(kept)
}

/// Builds the worlds of `todo` on `cfg.jobs` threads and journals each as it finishes. After a
/// failure (or a panic) no further world is started; the error of the lowest failed id is
/// returned. The entries come back in the order of `todo`.
///
/// The workers only compute: a world's file is written to its temporary name, and a thread of
/// its own ([`finish_all`]) syncs it, renames it into place, persists its index and journals it,
/// so no core waits on the disk while there is a world to build. The queue between them holds
/// at most `2 * jobs` built worlds, which bounds the memory their indexes take.
fn build_all(
    cfg: &GenerateConfig,
    todo: &[u32],
    themes: &[Theme],
    renderer: &dyn Renderer,
    journal: &Journal,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<ManifestEntry>> {
    let jobs = cfg.jobs.max(1).min(todo.len().max(1));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).build()?;
    let failed = AtomicBool::new(false);
    let (send, receive) = mpsc::sync_channel::<Built>(2 * jobs);
    let mut outcomes: Vec<(u32, Result<ManifestEntry>)> = std::thread::scope(|scope| {
        let finisher = scope.spawn(|| finish_all(cfg, receive, journal, progress, &failed));
        let mut outcomes: Vec<(u32, Result<ManifestEntry>)> = pool.install(|| {
            todo.par_iter()
                .filter_map(|&id| {
                    if failed.load(Ordering::Relaxed) {
                        return None;
                    }
                    let _stop = StopOnPanic(&failed);
                    match build_one(cfg, id, themes, renderer) {
                        // The finisher only stops once every sender is gone, or by a panic.
                        Ok(built) => match send.send(built) {
                            Ok(()) => None,
                            Err(_) => Some((id, Err(Error::FinisherStopped))),
                        },
                        Err(error) => {
                            failed.store(true, Ordering::Relaxed);
                            Some((id, Err(error)))
                        }
                    }
                })
                .collect()
        });
        drop(send);
        let finished = finisher
            .join()
            .unwrap_or_else(|_| vec![(u32::MAX, Err(Error::FinisherStopped))]);
        outcomes.extend(finished);
        outcomes
    });
    outcomes.sort_by_key(|(id, _)| *id);
    outcomes.into_iter().map(|(_, outcome)| outcome).collect()
}

/// A world built and written to its temporary file, waiting to be finished.
struct Built {
    id: u32,
    tmp: PathBuf,
    path: PathBuf,
    index: BuiltIndex,
    entry: ManifestEntry,
}

/// Finishes the worlds that arrive on `receive` until every worker has stopped: syncs each file,
/// renames it into place, persists its index (when asked) and journals it. A world that fails
/// raises `failed`, so no further world is started; the others are still finished.
fn finish_all(
    cfg: &GenerateConfig,
    receive: mpsc::Receiver<Built>,
    journal: &Journal,
    progress: &(dyn Fn() + Sync),
    failed: &AtomicBool,
) -> Vec<(u32, Result<ManifestEntry>)> {
    let _stop = StopOnPanic(failed);
    let mut finished = Vec::new();
    for built in receive {
        let id = built.id;
        let outcome =
            finish_one(cfg, built).and_then(|entry| journal.record(&entry).map(|()| entry));
        match &outcome {
            Ok(_) => progress(),
            Err(_) => failed.store(true, Ordering::Relaxed),
        }
        finished.push((id, outcome));
    }
    finished
}

/// Syncs a built world's file, renames it into place and persists its index when asked.
fn finish_one(cfg: &GenerateConfig, built: Built) -> Result<ManifestEntry> {
    let Built {
        id,
        tmp,
        path,
        index,
        entry,
    } = built;
    fs::File::open(&tmp)
        .and_then(|f| f.sync_all())
        .map_err(|e| Error::io(&tmp, e))?;
    fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
    if cfg.write_indexes {
        let key = IndexKey {
            world_id: id,
            sha256: &entry.sha256,
        };
        index
            .write(&fabula_search::index_path(&cfg.out, &path), key)
            .map_err(|source| Error::Index { id, source })?;
    }
    Ok(entry)
}

/// Raises a flag when dropped by a panicking thread, so that the other workers stop.
struct StopOnPanic<'a>(&'a AtomicBool);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

/// Writes bytes to a temporary sibling, syncs it and renames it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = tmp_path(path);
    let mut file = fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    file.write_all(bytes).map_err(|e| Error::io(&tmp, e))?;
    file.sync_all().map_err(|e| Error::io(&tmp, e))?;
    fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

fn tmp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Measures every task's tier with its world's index: the features of the task and of the
/// first page of results for its question. Only a task whose tier the results could change
/// ([`difficulty::Features::results_matter`]) is searched.
fn measure_tiers(index: &WorldIndex, tasks: &mut [Task]) -> fabula_search::Result<()> {
    for task in tasks {
        let frontier = task.tier == Tier::Frontier;
        if !difficulty::measure_known(task, None, frontier).results_matter() {
            continue;
        }
        let hits = index
            .search(&task.question, &SearchOptions::FIRST_PAGE)?
            .hits;
        let results = difficulty::join_results(
            hits.iter()
                .map(|h| difficulty::result_text(&h.title, &h.snippet, &h.url, h.date.as_deref())),
        );
        task.tier = difficulty::measure_known(task, Some(&results), false).tier();
    }
    Ok(())
}

/// Generates and renders one world, measures its tasks' tiers with its index and writes its
/// file to a temporary name, for [`finish_one`] to sync and rename.
fn build_one(
    cfg: &GenerateConfig,
    id: u32,
    themes: &[Theme],
    renderer: &dyn Renderer,
) -> Result<Built> {
    let world = generate_world(cfg.master_seed, id, themes);
    let (pages, mut tasks) = renderer.render(&world);
    let file = world_file_name(id);
    let path = cfg.out.join(&file);
    let index_error = |source| Error::Index { id, source };
    let index = BuiltIndex::build(&path, &pages, Some(&world.name)).map_err(index_error)?;
    measure_tiers(&index.open(&path).map_err(index_error)?, &mut tasks).map_err(index_error)?;
    let tmp = tmp_path(&path);
    let _ = fs::remove_file(&tmp);
    write_world(&tmp, &world, &pages, &tasks)?;
    let sha256 = fabula_file::sha256_file(&tmp)?;
    let bytes = fs::metadata(&tmp)
        .map_err(|source| Error::io(&tmp, source))?
        .len();
    let entry = ManifestEntry {
        id,
        file,
        sha256,
        bytes: Some(bytes),
        theme: world.theme.id.clone(),
        name: world.name.clone(),
        rows: world.n_rows(),
        tables: world.n_tables(),
        pages: pages.len(),
        tasks: tasks.len(),
    };
    Ok(Built {
        id,
        tmp,
        path,
        index,
        entry,
    })
}
