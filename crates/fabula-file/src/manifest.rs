//! The manifest of a dataset directory (`manifest.json`): which world files it holds, with their
//! hashes and sizes. The generator writes it last, by rename; the server and `fabula check` read it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// File name of the manifest inside a dataset directory.
pub const MANIFEST: &str = "manifest.json";

/// One world's entry in the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestEntry {
    pub id: u32,
    /// The world file's name, relative to the dataset directory.
    pub file: String,
    /// The SHA-256 of the world file, as lower-case hex.
    pub sha256: String,
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
}

/// The file name of a world.
pub fn world_file_name(id: u32) -> String {
    format!("world-{id:05}.sqlite")
}

/// Reads `dir/manifest.json`.
pub fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|source| Error::Io {
        path: path.clone(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| Error::Json { path, source })
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
}
