//! Persisted indexes: a world opened from its index file answers exactly like one indexed from
//! its file; missing, stale and damaged index files are rebuilt; an index folder that cannot be
//! written costs nothing but speed; the cache of open worlds stays bounded; concurrent first uses
//! build once; a reopened world's index is checked again when its file changed; `ensure_index`
//! keeps fresh indexes and writes the others.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};

use fabula_search::{
    Corpus, CorpusOptions, Error, Extract, Hiding, INDEX_FORMAT_VERSION, IndexState, SearchOptions,
    SearchResults, WorldIndex,
};

use crate::fixture::{FixturePage, generate_pages, write_manifest, write_world};
use crate::logs::logged;
use crate::queries_for;

/// A corpus directory of `n_worlds` generated worlds of about 60 pages, ids from 0.
pub(crate) fn corpus_dir(n_worlds: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut listed = Vec::new();
    for id in 0..n_worlds {
        let pages = generate_pages(u64::from(id) + 100, 60);
        let file = fabula_file::world_file_name(id);
        write_world(&dir.path().join(&file), id, "Delta", &pages);
        listed.push((id, file, pages.len()));
    }
    let listed: Vec<(u32, &str, &str, usize)> = listed
        .iter()
        .map(|(id, file, n_pages)| (*id, file.as_str(), "Delta", *n_pages))
        .collect();
    write_manifest(dir.path(), &listed);
    dir
}

pub(crate) fn pages_of(id: u32) -> Vec<FixturePage> {
    generate_pages(u64::from(id) + 100, 60)
}

pub(crate) fn options(max_open_worlds: usize, write_indexes: bool) -> CorpusOptions {
    CorpusOptions {
        max_open_worlds,
        write_indexes,
    }
}

/// Everything a world answers: every query at every hiding level and two result pages, and
/// every page extracted whole and in windows.
#[derive(Debug, PartialEq)]
struct Answers {
    name: Option<String>,
    urls: Vec<String>,
    results: Vec<SearchResults>,
    extracts: Vec<Extract>,
}

fn answers(world: &WorldIndex, pages: &[FixturePage]) -> Answers {
    let mut results = Vec::new();
    for query in queries_for(pages) {
        for hiding in Hiding::ALL {
            for offset in [0, 10] {
                let opts = SearchOptions {
                    top_k: 10,
                    offset,
                    hiding,
                };
                results.push(world.search(&query, &opts).unwrap());
            }
        }
    }
    let mut extracts = Vec::new();
    for url in world.urls() {
        extracts.push(world.extract(url, 0, 100_000).unwrap());
        extracts.push(world.extract(url, 40, 120).unwrap());
    }
    Answers {
        name: world.name().map(str::to_owned),
        urls: world.urls().map(str::to_owned).collect(),
        results,
        extracts,
    }
}

/// The answers of world `id` indexed in memory from its file, as today.
fn fresh_answers(dir: &Path, id: u32) -> Answers {
    let path = dir.join(fabula_file::world_file_name(id));
    answers(&WorldIndex::open(&path).unwrap(), &pages_of(id))
}

#[test]
fn a_persisted_index_answers_like_a_fresh_one() {
    let dir = corpus_dir(1);
    let writer = Corpus::open(dir.path()).unwrap();
    let built = writer.world(0).unwrap();
    assert_eq!(writer.builds(), 1);
    let index_path = writer.index_path(0).unwrap();
    assert_eq!(index_path, dir.path().join("index/world-00000.fidx"));
    assert!(index_path.is_file());

    let reader = Corpus::open(dir.path()).unwrap();
    let persisted = reader.world(0).unwrap();
    assert_eq!(reader.builds(), 0, "opened from the index file");
    let info = reader.info(0).unwrap();
    let direct = WorldIndex::open_persisted(&index_path, &info.file, info.index_key()).unwrap();

    let expect = fresh_answers(dir.path(), 0);
    assert!(
        expect
            .results
            .iter()
            .any(|results| !results.hits.is_empty())
    );
    assert_eq!(expect.name.as_deref(), Some("Delta"));
    for world in [&built, &persisted, &Arc::new(direct)] {
        assert_eq!(world.path(), info.file);
        assert_eq!(world.page_count(), pages_of(0).len());
        assert!(answers(world, &pages_of(0)) == expect);
    }
}

