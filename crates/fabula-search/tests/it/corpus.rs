//! The corpus: manifest loading and checking, lazy and shared world indexes, unknown ids, and
//! broken or foreign world files kept as unavailable.

use std::path::Path;
use std::sync::Arc;

use fabula_file::Manifest;
use fabula_search::{Corpus, Error, SearchOptions};

use crate::fixture::{generate_pages, write_manifest, write_world};
use crate::logs::logged;

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
fn open_reads_the_manifest_and_the_files_sizes_only() {
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
    assert_eq!(
        corpus.worlds()[0].sha256,
        fabula_file::sha256_file(&dir.path().join("world-00001.sqlite")).unwrap()
    );
    assert_eq!(corpus.info(3).unwrap().name, "Third");
    assert_eq!(corpus.dir(), dir.path());
    assert_eq!(corpus.loaded_count(), 0);
    assert_eq!(
        corpus.unavailable(),
        [2],
        "a missing file is found at open, by its size"
    );
}

#[test]
fn worlds_are_built_once_on_first_use() {
    let dir = corpus_dir();
    let corpus = Corpus::open(dir.path()).unwrap();
    assert!(corpus.world_if_used(3).is_none());
    let world = corpus.world(3).unwrap();
    assert_eq!(corpus.loaded_count(), 1);
    assert!(Arc::ptr_eq(&world, &corpus.world(3).unwrap()));
    assert!(Arc::ptr_eq(
        &world,
        &corpus.world_if_used(3).unwrap().unwrap()
    ));
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
    assert_eq!(
        err.to_string(),
        "world 2 is unavailable: its file is missing"
    );
    assert!(!err.is_user_error());
    assert_eq!(corpus.unavailable(), [2]);
    assert!(matches!(
        corpus.world_if_used(2),
        Some(Err(Error::WorldUnavailable { id: 2, .. }))
    ));
    assert!(matches!(
        corpus.world_if_used(7),
        Some(Err(Error::WorldNotFound(7)))
    ));
    // A failed first use is kept: the file appearing later is not read until a restart.
    write_world(
        &dir.path().join("world-00002.sqlite"),
        2,
        "Late",
        &generate_pages(2, 10),
    );
    assert!(matches!(
        corpus.world(2),
        Err(Error::WorldUnavailable { id: 2, .. })
    ));
    assert_eq!(corpus.world(3).unwrap().page_count(), 30, "others serve");
    assert_eq!((corpus.loaded_count(), corpus.unavailable()), (1, vec![2]));
}

#[test]
fn an_unavailable_world_is_logged_once() {
    let dir = corpus_dir();
    let ((), log) = logged(|| {
        let corpus = Corpus::open(dir.path()).unwrap();
        for _ in 0..5 {
            assert!(corpus.world(2).is_err());
            assert!(corpus.world(3).is_ok());
        }
    });
    // World 3's first use also says at info level that it has no persisted index yet; world
    // 2 is found missing at open, before any index is looked at.
    let errors: Vec<&str> = log.lines().filter(|line| line.contains("ERROR")).collect();
    assert_eq!(errors.len(), 1, "{log}");
    assert_eq!(log.lines().count(), 2, "{log}");
    for part in ["world=2", "its file is missing", "world-00002.sqlite"] {
        assert!(errors[0].contains(part), "{part:?} not in {log}");
    }
}

/// Writes worlds 0 and 1 and their manifest, changes the manifest with `edit`, opens the corpus
/// and asserts what `Corpus::open` says: `Ok` or a part of its error message.
#[track_caller]
fn check_manifest(edit: impl FnOnce(&mut Manifest), expect: Result<(), &str>) {
    let dir = tempfile::tempdir().unwrap();
    for id in [0, 1] {
        let path = dir.path().join(fabula_file::world_file_name(id));
        write_world(&path, id, "Delta", &generate_pages(u64::from(id), 5));
    }
    write_manifest(
        dir.path(),
        &[
            (0, "world-00000.sqlite", "A", 5),
            (1, "world-00001.sqlite", "B", 5),
        ],
    );
    let mut manifest = fabula_file::read_manifest(dir.path()).unwrap();
    edit(&mut manifest);
    std::fs::write(dir.path().join("manifest.json"), manifest.to_json()).unwrap();
    match (Corpus::open(dir.path()), expect) {
        (Ok(_), Ok(())) => {}
        (Err(err @ Error::BadManifest { .. }), Err(part)) => {
            let message = err.to_string();
            assert!(message.contains(part), "{message}");
            assert!(message.contains("manifest.json"), "{message}");
        }
        (got, expect) => panic!("got {got:?}, expected {expect:?}"),
    }
}

