//! Datasets on disk: determinism across jobs and shards, shards sharing a directory and their
//! merge, resuming, and refusing foreign manifests.

use std::fs;
use std::path::Path;

use fabula_dataset::Error;
use fabula_dataset::{self as dataset, GenerateConfig, NoPages, Renderer, Shard};
use fabula_file::{Page, Task};
use fabula_world::World;

fn config(out: &Path, count: u32, jobs: usize, shard: Option<Shard>) -> GenerateConfig {
    GenerateConfig {
        count,
        master_seed: 5,
        out: out.to_path_buf(),
        jobs,
        shard,
        force: false,
        themes: Vec::new(),
        write_indexes: false,
    }
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sqlite"))
        .map(|n| (n.clone(), fs::read(dir.join(&n)).unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn jobs_and_shards_give_identical_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, two, sharded) = (
        tmp.path().join("one"),
        tmp.path().join("two"),
        tmp.path().join("sharded"),
    );
    dataset::generate_dataset(&config(&one, 12, 1, None), &NoPages, &|| {}).unwrap();
    dataset::generate_dataset(&config(&two, 12, 2, None), &NoPages, &|| {}).unwrap();
    for index in 0..3 {
        let shard = Some(Shard { index, total: 3 });
        dataset::generate_dataset(&config(&sharded, 12, 2, shard), &NoPages, &|| {}).unwrap();
        let m = read_shard(&sharded, index, 3);
        assert!(m.worlds.iter().all(|w| w.id % 3 == index));
        assert_eq!(m.shard.as_deref(), Some(format!("{index}/3").as_str()));
    }
    assert!(!sharded.join(dataset::MANIFEST).exists());
    assert_eq!(files(&one), files(&two));
    assert_eq!(files(&one), files(&sharded));
    let (m1, m2) = (
        fabula_file::read_manifest(&one).unwrap(),
        fabula_file::read_manifest(&two).unwrap(),
    );
    assert_eq!(m1, m2);
    assert_eq!(m1.worlds.len(), 12);

    let summary = dataset::merge_shards(&sharded, false).unwrap();
    assert_eq!((summary.shards, summary.worlds), (3, 12));
    assert_eq!(
        fs::read(sharded.join(dataset::MANIFEST)).unwrap(),
        fs::read(one.join(dataset::MANIFEST)).unwrap()
    );
    assert_eq!(names(&sharded), names(&one), "shard manifests are removed");
}

fn read_shard(dir: &Path, index: u32, total: u32) -> fabula_file::Manifest {
    let name = dataset::shard_manifest_name(index, total);
    fabula_file::read_manifest_file(&dir.join(name)).unwrap()
}

/// Every file name in a directory, hidden ones too, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_shard_leaves_other_shards_temporaries_and_resumes_on_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("w");
    let shard = |index| Some(Shard { index, total: 2 });
    // Shard 1 was killed halfway, after world 1 and while writing world 3.
    let crashed = std::panic::catch_unwind(|| {
        dataset::generate_dataset(&config(&out, 6, 1, shard(1)), &PanicsOn(3), &|| {})
    });
    assert!(crashed.is_err());
    fs::write(out.join(".world-00003.sqlite.77.tmp"), b"partial").unwrap();
    // Shard 0 starts while shard 1 still runs: it must not touch shard 1's temporary file.
    dataset::generate_dataset(&config(&out, 6, 1, shard(0)), &NoPages, &|| {}).unwrap();
    assert!(out.join(".world-00003.sqlite.77.tmp").exists());
    assert!(out.join(".progress.shard-1-of-2.jsonl").exists());
    assert!(!out.join(".progress.shard-0-of-2.jsonl").exists());
    // Merging now names the unfinished shard.
    let err = dataset::merge_shards(&out, false).unwrap_err();
    assert!(
        err.to_string()
            .contains("shard 1/2 is missing (no manifest.shard-1-of-2.json)"),
        "{err}"
    );
    // Shard 1 resumes from its own journal and cleans up its own temporary file.
    let summary =
        dataset::generate_dataset(&config(&out, 6, 1, shard(1)), &NoPages, &|| {}).unwrap();
    assert_eq!((summary.kept, summary.worlds), (1, 3));
    assert!(!out.join(".world-00003.sqlite.77.tmp").exists());
    dataset::merge_shards(&out, true).unwrap();
    let fresh = tmp.path().join("fresh");
    dataset::generate_dataset(&config(&fresh, 6, 2, None), &NoPages, &|| {}).unwrap();
    assert_eq!(files(&out), files(&fresh));
    assert_eq!(
        fs::read(out.join(dataset::MANIFEST)).unwrap(),
        fs::read(fresh.join(dataset::MANIFEST)).unwrap()
    );
    // --keep-shards kept them; a re-run of a shard keeps all of its worlds.
    assert_eq!(read_shard(&out, 0, 2).worlds.len(), 3);
    let summary =
        dataset::generate_dataset(&config(&out, 6, 1, shard(0)), &NoPages, &|| {}).unwrap();
    assert_eq!(summary.kept, 3);
}

