//! The manifest of a dataset directory (`manifest.json`): which world files it holds, with their
//! hashes and sizes. The generator writes it last, by rename; the server and `fabula check` read it.
//! [`Manifest::validate`] and [`sha256_file`] let a reader trust nothing it was not able to check.
//! A sharded run writes its part as [`shard_manifest_name`] instead, so that the shards of one
//! dataset can share a directory; [`Manifest::merge`] joins them into the manifest of a whole run.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{Error, FORMAT_VERSION, Result};

/// File name of the manifest inside a dataset directory.
pub const MANIFEST: &str = "manifest.json";

/// The file name of one shard's manifest, `manifest.shard-I-of-K.json`.
pub fn shard_manifest_name(index: u32, total: u32) -> String {
    format!("manifest.shard-{index}-of-{total}.json")
}

/// The shard `(I, K)` that a file name `manifest.shard-I-of-K.json` stands for, if it is one.
pub fn parse_shard_manifest_name(name: &str) -> Option<(u32, u32)> {
    let middle = name
        .strip_prefix("manifest.shard-")?
        .strip_suffix(".json")?;
    let (index, total) = middle.split_once("-of-")?;
    let (index, total) = (index.parse().ok()?, total.parse().ok()?);
    (index < total && shard_manifest_name(index, total) == name).then_some((index, total))
}

/// One world's entry in the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestEntry {
    pub id: u32,
    /// The world file's name, relative to the dataset directory.
    pub file: String,
    /// The SHA-256 of the world file, as lower-case hex.
    pub sha256: String,
    /// The world file's size in bytes: checked before anything reads the file. Absent in
    /// manifests written before it was recorded, which are checked by hash alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    pub theme: String,
    pub name: String,
    pub rows: usize,
    pub tables: usize,
    pub pages: usize,
    pub tasks: usize,
}

/// The manifest of a dataset directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format_version: u32,
    pub generator_version: String,
    pub master_seed: u64,
    pub count: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub themes: Vec<String>,
    pub worlds: Vec<ManifestEntry>,
}

impl Manifest {
    /// The manifest as written: pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a manifest always serialises") + "\n"
    }

    /// Checks the manifest as a whole, as the generator writes it: the supported format version;
    /// `count` worlds (with a `shard` `I/N`, exactly the ids below `count` whose remainder by `N`
    /// is `I`); ids listed once; each `file` a plain file name, [`world_file_name`] of its id, so
    /// it stays inside the dataset directory; each `sha256` 64 lower-case hex digits. Returns the
    /// first problem as a sentence naming the world.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.format_version != FORMAT_VERSION {
            return Err(format!(
                "format_version {} is not the supported {FORMAT_VERSION}",
                self.format_version
            ));
        }
        self.validate_ids()?;
        for entry in &self.worlds {
            validate_entry(entry)?;
        }
        Ok(())
    }

    /// Joins the manifests of all `K` shards of one dataset, in any order, into the manifest an
    /// unsharded run of the same seed, count and themes writes, byte for byte: no `shard`, every
    /// world in id order. The shards must agree on the format and generator versions, the seed,
    /// the count, the themes and `K`, each must be valid and hold only its own worlds, and all `K`
    /// must be there. Returns the first problem as a sentence naming the shard or world.
    pub fn merge(shards: &[Manifest]) -> std::result::Result<Manifest, String> {
        let first = shards.first().ok_or("there are no shard manifests")?;
        let total = shard_of(first)?.1;
        let mut by_index = BTreeMap::new();
        for manifest in shards {
            let (index, shard_total) = shard_of(manifest)?;
            if shard_total != total {
                return Err(format!(
                    "shard {index}/{shard_total} is one of {shard_total} shards, \
                     but shard {} is one of {total}",
                    first.shard.as_deref().unwrap_or_default()
                ));
            }
            manifest
                .validate()
                .map_err(|problem| format!("shard {index}/{total}: {problem}"))?;
            agree(first, manifest)?;
            if by_index.insert(index, manifest).is_some() {
                return Err(format!("shard {index}/{total} is given twice"));
            }
        }
        if let Some(index) = (0..total).find(|index| !by_index.contains_key(index)) {
            return Err(format!(
                "shard {index}/{total} is missing (no {})",
                shard_manifest_name(index, total)
            ));
        }
        let mut worlds: Vec<ManifestEntry> = by_index
            .values()
            .flat_map(|manifest| manifest.worlds.iter().cloned())
            .collect();
        worlds.sort_by_key(|entry| entry.id);
        let merged = Manifest {
            shard: None,
            worlds,
            ..first.clone()
        };
        merged.validate()?;
        Ok(merged)
    }

    /// `count` and `shard` against the listed ids, and no id listed twice.
    fn validate_ids(&self) -> std::result::Result<(), String> {
        let mut ids: Vec<u32> = self.worlds.iter().map(|entry| entry.id).collect();
        ids.sort_unstable();
        if let Some(pair) = ids.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(format!("world id {} is listed twice", pair[0]));
        }
        let Some(shard) = &self.shard else {
            return match usize::try_from(self.count) {
                Ok(count) if count == ids.len() => Ok(()),
                _ => Err(format!(
                    "count is {} but {} worlds are listed",
                    self.count,
                    ids.len()
                )),
            };
        };
        let (index, total) = parse_shard(shard)?;
        if let Some(id) = ids
            .iter()
            .find(|&&id| id >= self.count || id % total != index)
        {
            return Err(format!(
                "world {id} is not in shard {shard} of {} worlds",
                self.count
            ));
        }
        let expected = (0..self.count).filter(|id| id % total == index).count();
        if ids.len() != expected {
            return Err(format!(
                "shard {shard} of {} worlds holds {expected} worlds but {} are listed",
                self.count,
                ids.len()
            ));
        }
        Ok(())
    }
}