#[test]
fn edited_manifests_are_refused_at_open() {
    let file = |idx: usize, name: &str| {
        let name = name.to_owned();
        move |m: &mut Manifest| m.worlds[idx].file = name
    };
    check_manifest(|_| {}, Ok(()));
    check_manifest(|m| m.count = 3, Err("count is 3 but 2 worlds are listed"));
    check_manifest(
        |m| m.worlds.pop().map(drop).unwrap(),
        Err("count is 2 but 1"),
    );
    check_manifest(|m| m.worlds[1].id = 0, Err("world id 0 is listed twice"));
    check_manifest(
        file(1, "../other/world-00001.sqlite"),
        Err(r#"world 1: file "../other/world-00001.sqlite" is not a plain file name"#),
    );
    check_manifest(
        file(0, "/tmp/world-00000.sqlite"),
        Err("not a plain file name inside the dataset directory"),
    );
    check_manifest(
        file(1, "world-00000.sqlite"),
        Err(r#"world 1: file "world-00000.sqlite" is not the expected "world-00001.sqlite""#),
    );
    check_manifest(
        |m| m.worlds[0].sha256 = "abc".into(),
        Err(r#"world 0: sha256 "abc" is not 64 lower-case hex digits"#),
    );
    check_manifest(|m| m.format_version = 9, Err("format_version 9"));
    check_manifest(
        |m| m.shard = Some("1/2".into()),
        Err("world 0 is not in shard 1/2 of 2"),
    );
}

#[test]
fn unreadable_manifests_are_errors() {
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
    write_manifest(dir.path(), &[]);
    assert!(Corpus::open(dir.path()).unwrap().worlds().is_empty());
}

/// Worlds 0 and 1 with a good manifest; `damage` then changes world 1's file or the manifest
/// (given the directory); asserts world 1's first use fails with `reason`, the failure is kept
/// after the file is restored, and world 0 is still served.
#[track_caller]
fn check_damage(damage: impl FnOnce(&Path), reason: &str) {
    let dir = tempfile::tempdir().unwrap();
    for (id, pages) in [(0, generate_pages(0, 8)), (1, generate_pages(1, 8))] {
        let path = dir.path().join(fabula_file::world_file_name(id));
        write_world(&path, id, "Delta", &pages);
    }
    write_manifest(
        dir.path(),
        &[
            (0, "world-00000.sqlite", "A", 8),
            (1, "world-00001.sqlite", "B", 8),
        ],
    );
    let file = dir.path().join("world-00001.sqlite");
    let good_bytes = std::fs::read(&file).unwrap();
    damage(dir.path());
    let corpus = Corpus::open(dir.path()).unwrap();
    let err = corpus.world(1).unwrap_err();
    assert_eq!(err.to_string(), format!("world 1 is unavailable: {reason}"));
    assert!(!err.is_user_error());
    std::fs::write(&file, &good_bytes).unwrap();
    let again = corpus.world(1).unwrap_err().to_string();
    assert_eq!(again, err.to_string(), "the failure is kept");
    let pages = generate_pages(0, 8).len();
    assert_eq!(corpus.world(0).unwrap().page_count(), pages, "others serve");
    assert_eq!(corpus.unavailable(), [1]);
    assert_eq!(corpus.loaded_count(), 1);
}

#[test]
fn damaged_world_files_are_unavailable_and_kept() {
    let world_1 = |dir: &Path| dir.join("world-00001.sqlite");
    let not_hashed = "its file does not match the manifest's sha256";
    let wrong_size = "its file's size does not match the manifest";
    check_damage(
        |dir| std::fs::remove_file(world_1(dir)).unwrap(),
        "its file is missing",
    );
    check_damage(|dir| std::fs::write(world_1(dir), b"").unwrap(), wrong_size);
    check_damage(
        |dir| {
            let bytes = std::fs::read(world_1(dir)).unwrap();
            std::fs::write(world_1(dir), &bytes[..bytes.len() / 2]).unwrap();
        },
        wrong_size,
    );
    check_damage(
        |dir| std::fs::write(world_1(dir), b"SQLite format 3\0 but not really").unwrap(),
        wrong_size,
    );
    // The same size, one byte changed: only the hash tells.
    check_damage(
        |dir| {
            let mut bytes = std::fs::read(world_1(dir)).unwrap();
            let middle = bytes.len() / 2;
            bytes[middle] ^= 1;
            std::fs::write(world_1(dir), &bytes).unwrap();
        },
        not_hashed,
    );
    check_damage(
        |dir| {
            std::fs::copy(dir.join("world-00000.sqlite"), world_1(dir))
                .map(drop)
                .unwrap()
        },
        not_hashed,
    );
    check_damage(|dir| edit_sha256(dir, 1, &"e".repeat(64)), not_hashed);
}

#[test]
fn files_that_match_an_edited_hash_are_still_checked() {
    // The manifest's hash edited to match what is now on disk: the contents must still pass.
    let rehash = |dir: &Path| {
        let sha256 = fabula_file::sha256_file(&dir.join("world-00001.sqlite")).unwrap();
        edit_sha256(dir, 1, &sha256);
    };
    check_damage(
        |dir| {
            std::fs::copy(
                dir.join("world-00000.sqlite"),
                dir.join("world-00001.sqlite"),
            )
            .unwrap();
            rehash(dir);
        },
        "its file holds world 0",
    );
    for bytes in [&b""[..], b"random bytes, not a database"] {
        check_damage(
            |dir| {
                std::fs::write(dir.join("world-00001.sqlite"), bytes).unwrap();
                rehash(dir);
            },
            "its file is not a readable world file",
        );
    }
}

/// Sets world `id`'s hash in `dir/manifest.json`.
fn edit_sha256(dir: &Path, id: u32, sha256: &str) {
    let path = dir.join("manifest.json");
    let mut manifest = fabula_file::read_manifest(dir).unwrap();
    for entry in &mut manifest.worlds {
        if entry.id == id {
            entry.sha256 = sha256.to_owned();
            // The size of what is on disk now, so that only the hash was edited.
            entry.bytes = std::fs::metadata(dir.join(&entry.file))
                .ok()
                .map(|meta| meta.len());
        }
    }
    std::fs::write(path, manifest.to_json()).unwrap();
}

#[test]
fn files_without_the_tables_are_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("world-00000.sqlite");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE t(x)")
        .unwrap();
    write_manifest(dir.path(), &[(0, "world-00000.sqlite", "Empty", 0)]);
    let corpus = Corpus::open(dir.path()).unwrap();
    let err = corpus.world(0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "world 0 is unavailable: its file is not a readable world file"
    );
    // The check never writes to the world file.
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    let _ = corpus.world(0);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        modified
    );
}