/// Merges the shard manifests of a fresh 2-shard dataset of 4 worlds after `edit` has damaged the
/// directory, and checks that the merge is refused with a message containing `expect`.
#[track_caller]
fn check_merge_refused(edit: impl FnOnce(&Path), expect: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("w");
    for index in 0..2 {
        let shard = Some(Shard { index, total: 2 });
        dataset::generate_dataset(&config(&out, 4, 1, shard), &NoPages, &|| {}).unwrap();
    }
    edit(&out);
    let err = dataset::merge_shards(&out, false).unwrap_err();
    assert!(matches!(err, Error::ShardMerge { .. }), "{err}");
    assert!(err.to_string().contains(expect), "{err}");
    assert!(!out.join(dataset::MANIFEST).exists());
}

#[test]
fn a_merge_of_shards_that_do_not_fit_is_refused() {
    let shard_path = |dir: &Path, index| dir.join(dataset::shard_manifest_name(index, 2));
    check_merge_refused(
        |dir| {
            fs::remove_file(shard_path(dir, 0)).unwrap();
            fs::remove_file(shard_path(dir, 1)).unwrap();
        },
        "there are no shard manifests",
    );
    check_merge_refused(
        |dir| fs::remove_file(dir.join("world-00003.sqlite")).unwrap(),
        "world file world-00003.sqlite is missing",
    );
    check_merge_refused(
        |dir| {
            let other = config(dir, 4, 1, Some(Shard { index: 0, total: 3 }));
            dataset::generate_dataset(&other, &NoPages, &|| {}).unwrap();
        },
        "are shards of different splits",
    );
    check_merge_refused(
        |dir| {
            fs::copy(shard_path(dir, 0), shard_path(dir, 1))
                .map(drop)
                .unwrap()
        },
        "manifest.shard-1-of-2.json holds shard \"0/2\", not 1/2",
    );
    check_merge_refused(
        |dir| {
            let mut m = read_shard(dir, 1, 2);
            m.master_seed = 9;
            fs::write(shard_path(dir, 1), m.to_json()).unwrap();
        },
        "shard 1/2 has master_seed \"9\" but shard 0/2 has \"5\"",
    );
}

/// Generates `count` worlds of seed 5 into `out`, then checks that a run of seed 6 (of `shard`,
/// when given) is refused, and goes through with `--force`.
fn check_foreign_run_needs_force(out: &Path, count: u32, shard: Option<Shard>) {
    dataset::generate_dataset(&config(out, count, 1, None), &NoPages, &|| {}).unwrap();
    let mut other = config(out, count, 1, shard);
    other.master_seed = 6;
    let err = dataset::generate_dataset(&other, &NoPages, &|| {}).unwrap_err();
    assert!(
        matches!(err, Error::ManifestMismatch { seed: 5, .. }),
        "{err}"
    );
    other.force = true;
    dataset::generate_dataset(&other, &NoPages, &|| {}).unwrap();
}

#[test]
fn a_shard_refuses_a_foreign_merged_manifest_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("w");
    check_foreign_run_needs_force(&out, 4, Some(Shard { index: 1, total: 2 }));
    assert!(
        !out.join(dataset::MANIFEST).exists(),
        "the stale manifest is gone"
    );
    assert!(
        out.join("world-00000.sqlite").exists(),
        "shard 0's world is left alone"
    );
    assert_eq!(read_shard(&out, 1, 2).master_seed, 6);
}

/// A renderer that panics on one world, standing in for a run killed halfway.
struct PanicsOn(u32);

impl Renderer for PanicsOn {
    fn version(&self) -> String {
        NoPages.version()
    }
    fn render(&self, world: &World) -> (Vec<Page>, Vec<Task>) {
        assert!(world.id != self.0, "simulated crash");
        (Vec::new(), Vec::new())
    }
}