#[test]
fn indexes_are_the_same_bytes_every_time() {
    let dir = corpus_dir(2);
    let corpus = Corpus::open(dir.path()).unwrap();
    let mut first = Vec::new();
    for id in [0, 1] {
        assert_eq!(corpus.ensure_index(id).unwrap(), IndexState::Built);
        first.push(std::fs::read(corpus.index_path(id).unwrap()).unwrap());
    }
    assert_ne!(first[0], first[1]);
    std::fs::remove_dir_all(dir.path().join("index")).unwrap();
    for id in [0, 1] {
        assert_eq!(corpus.ensure_index(id).unwrap(), IndexState::Built);
        let again = std::fs::read(corpus.index_path(id).unwrap()).unwrap();
        assert!(again == first[id as usize], "world {id}'s index changed");
    }
}

/// Writes world 0's index, damages it with `damage` (given the index file and the corpus
/// directory), and asserts that a new corpus logs `expect_log` (a level and a phrase), rebuilds
/// the index once, answers like a fresh index of the world file as it now is, and leaves a fresh
/// index behind.
#[track_caller]
fn check_damage(damage: impl FnOnce(&Path, &Path), expect_log: [&str; 2]) {
    let dir = corpus_dir(2);
    let index_path = {
        let corpus = Corpus::open(dir.path()).unwrap();
        assert_eq!(corpus.ensure_index(0).unwrap(), IndexState::Built);
        assert_eq!(corpus.ensure_index(1).unwrap(), IndexState::Built);
        corpus.index_path(0).unwrap()
    };
    damage(&index_path, dir.path());
    let corpus = Corpus::open(dir.path()).unwrap();
    let (world, log) = logged(|| corpus.world(0).unwrap());
    assert_eq!(log.lines().count(), 1, "{log}");
    for part in expect_log.into_iter().chain(["world=0"]) {
        assert!(log.contains(part), "{part:?} not in {log}");
    }
    assert_eq!(corpus.builds(), 1);
    // Queries from both versions of world 0, since one case rewrites its file with other pages;
    // every fifth page's, to keep the ten cases quick.
    let pages: Vec<FixturePage> = pages_of(0)
        .into_iter()
        .chain(other_pages())
        .step_by(5)
        .collect();
    let expect = answers(
        &WorldIndex::open(&dir.path().join("world-00000.sqlite")).unwrap(),
        &pages,
    );
    assert!(answers(&world, &pages) == expect);
    assert_eq!(corpus.ensure_index(0).unwrap(), IndexState::Fresh);
    assert_eq!(corpus.builds(), 1);
}

fn other_pages() -> Vec<FixturePage> {
    generate_pages(999, 40)
}

/// Rewrites `len` bytes of a file at `at`.
fn patch(path: &Path, at: usize, bytes: &[u8]) {
    let mut file = std::fs::read(path).unwrap();
    file[at..at + bytes.len()].copy_from_slice(bytes);
    std::fs::write(path, file).unwrap();
}

#[test]
fn damaged_and_stale_indexes_are_rebuilt() {
    let corrupt = ["WARN", "unusable persisted index"];
    let stale = ["INFO", "stale persisted index"];
    check_damage(|path, _| std::fs::write(path, b"").unwrap(), corrupt);
    check_damage(
        |path, _| {
            let bytes = std::fs::read(path).unwrap();
            std::fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
        },
        corrupt,
    );
    check_damage(
        |path, _| {
            let bytes = std::fs::read(path).unwrap();
            std::fs::write(path, &bytes[..60]).unwrap();
        },
        corrupt,
    );
    check_damage(
        |path, _| {
            let len = std::fs::metadata(path).unwrap().len() as usize;
            patch(path, len / 2, b"\xde\xad\xbe\xef");
        },
        corrupt,
    );
    check_damage(
        |path, _| std::fs::write(path, b"not an index at all".repeat(10)).unwrap(),
        corrupt,
    );
    check_damage(
        |path, _| patch(path, 8, &(INDEX_FORMAT_VERSION + 1).to_le_bytes()),
        ["INFO", "format version"],
    );
    check_damage(|path, _| patch(path, 16, b"0000"), stale);
    check_damage(
        |path, dir| {
            std::fs::copy(dir.join("index/world-00001.fidx"), path)
                .map(drop)
                .unwrap()
        },
        ["INFO", "built for world 1, expected 0"],
    );
    // The world file regenerated with other pages and the manifest updated: the old index is
    // stale, and the new one answers for the new pages.
    check_damage(
        |_, dir| {
            let file = dir.join("world-00000.sqlite");
            std::fs::remove_file(&file).unwrap();
            write_world(&file, 0, "Delta", &other_pages());
            write_manifest(
                dir,
                &[
                    (0, "world-00000.sqlite", "Delta", other_pages().len()),
                    (1, "world-00001.sqlite", "Delta", pages_of(1).len()),
                ],
            );
        },
        ["INFO", "built for world file sha256"],
    );
    check_damage(
        |path, _| std::fs::remove_file(path).unwrap(),
        ["INFO", "no persisted index"],
    );
}