/// The shard `(I, K)` of a manifest that must be one shard's.
fn shard_of(manifest: &Manifest) -> std::result::Result<(u32, u32), String> {
    match &manifest.shard {
        Some(shard) => parse_shard(shard),
        None => Err("a manifest of a whole dataset is not a shard's".to_owned()),
    }
}

/// Whether two shards' manifests describe parts of the same dataset; the first difference if not.
fn agree(first: &Manifest, other: &Manifest) -> std::result::Result<(), String> {
    let fields = [
        (
            "format_version",
            first.format_version.to_string(),
            other.format_version.to_string(),
        ),
        (
            "generator_version",
            first.generator_version.clone(),
            other.generator_version.clone(),
        ),
        (
            "master_seed",
            first.master_seed.to_string(),
            other.master_seed.to_string(),
        ),
        ("count", first.count.to_string(), other.count.to_string()),
        ("themes", first.themes.join(","), other.themes.join(",")),
    ];
    match fields.into_iter().find(|(_, a, b)| a != b) {
        None => Ok(()),
        Some((field, a, b)) => Err(format!(
            "shard {} has {field} {b:?} but shard {} has {a:?}",
            other.shard.as_deref().unwrap_or_default(),
            first.shard.as_deref().unwrap_or_default()
        )),
    }
}

/// One entry's file name and hash.
fn validate_entry(entry: &ManifestEntry) -> std::result::Result<(), String> {
    let id = entry.id;
    let file = entry.file.as_str();
    let mut components = Path::new(file).components();
    let plain = matches!(components.next(), Some(Component::Normal(_)))
        && components.next().is_none()
        && !file.contains(['/', '\\', '\0']);
    if !plain {
        return Err(format!(
            "world {id}: file {file:?} is not a plain file name inside the dataset directory"
        ));
    }
    let expected = world_file_name(id);
    if file != expected {
        return Err(format!(
            "world {id}: file {file:?} is not the expected {expected:?}"
        ));
    }
    let hex = entry.sha256.len() == 64
        && entry
            .sha256
            .bytes()
            .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'));
    if !hex {
        return Err(format!(
            "world {id}: sha256 {:?} is not 64 lower-case hex digits",
            entry.sha256
        ));
    }
    Ok(())
}

/// A shard written as `I/N` with `I < N`, as the generator's `--shard` writes it.
fn parse_shard(shard: &str) -> std::result::Result<(u32, u32), String> {
    let parsed = shard
        .split_once('/')
        .and_then(|(index, total)| Some((index.parse::<u32>().ok()?, total.parse::<u32>().ok()?)));
    match parsed {
        Some((index, total)) if index < total => Ok((index, total)),
        _ => Err(format!("shard {shard:?} is not I/N with I < N")),
    }
}

/// The file name of a world.
pub fn world_file_name(id: u32) -> String {
    format!("world-{id:05}.sqlite")
}