#[test]
fn an_interrupted_run_resumes_and_keeps_finished_worlds() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("w");
    let crashed = std::panic::catch_unwind(|| {
        dataset::generate_dataset(&config(&out, 10, 1, None), &PanicsOn(6), &|| {})
    });
    assert!(crashed.is_err());
    assert!(
        !out.join(dataset::MANIFEST).exists(),
        "the manifest is written last"
    );
    // A killed writer may leave a temporary file; it never carries a final name.
    fs::write(out.join(".world-00009.sqlite.123.tmp"), b"partial").unwrap();
    let finished = files(&out).len();
    assert_eq!(finished, 6);

    let summary = dataset::generate_dataset(&config(&out, 10, 2, None), &NoPages, &|| {}).unwrap();
    assert_eq!(summary.kept, 6);
    assert_eq!(summary.worlds, 10);
    assert!(!out.join(".world-00009.sqlite.123.tmp").exists());

    let fresh = tmp.path().join("fresh");
    dataset::generate_dataset(&config(&fresh, 10, 2, None), &NoPages, &|| {}).unwrap();
    assert_eq!(files(&out), files(&fresh));

    // A damaged or missing world is redone on the next run; intact ones are kept.
    fs::write(out.join("world-00002.sqlite"), b"garbage").unwrap();
    fs::remove_file(out.join("world-00004.sqlite")).unwrap();
    let summary = dataset::generate_dataset(&config(&out, 10, 2, None), &NoPages, &|| {}).unwrap();
    assert_eq!(summary.kept, 8);
    assert_eq!(files(&out), files(&fresh));
}

#[test]
fn a_foreign_manifest_is_refused_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("w");
    check_foreign_run_needs_force(&out, 3, None);
    assert_eq!(fabula_file::read_manifest(&out).unwrap().master_seed, 6);
}

#[test]
fn bad_input_is_refused_with_a_clear_message() {
    let tmp = tempfile::tempdir().unwrap();
    let err =
        dataset::generate_dataset(&config(tmp.path(), 0, 1, None), &NoPages, &|| {}).unwrap_err();
    assert!(err.to_string().contains("--count"), "{err}");
    assert!(
        "3/2"
            .parse::<Shard>()
            .unwrap_err()
            .to_string()
            .contains("3/2")
    );
    assert!("x".parse::<Shard>().is_err());
    let err = dataset::select_themes(&["lunar-base".to_string()]).unwrap_err();
    assert!(
        err.to_string().contains("unknown theme `lunar-base`"),
        "{err}"
    );
    let blocked = tmp.path().join("file");
    fs::write(&blocked, b"").unwrap();
    let err =
        dataset::generate_dataset(&config(&blocked.join("sub"), 1, 1, None), &NoPages, &|| {})
            .unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err}");
}

/// A generated world's index is the one `fabula index` builds from its file, byte for byte, and
/// its tasks carry the tiers measured with it.
#[test]
fn generated_indexes_match_those_built_from_the_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("worlds");
    let cfg = GenerateConfig {
        write_indexes: true,
        ..config(&out, 2, 2, None)
    };
    dataset::generate_dataset(&cfg, &dataset::FullRenderer, &|| {}).unwrap();
    let corpus = fabula_search::Corpus::open(&out).unwrap();
    for info in corpus.worlds() {
        let path = corpus.index_path(info.id).unwrap();
        let generated = fs::read(&path).unwrap();
        assert_eq!(
            corpus.ensure_index(info.id).unwrap(),
            fabula_search::IndexState::Fresh
        );
        fs::remove_file(&path).unwrap();
        assert_eq!(
            corpus.ensure_index(info.id).unwrap(),
            fabula_search::IndexState::Built
        );
        assert_eq!(fs::read(&path).unwrap(), generated, "world {}", info.id);
        let tasks = fabula_file::WorldFile::open(&info.file)
            .unwrap()
            .tasks()
            .unwrap();
        let tiers: std::collections::BTreeSet<_> = tasks.iter().map(|t| t.tier).collect();
        assert!(tiers.len() >= 3, "world {} has tiers {tiers:?}", info.id);
    }
}

/// A world that cannot be finished (its index cannot be written) fails the run with the lowest
/// failed id; the worlds finished before it stay journaled, their files under final names.
#[test]
fn a_world_that_cannot_be_finished_fails_the_run_with_the_lowest_id() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("w");
    fs::create_dir_all(&out).unwrap();
    // A file where the index folder should be: no world's index can be written. One job starts
    // world 0 first; worlds built meanwhile fail too, and the run names the lowest.
    fs::write(out.join("index"), b"in the way").unwrap();
    let cfg = GenerateConfig {
        write_indexes: true,
        ..config(&out, 6, 1, None)
    };
    let err = dataset::generate_dataset(&cfg, &NoPages, &|| {}).unwrap_err();
    assert!(matches!(err, Error::Index { id: 0, .. }), "{err}");
    assert!(!out.join(dataset::MANIFEST).exists());
    let left: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert_eq!(left, Vec::<String>::new(), "temporary files left");
}