#[test]
fn an_index_folder_that_cannot_be_written_still_serves() {
    let dir = corpus_dir(2);
    // A plain file where the index folder should be: no index can be written, even as root.
    std::fs::write(dir.path().join("index"), b"in the way").unwrap();
    let corpus = Corpus::open(dir.path()).unwrap();
    let (worlds, log) = logged(|| [corpus.world(0).unwrap(), corpus.world(1).unwrap()]);
    for (id, world) in (0..).zip(&worlds) {
        assert!(answers(world, &pages_of(id)) == fresh_answers(dir.path(), id));
    }
    let warnings: Vec<&str> = log.lines().filter(|line| line.contains("WARN")).collect();
    assert_eq!(warnings.len(), 1, "logged once per corpus: {log}");
    assert!(warnings[0].contains("cannot write an index"), "{log}");
    assert!(corpus.unavailable().is_empty());
    let err = corpus.ensure_index(0).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err}");
}

#[test]
fn indexes_are_not_written_when_the_options_say_so() {
    let dir = corpus_dir(1);
    let corpus = Corpus::open_with(dir.path(), options(4, false)).unwrap();
    let world = corpus.world(0).unwrap();
    assert!(!dir.path().join("index").exists());
    assert!(answers(&world, &pages_of(0)) == fresh_answers(dir.path(), 0));
    // `ensure_index` writes whatever the options say.
    assert_eq!(corpus.ensure_index(0).unwrap(), IndexState::Built);
    assert!(corpus.index_path(0).unwrap().is_file());
}

/// One search every world of the fixture matches.
fn query(world: &WorldIndex) -> SearchResults {
    world
        .search("river city population", &SearchOptions::default())
        .unwrap()
}

#[test]
fn open_worlds_are_bounded() {
    let dir = corpus_dir(5);
    let corpus = Corpus::open_with(dir.path(), options(2, true)).unwrap();
    let held = corpus.world(0).unwrap();
    let mut first = Vec::new();
    for id in 0..5 {
        first.push(query(&corpus.world(id).unwrap()));
        assert!(corpus.loaded_count() <= 2, "{}", corpus.loaded_count());
    }
    assert_eq!(corpus.builds(), 5);
    assert_eq!(corpus.loaded_count(), 2);
    assert!(corpus.world_if_used(0).is_none(), "world 0 was closed");
    assert_eq!(
        query(&held),
        first[0],
        "a closed world still answers its holders"
    );
    for id in 0..5 {
        assert_eq!(query(&corpus.world(id).unwrap()), first[id as usize]);
    }
    assert_eq!(
        corpus.builds(),
        5,
        "closed worlds reopen from their indexes"
    );
    assert!(corpus.loaded_count() <= 2);
    let reopened = corpus.world(4).unwrap();
    assert!(Arc::ptr_eq(
        &reopened,
        &corpus.world_if_used(4).unwrap().unwrap()
    ));
}

