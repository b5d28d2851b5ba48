//! `fabula generate`, `manifest merge`, `check` and `inspect` from the command line.

use std::fs;

use super::{fabula, generate};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn generated_worlds_pass_check_and_are_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, s) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("s"),
    );
    generate(&a, 6, 7);
    let out = fabula(&[
        "generate",
        "--count",
        "6",
        "--seed",
        "7",
        "--jobs",
        "1",
        "--out",
        b.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    for shard in ["0/2", "1/2"] {
        let out = fabula(&[
            "generate",
            "--count",
            "6",
            "--seed",
            "7",
            "--shard",
            shard,
            "--out",
            s.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    for id in 0..6 {
        let name = format!("world-{id:05}.sqlite");
        let bytes = fs::read(a.join(&name)).unwrap();
        assert_eq!(
            bytes,
            fs::read(b.join(&name)).unwrap(),
            "{name} differs between --jobs 1 and 2"
        );
        assert_eq!(
            bytes,
            fs::read(s.join(&name)).unwrap(),
            "{name} differs between sharded and whole runs"
        );
    }
    let out = fabula(&["check", a.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("checked 6 worlds") && stdout.contains("0 violations"),
        "{stdout}"
    );

    let out = fabula(&["inspect", a.join("world-00003.sqlite").to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    for needle in ["world 3", "Tables:", "rows", "Sample entities:", "pages"] {
        assert!(
            text.contains(needle),
            "inspect output lacks `{needle}`:\n{text}"
        );
    }

    // A second run over a complete directory keeps everything.
    let out = fabula(&[
        "generate",
        "--count",
        "6",
        "--seed",
        "7",
        "--out",
        a.to_str().unwrap(),
    ]);
    assert!(stderr(&out).contains("6 kept"), "{}", stderr(&out));
    // Another seed is refused without --force.
    let out = fabula(&[
        "generate",
        "--count",
        "6",
        "--seed",
        "8",
        "--out",
        a.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
}

/// The names of the files in `dir` that a dataset consists of (world files and manifests), sorted.
fn dataset_files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".sqlite") || name.starts_with("manifest"))
        .collect();
    names.sort();
    names
}

#[test]
fn shards_in_one_directory_merge_into_the_manifest_of_one_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (whole, shared) = (tmp.path().join("whole"), tmp.path().join("shared"));
    generate(&whole, 5, 3);
    for shard in ["2/3", "0/3", "1/3"] {
        let out = fabula(&[
            "generate",
            "--count",
            "5",
            "--seed",
            "3",
            "--jobs",
            "1",
            "--shard",
            shard,
            "--out",
            shared.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("fabula manifest merge"),
            "{}",
            stderr(&out)
        );
    }
    let shard_manifests: Vec<String> = (0..3)
        .map(|index| format!("manifest.shard-{index}-of-3.json"))
        .collect();
    let has_shard_manifests = |dir: &std::path::Path| {
        let names = dataset_files(dir);
        shard_manifests.iter().all(|name| names.contains(name))
    };
    assert!(has_shard_manifests(&shared), "{:?}", dataset_files(&shared));
    assert!(!shared.join("manifest.json").exists());

    let out = fabula(&["manifest", "merge", shared.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("merged 3 shard manifests of 5 worlds"),
        "{}",
        stderr(&out)
    );
    assert_eq!(dataset_files(&shared), dataset_files(&whole));
    for name in dataset_files(&whole) {
        assert_eq!(
            fs::read(shared.join(&name)).unwrap(),
            fs::read(whole.join(&name)).unwrap(),
            "{name} differs between three shards and one run"
        );
    }
    let out = fabula(&["check", shared.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // Shards run again keep every world; --keep-shards leaves their manifests in place.
    for shard in ["0/3", "1/3", "2/3"] {
        let args = [
            "generate", "--count", "5", "--seed", "3", "--shard", shard, "--out",
        ];
        let out = fabula(&[&args[..], &[shared.to_str().unwrap()]].concat());
        assert!(
            stderr(&out).contains("kept from an earlier run"),
            "{}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("(0 kept"), "{}", stderr(&out));
    }
    let out = fabula(&[
        "manifest",
        "merge",
        "--keep-shards",
        shared.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(has_shard_manifests(&shared), "{:?}", dataset_files(&shared));
    assert_eq!(
        fs::read(shared.join("manifest.json")).unwrap(),
        fs::read(whole.join("manifest.json")).unwrap()
    );
}

#[test]
fn bad_input_gets_one_clear_line_and_a_failure_exit() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("w");
    let o = out_dir.to_str().unwrap();
    let file = tmp.path().join("plain-file");
    fs::write(&file, b"x").unwrap();
    let unwritable = file.join("sub");
    let missing = tmp.path().join("missing");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["generate", "--count", "0", "--out", o], "--count"),
        (
            vec!["generate", "--count", "4", "--shard", "3/2", "--out", o],
            "--shard `3/2`",
        ),
        (
            vec![
                "generate",
                "--count",
                "4",
                "--theme",
                "moon-base",
                "--out",
                o,
            ],
            "unknown theme `moon-base`",
        ),
        (
            vec![
                "generate",
                "--count",
                "1",
                "--out",
                unwritable.to_str().unwrap(),
            ],
            "plain-file",
        ),
        (vec!["check", missing.to_str().unwrap()], "manifest.json"),
        (
            vec!["manifest", "merge", tmp.path().to_str().unwrap()],
            "there are no shard manifests",
        ),
    ];
    for (args, needle) in cases {
        let out = fabula(&args);
        let err = stderr(&out);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(
            err.starts_with("error: ") && err.contains(needle),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn a_theme_filter_restricts_worlds() {
    let tmp = tempfile::tempdir().unwrap();
    let out = fabula(&[
        "generate",
        "--count",
        "4",
        "--theme",
        "music-scene",
        "--out",
        tmp.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let manifest = fs::read_to_string(tmp.path().join("manifest.json")).unwrap();
    assert_eq!(
        manifest.matches("\"theme\": \"music-scene\"").count(),
        4,
        "{manifest}"
    );
}

/// The files under `dir/index/`, as paths relative to it, sorted.
fn index_files(dir: &std::path::Path) -> Vec<String> {
    let root = dir.join("index");
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let rel = path.strip_prefix(&root).unwrap();
                files.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    files
}

#[test]
fn generate_writes_the_indexes_fabula_index_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let (indexed, plain) = (tmp.path().join("indexed"), tmp.path().join("plain"));
    generate(&indexed, 3, 5);
    let plain_arg = plain.to_str().unwrap();
    let out = fabula(&[
        "generate",
        "--count",
        "3",
        "--seed",
        "5",
        "--no-index",
        "--out",
        plain_arg,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!plain.join("index").exists(), "--no-index writes none");
    let out = fabula(&["index", plain_arg]);
    assert!(out.status.success(), "{}", stderr(&out));
    let files = index_files(&indexed);
    let worlds = files.iter().filter(|f| f.ends_with(".fidx")).count();
    assert_eq!(worlds, 3, "{files:?}");
    assert!(files.iter().any(|f| f.starts_with("passages")), "{files:?}");
    assert_eq!(files, index_files(&plain));
    for file in &files {
        let (a, b) = (
            indexed.join("index").join(file),
            plain.join("index").join(file),
        );
        assert!(
            fs::read(a).unwrap() == fs::read(b).unwrap(),
            "{file} differs"
        );
    }
}
