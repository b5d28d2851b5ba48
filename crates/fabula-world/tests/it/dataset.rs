//! Datasets on disk: determinism across jobs and shards, resuming, and refusing foreign manifests.

use std::fs;
use std::path::Path;

use fabula_file::{Page, Task};
use fabula_world::dataset::{self, GenerateConfig, NoPages, Renderer, Shard};
use fabula_world::{Error, World};

fn config(out: &Path, count: u32, jobs: usize, shard: Option<Shard>) -> GenerateConfig {
    GenerateConfig {
        count,
        master_seed: 5,
        out: out.to_path_buf(),
        jobs,
        shard,
        force: false,
        themes: Vec::new(),
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
        let m = fabula_file::read_manifest(&sharded).unwrap();
        assert!(m.worlds.iter().all(|w| w.id % 3 == index));
        assert_eq!(m.shard.as_deref(), Some(format!("{index}/3").as_str()));
    }
    assert_eq!(files(&one), files(&two));
    assert_eq!(files(&one), files(&sharded));
    let (m1, m2) = (
        fabula_file::read_manifest(&one).unwrap(),
        fabula_file::read_manifest(&two).unwrap(),
    );
    assert_eq!(m1, m2);
    assert_eq!(m1.worlds.len(), 12);
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
    dataset::generate_dataset(&config(&out, 3, 1, None), &NoPages, &|| {}).unwrap();
    let mut other = config(&out, 3, 1, None);
    other.master_seed = 6;
    let err = dataset::generate_dataset(&other, &NoPages, &|| {}).unwrap_err();
    assert!(
        matches!(err, Error::ManifestMismatch { seed: 5, .. }),
        "{err}"
    );
    other.force = true;
    dataset::generate_dataset(&other, &NoPages, &|| {}).unwrap();
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