/// A reopened world skips the checksum only while its index file is the one verified before:
/// an index damaged while its world was closed is found and rebuilt.
#[test]
fn an_index_damaged_while_its_world_is_closed_is_rebuilt() {
    let dir = corpus_dir(2);
    let corpus = Corpus::open_with(dir.path(), options(1, true)).unwrap();
    let first = query(&corpus.world(0).unwrap());
    corpus.world(1).unwrap();
    assert_eq!(corpus.loaded_count(), 1);
    assert!(corpus.world_if_used(0).is_none(), "world 0 was closed");
    assert_eq!(corpus.builds(), 2);

    let path = corpus.index_path(0).unwrap();
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    patch(&path, len - 16, &[0xAB; 8]);
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
    file.set_modified(later).unwrap();
    drop(file);
    assert_eq!(query(&corpus.world(0).unwrap()), first);
    assert_eq!(corpus.builds(), 3, "the damaged index was rebuilt");
}

/// Asks for world 1 from `n_threads` threads at once and returns what they got.
fn ask_at_once(corpus: &Corpus, n_threads: usize) -> Vec<Arc<WorldIndex>> {
    let barrier = Barrier::new(n_threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n_threads)
            .map(|_| {
                scope.spawn(|| {
                    barrier.wait();
                    corpus.world(1).unwrap()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .collect()
    })
}

#[test]
fn concurrent_first_uses_build_once() {
    let dir = corpus_dir(2);
    for (round, expect_builds) in [(0, 1), (1, 0)] {
        let corpus = Corpus::open(dir.path()).unwrap();
        let worlds = ask_at_once(&corpus, 8);
        assert_eq!(corpus.builds(), expect_builds, "round {round}");
        for world in &worlds {
            assert!(Arc::ptr_eq(world, &worlds[0]));
        }
        assert_eq!(corpus.loaded_count(), 1);
    }
}

#[test]
fn ensure_index_keeps_fresh_indexes_and_writes_the_others() {
    let dir = corpus_dir(4);
    let corpus = &Corpus::open_with(dir.path(), options(8, false)).unwrap();
    let states: Vec<IndexState> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|id| scope.spawn(move || corpus.ensure_index(id).unwrap()))
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .collect()
    });
    assert_eq!(states, [IndexState::Built; 4]);
    assert_eq!(corpus.builds(), 4);
    assert_eq!(corpus.loaded_count(), 0, "ensure_index opens nothing");
    for id in 0..4 {
        assert_eq!(corpus.ensure_index(id).unwrap(), IndexState::Fresh);
    }
    std::fs::write(corpus.index_path(2).unwrap(), b"damaged").unwrap();
    assert_eq!(corpus.ensure_index(2).unwrap(), IndexState::Rebuilt);
    assert_eq!(corpus.builds(), 5);
    let names: Vec<PathBuf> = std::fs::read_dir(dir.path().join("index"))
        .unwrap()
        .map(|entry| PathBuf::from(entry.unwrap().file_name()))
        .collect();
    assert_eq!(names.len(), 4, "no temporary files are left: {names:?}");
    assert!(matches!(
        corpus.ensure_index(9),
        Err(Error::WorldNotFound(9))
    ));
}

#[test]
fn ensure_index_checks_the_world_file() {
    let dir = corpus_dir(1);
    std::fs::write(dir.path().join("world-00000.sqlite"), b"damaged").unwrap();
    let corpus = Corpus::open(dir.path()).unwrap();
    let err = corpus.ensure_index(0).unwrap_err();
    assert!(
        err.to_string().contains("bytes, manifest"),
        "the size is checked first: {err}"
    );
    assert!(!corpus.index_path(0).unwrap().exists());
}

#[test]
fn deleting_the_index_folder_loses_nothing() {
    let dir = corpus_dir(3);
    let expect: Vec<Answers> = {
        let corpus = Corpus::open(dir.path()).unwrap();
        (0..3)
            .map(|id| answers(&corpus.world(id).unwrap(), &pages_of(id)))
            .collect()
    };
    std::fs::remove_dir_all(dir.path().join("index")).unwrap();
    let corpus = Corpus::open(dir.path()).unwrap();
    for id in 0..3 {
        assert!(answers(&corpus.world(id).unwrap(), &pages_of(id)) == expect[id as usize]);
    }
    assert_eq!(corpus.builds(), 3);
    assert!(corpus.unavailable().is_empty());
}