/// The SHA-256 of a file, as lower-case hex, read as a stream.
pub fn sha256_file(path: &Path) -> Result<String> {
    let io_error = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io_error)?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(io_error)?;
    let digest = hasher.finalize();
    Ok(digest.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Reads `dir/manifest.json`.
pub fn read_manifest(dir: &Path) -> Result<Manifest> {
    read_manifest_file(&dir.join(MANIFEST))
}

/// Reads a manifest from any file, such as a shard's.
pub fn read_manifest_file(path: &Path) -> Result<Manifest> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| Error::Json {
        path: path.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_round_trips_and_omits_empty_options() {
        let manifest = Manifest {
            format_version: 1,
            generator_version: "g".into(),
            master_seed: 7,
            count: 1,
            shard: None,
            themes: Vec::new(),
            worlds: vec![ManifestEntry {
                id: 0,
                file: world_file_name(0),
                sha256: "ab".into(),
                bytes: Some(4096),
                theme: "islands".into(),
                name: "Kest".into(),
                rows: 300,
                tables: 7,
                pages: 400,
                tasks: 26,
            }],
        };
        let json = manifest.to_json();
        assert!(json.ends_with("}\n"));
        assert!(
            !json.contains("shard") && !json.contains("themes"),
            "{json}"
        );
        assert!(json.contains("\"file\": \"world-00000.sqlite\""), "{json}");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MANIFEST), &json).unwrap();
        assert_eq!(read_manifest(dir.path()).unwrap(), manifest);
    }

    /// A valid entry for world `id`.
    fn entry(id: u32) -> ManifestEntry {
        ManifestEntry {
            id,
            file: world_file_name(id),
            sha256: "0123456789abcdef".repeat(4),
            bytes: None,
            theme: "islands".into(),
            name: format!("World {id}"),
            rows: 300,
            tables: 7,
            pages: 400,
            tasks: 26,
        }
    }

    /// A valid manifest of three worlds, ids 0 to 2.
    fn three_worlds() -> Manifest {
        Manifest {
            format_version: FORMAT_VERSION,
            generator_version: "g".into(),
            master_seed: 7,
            count: 3,
            shard: None,
            themes: Vec::new(),
            worlds: (0..3).map(entry).collect(),
        }
    }

    /// Validates `three_worlds` after `edit`: `expect` is `Ok` or a part of the problem.
    #[track_caller]
    fn check(edit: impl FnOnce(&mut Manifest), expect: std::result::Result<(), &str>) {
        let mut manifest = three_worlds();
        edit(&mut manifest);
        match (manifest.validate(), expect) {
            (Ok(()), Ok(())) => {}
            (Err(problem), Err(part)) => assert!(problem.contains(part), "{problem}"),
            (got, expect) => panic!("got {got:?}, expected {expect:?}"),
        }
    }

    #[test]
    fn validate_accepts_what_the_generator_writes() {
        check(|_| {}, Ok(()));
        check(|m| m.worlds.reverse(), Ok(()));
        check(
            |m| {
                m.count = 7;
                m.shard = Some("1/3".into());
                m.worlds = vec![entry(4), entry(1)];
            },
            Ok(()),
        );
    }

    #[test]
    fn validate_names_the_first_problem() {
        let file = |idx: usize, name: &str| {
            let name = name.to_owned();
            move |m: &mut Manifest| m.worlds[idx].file = name
        };
        check(|m| m.format_version = 9, Err("format_version 9"));
        check(|m| m.count = 4, Err("count is 4 but 3 worlds are listed"));
        check(|m| m.count = 2, Err("count is 2 but 3"));
        check(|m| m.worlds.truncate(2), Err("count is 3 but 2"));
        check(|m| m.worlds[2].id = 0, Err("world id 0 is listed twice"));
        check(
            file(1, "../other/world-00001.sqlite"),
            Err("world 1: file \"../other"),
        );
        check(file(1, "/etc/passwd"), Err("not a plain file name"));
        check(file(1, ".."), Err("not a plain file name"));
        check(file(1, "."), Err("not a plain file name"));
        check(file(1, ""), Err("not a plain file name"));
        check(
            file(1, "sub/world-00001.sqlite"),
            Err("not a plain file name"),
        );
        check(
            file(1, "..\\world-00001.sqlite"),
            Err("not a plain file name"),
        );
        check(
            file(1, "world-00000.sqlite"),
            Err("not the expected \"world-00001.sqlite\""),
        );
        check(
            |m| m.worlds[2].sha256 = "ab".into(),
            Err("world 2: sha256 \"ab\""),
        );
        check(
            |m| m.worlds[2].sha256 = "AB".repeat(32),
            Err("not 64 lower-case"),
        );
        check(
            |m| m.worlds[2].sha256 = "g".repeat(64),
            Err("not 64 lower-case"),
        );
        check(
            |m| m.shard = Some("3/3".into()),
            Err("shard \"3/3\" is not I/N"),
        );
        check(|m| m.shard = Some("one".into()), Err("is not I/N"));
        check(
            |m| m.shard = Some("0/2".into()),
            Err("world 1 is not in shard 0/2 of 3"),
        );
        check(
            |m| {
                m.shard = Some("0/1".into());
                m.worlds.pop();
            },
            Err("shard 0/1 of 3 worlds holds 3 worlds but 2 are listed"),
        );
    }

    #[test]
    fn shard_manifest_names_round_trip() {
        assert_eq!(shard_manifest_name(2, 4), "manifest.shard-2-of-4.json");
        assert_eq!(
            parse_shard_manifest_name("manifest.shard-2-of-4.json"),
            Some((2, 4))
        );
        for name in [
            MANIFEST,
            "manifest.shard-4-of-4.json",
            "manifest.shard-02-of-4.json",
            "manifest.shard-+2-of-4.json",
            "manifest.shard-2-of-4.json.tmp",
            "manifest.shard-x-of-4.json",
            "manifest.shard-2-4.json",
        ] {
            assert_eq!(parse_shard_manifest_name(name), None, "{name}");
        }
    }

    /// The manifests of the `total` shards of [`three_worlds`], as sharded runs write them.
    fn three_shards(total: u32) -> Vec<Manifest> {
        let whole = three_worlds();
        (0..total)
            .map(|index| Manifest {
                shard: Some(format!("{index}/{total}")),
                worlds: (0..3).filter(|id| id % total == index).map(entry).collect(),
                ..whole.clone()
            })
            .collect()
    }

    /// Merges the shards of [`three_shards`] after `edit`: `expect` is `Ok` or a part of the
    /// problem; a merge that succeeds must give the whole run's manifest.
    #[track_caller]
    fn check_merge(
        total: u32,
        edit: impl FnOnce(&mut Vec<Manifest>),
        expect: std::result::Result<(), &str>,
    ) {
        let mut shards = three_shards(total);
        edit(&mut shards);
        match (Manifest::merge(&shards), expect) {
            (Ok(merged), Ok(())) => assert_eq!(merged.to_json(), three_worlds().to_json()),
            (Err(problem), Err(part)) => assert!(problem.contains(part), "{problem}"),
            (got, expect) => panic!("got {got:?}, expected {expect:?}"),
        }
    }

    #[test]
    fn merge_gives_the_whole_runs_manifest() {
        check_merge(1, |_| {}, Ok(()));
        check_merge(2, |_| {}, Ok(()));
        check_merge(3, |s| s.reverse(), Ok(()));
        // A shard may hold no world at all when there are more shards than worlds.
        check_merge(4, |s| s.rotate_left(1), Ok(()));
    }

    #[test]
    fn merge_names_the_first_problem() {
        check_merge(2, |s| s.clear(), Err("there are no shard manifests"));
        check_merge(3, |s| s.remove(1).shard = None, Err("shard 1/3 is missing"));
        check_merge(
            3,
            |s| {
                s.remove(2);
            },
            Err("shard 2/3 is missing (no manifest.shard-2-of-3.json)"),
        );
        check_merge(2, |s| s[1] = s[0].clone(), Err("shard 0/2 is given twice"));
        check_merge(
            2,
            |s| s[1].shard = None,
            Err("a manifest of a whole dataset is not a shard's"),
        );
        check_merge(
            2,
            |s| s.push(three_shards(3).remove(2)),
            Err("shard 2/3 is one of 3 shards, but shard 0/2 is one of 2"),
        );
        check_merge(
            2,
            |s| s[1].master_seed = 8,
            Err("shard 1/2 has master_seed \"8\" but shard 0/2 has \"7\""),
        );
        check_merge(
            2,
            |s| s[1].generator_version = "h".into(),
            Err("has generator_version \"h\""),
        );
        check_merge(
            2,
            |s| s[0].count = 4,
            Err("shard 1/2 has count \"3\" but shard 0/2 has \"4\""),
        );
        check_merge(
            2,
            |s| s[1].themes = vec!["islands".into()],
            Err("has themes \"islands\" but shard 0/2 has \"\""),
        );
        check_merge(
            2,
            |s| s[1].worlds.clear(),
            Err("shard 1/2: shard 1/2 of 3 worlds holds 1 worlds but 0 are listed"),
        );
        check_merge(
            2,
            |s| s[1].worlds[0].id = 3,
            Err("shard 1/2: world 3 is not in shard 1/2 of 3 worlds"),
        );
        check_merge(
            2,
            |s| s[0].worlds[1].sha256 = "ab".into(),
            Err("shard 0/2: world 2: sha256"),
        );
    }

    #[test]
    fn sha256_file_is_the_lower_hex_digest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("abc");
        std::fs::write(&path, "abc").unwrap();
        assert_eq!(
            sha256_file(&path).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(matches!(
            sha256_file(&dir.path().join("missing")),
            Err(Error::Io { .. })
        ));
    }
}
