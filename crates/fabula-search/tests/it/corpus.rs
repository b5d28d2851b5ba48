//! The corpus: manifest loading, lazy and shared world indexes, unknown ids and broken files.

use std::sync::Arc;

use fabula_search::{Corpus, Error, SearchOptions};

use crate::fixture::{generate_pages, write_manifest, write_world};

/// A corpus directory with worlds 3 and 1 (listed out of order) and world 2 whose file is missing.
fn corpus_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (id, seed) in [(1, 11), (3, 33)] {
        let pages = generate_pages(seed, 30);
        write_world(
            &dir.path().join(format!("world-{id:05}.sqlite")),
            id,
            "Delta",
            &pages,
        );
    }
    write_manifest(
        dir.path(),
        &[
            (3, "world-00003.sqlite", "Third", 30),
            (1, "world-00001.sqlite", "First", 30),
            (2, "world-00002.sqlite", "Missing", 30),
        ],
    );
    dir
}

#[test]
fn open_reads_only_the_manifest() {
    let dir = corpus_dir();
    let corpus = Corpus::open(dir.path()).unwrap();
    let ids: Vec<u32> = corpus.worlds().iter().map(|world| world.id).collect();
    assert_eq!(ids, [1, 2, 3]);
    assert_eq!(corpus.worlds()[0].name, "First");
    assert_eq!(corpus.worlds()[0].theme, "river-city-states");
    assert_eq!(corpus.worlds()[0].pages, 30);
    assert_eq!(
        corpus.worlds()[0].file,
        dir.path().join("world-00001.sqlite")
    );
    assert_eq!(corpus.info(3).unwrap().name, "Third");
    assert_eq!(corpus.dir(), dir.path());
    assert_eq!(corpus.loaded_count(), 0);
}

#[test]
fn worlds_are_built_once_on_first_use() {
    let dir = corpus_dir();
    let corpus = Corpus::open(dir.path()).unwrap();
    let world = corpus.world(3).unwrap();
    assert_eq!(corpus.loaded_count(), 1);
    assert!(Arc::ptr_eq(&world, &corpus.world(3).unwrap()));
    assert!(
        !world
            .search("river", &SearchOptions::default())
            .unwrap()
            .hits
            .is_empty()
    );
}

#[test]
fn concurrent_first_use_builds_one_index() {
    let dir = corpus_dir();
    let corpus = Corpus::open(dir.path()).unwrap();
    let worlds: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| corpus.world(1).unwrap()))
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .collect()
    });
    for world in &worlds {
        assert!(Arc::ptr_eq(world, &worlds[0]));
    }
    assert_eq!(corpus.loaded_count(), 1);
}

#[test]
fn unknown_and_missing_worlds_are_errors() {
    let dir = corpus_dir();
    let corpus = Corpus::open(dir.path()).unwrap();
    let err = corpus.world(7).unwrap_err();
    assert!(matches!(err, Error::WorldNotFound(7)), "{err}");
    assert!(err.is_user_error());
    assert!(matches!(corpus.info(7), Err(Error::WorldNotFound(7))));
    let err = corpus.world(2).unwrap_err();
    assert!(
        matches!(err, Error::File(fabula_file::Error::Io { .. })),
        "{err}"
    );
    assert!(!err.is_user_error());
    // A failed build is not cached: once the file exists the world opens.
    write_world(
        &dir.path().join("world-00002.sqlite"),
        2,
        "Late",
        &generate_pages(2, 10),
    );
    assert_eq!(
        corpus.world(2).unwrap().page_count(),
        generate_pages(2, 10).len()
    );
}

#[test]
fn broken_manifests_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        Corpus::open(dir.path()),
        Err(Error::File(fabula_file::Error::Io { .. }))
    ));
    std::fs::write(dir.path().join("manifest.json"), "{not json").unwrap();
    assert!(matches!(
        Corpus::open(dir.path()),
        Err(Error::File(fabula_file::Error::Json { .. }))
    ));
    let manifest = r#"{"format_version": 9, "generator_version": "g", "master_seed": 1,
        "count": 0, "worlds": []}"#;
    std::fs::write(dir.path().join("manifest.json"), manifest).unwrap();
    assert!(matches!(
        Corpus::open(dir.path()),
        Err(Error::BadWorld { .. })
    ));
    write_manifest(
        dir.path(),
        &[(1, "a.sqlite", "A", 1), (1, "b.sqlite", "B", 1)],
    );
    assert!(matches!(
        Corpus::open(dir.path()),
        Err(Error::BadWorld { .. })
    ));
    write_manifest(dir.path(), &[]);
    assert!(Corpus::open(dir.path()).unwrap().worlds().is_empty());
}

#[test]
fn files_without_the_tables_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("world-00000.sqlite");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE t(x)")
        .unwrap();
    write_manifest(dir.path(), &[(0, "world-00000.sqlite", "Empty", 0)]);
    let corpus = Corpus::open(dir.path()).unwrap();
    let err = corpus.world(0).unwrap_err();
    assert!(
        matches!(err, Error::File(fabula_file::Error::Sqlite { .. })),
        "{err}"
    );
    assert!(!err.is_user_error());
    // The index never writes to the world file.
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    let _ = corpus.world(0);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        modified
    );
}
