//! The persisted index of one world, a "bundle": one file holding named sections (the page
//! store's tables and texts, the world's name and every file of its tantivy index) behind a
//! header that says which world file it was built from.
//!
//! Layout, all integers little-endian:
//!
//! | bytes | what |
//! | --- | --- |
//! | 8 | magic, `FABIDX\r\n` |
//! | 4 | [`INDEX_FORMAT_VERSION`] |
//! | 4 | world id |
//! | 64 | the world file's SHA-256 as the manifest states it, lower-case hex |
//! | 4 | number of sections |
//! | 4 | CRC-32 of every byte of the file except these four |
//! | ... | section table: per section a `u16` name length, the name, a `u64` offset, a `u64` length |
//! | ... | section bytes, each starting at a multiple of 8 |
//!
//! A bundle is a cache keyed by (world id, hash, format version): one whose key differs is stale,
//! one whose checksum or table is wrong is corrupt, and both are rebuilt from the world file.
//! The checksum is checked when a bundle is first opened (and again whenever the file's inode,
//! length or modification time changed), so a damaged file is found then and never half-read
//! later. Bundles are written to a unique temporary name in the same folder, synced and
//! renamed, so readers see the old file or the new one, never a part.
//!
//! The workspace forbids unsafe code, so the one mapping comes from tantivy's `MmapDirectory`,
//! opened on the bundle's folder and asked for one file.

use std::io::Write;
use std::path::Path;

use tantivy::Directory;
use tantivy::directory::error::{OpenDirectoryError, OpenReadError};
use tantivy::directory::{MmapDirectory, OwnedBytes};

/// The version of the bundle format and of everything stored in it. Bump it whenever anything a
/// bundle stores changes (this layout, the page store's encoding, the analyzer, the tantivy
/// schema or version): bundles of another version are stale and rebuilt.
pub const INDEX_FORMAT_VERSION: u32 = 2;

const MAGIC: &[u8; 8] = b"FABIDX\r\n";

/// The length of a world file's SHA-256 in lower-case hex.
const SHA256_LEN: usize = 64;

/// Where the checksum sits in the header, and the header's length.
const CHECKSUM_AT: usize = 8 + 4 + 4 + SHA256_LEN + 4;
const HEADER_LEN: usize = CHECKSUM_AT + 4;

/// Section data starts at multiples of this.
const ALIGN: usize = 8;

/// What a persisted index is keyed by: the world and its file's SHA-256 as the manifest states
/// it (lower-case hex).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexKey<'a> {
    pub world_id: u32,
    pub sha256: &'a str,
}

/// Why a bundle cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Problem {
    /// Written for another world file or format version.
    Stale(String),
    /// Damaged: truncated, a bad checksum or a table that does not fit the file.
    Corrupt(String),
}

/// The named byte ranges of one bundle, in the order they were added.
#[derive(Debug, Default)]
pub(crate) struct Sections {
    sections: Vec<(String, OwnedBytes)>,
}

impl Sections {
    /// Adds a section; names are unique by construction of the callers.
    pub(crate) fn push(&mut self, name: impl Into<String>, bytes: Vec<u8>) {
        self.push_bytes(name, OwnedBytes::new(bytes));
    }

    /// Adds a section that shares bytes already held elsewhere.
    pub(crate) fn push_bytes(&mut self, name: impl Into<String>, bytes: OwnedBytes) {
        self.sections.push((name.into(), bytes));
    }

    /// The section called `name`, if there is one.
    pub(crate) fn get(&self, name: &str) -> Option<&OwnedBytes> {
        self.sections
            .iter()
            .find(|(section, _)| section == name)
            .map(|(_, bytes)| bytes)
    }

    /// The section called `name`, or why the bundle is unusable without it.
    pub(crate) fn require(&self, name: &str) -> Result<&OwnedBytes, String> {
        self.get(name)
            .ok_or_else(|| format!("section {name:?} is missing"))
    }

    /// The sections whose names start with `prefix`, with the prefix cut off.
    pub(crate) fn with_prefix<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a OwnedBytes)> + 'a {
        self.sections
            .iter()
            .filter_map(move |(name, bytes)| name.strip_prefix(prefix).map(|rest| (rest, bytes)))
    }

    /// The bundle file's bytes: header, section table and sections.
    pub(crate) fn encode(&self, key: IndexKey<'_>) -> Vec<u8> {
        let table_len: usize = self
            .sections
            .iter()
            .map(|(name, _)| 2 + name.len() + 8 + 8)
            .sum();
        let mut offset = align(HEADER_LEN + table_len);
        let mut out = Vec::with_capacity(offset + self.data_len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&INDEX_FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&key.world_id.to_le_bytes());
        out.extend_from_slice(&sha256_field(key.sha256));
        out.extend_from_slice(&(self.sections.len() as u32).to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        for (name, bytes) in &self.sections {
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&(offset as u64).to_le_bytes());
            out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            offset = align(offset + bytes.len());
        }
        for (_, bytes) in &self.sections {
            out.resize(align(out.len()), 0);
            out.extend_from_slice(bytes.as_slice());
        }
        let checksum = crc32(&out);
        out[CHECKSUM_AT..HEADER_LEN].copy_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads a bundle's sections, which share `bytes`, after checking its header against `key`
    /// and, when `checksum` says so, its checksum.
    pub(crate) fn decode(
        bytes: OwnedBytes,
        key: IndexKey<'_>,
        checksum: Checksum,
    ) -> Result<Sections, Problem> {
        let corrupt = |reason: &str| Problem::Corrupt(reason.to_owned());
        let truncated = |_| corrupt("truncated header");
        if bytes.is_empty() {
            return Err(corrupt("empty file"));
        }
        let mut header = ByteReader::new(bytes.as_slice());
        let magic = header.bytes(MAGIC.len()).map_err(truncated)?;
        if magic != MAGIC {
            return Err(corrupt("not a fabula index file"));
        }
        let version = header.u32().map_err(truncated)?;
        if version != INDEX_FORMAT_VERSION {
            return Err(Problem::Stale(format!(
                "format version {version}, expected {INDEX_FORMAT_VERSION}"
            )));
        }
        let world_id = header.u32().map_err(truncated)?;
        let sha256 = header.bytes(SHA256_LEN).map_err(truncated)?;
        let n_sections = header.u32().map_err(truncated)?;
        let stored_checksum = header.u32().map_err(truncated)?;
        if world_id != key.world_id {
            return Err(Problem::Stale(format!(
                "built for world {world_id}, expected {}",
                key.world_id
            )));
        }
        if sha256 != sha256_field(key.sha256).as_slice() {
            return Err(Problem::Stale(format!(
                "built for world file sha256 {}, manifest {}",
                String::from_utf8_lossy(sha256),
                key.sha256
            )));
        }
        if checksum == Checksum::Verify && crc32(bytes.as_slice()) != stored_checksum {
            return Err(corrupt("checksum mismatch"));
        }
        let sections = read_table(&bytes, header, n_sections).map_err(Problem::Corrupt)?;
        Ok(Sections { sections })
    }

    fn data_len(&self) -> usize {
        self.sections
            .iter()
            .map(|(_, bytes)| align(bytes.len()))
            .sum()
    }
}

/// Reads the section table that `table` starts with, and slices each section out of `bytes`.
fn read_table(
    bytes: &OwnedBytes,
    mut table: ByteReader<'_>,
    n_sections: u32,
) -> Result<Vec<(String, OwnedBytes)>, String> {
    let mut sections = Vec::new();
    for _ in 0..n_sections {
        let name_len = usize::from(table.u16()?);
        let name = std::str::from_utf8(table.bytes(name_len)?)
            .map_err(|_| "a section name is not UTF-8".to_owned())?;
        let offset = table.u64()?;
        let len = table.u64()?;
        let range = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(len).ok())
            .and_then(|(start, len)| Some(start..start.checked_add(len)?))
            .filter(|range| range.end <= bytes.len())
            .ok_or_else(|| format!("section {name:?} lies outside the file"))?;
        sections.push((name.to_owned(), bytes.slice(range)));
    }
    Ok(sections)
}

/// Whether opening a bundle reads every byte to check its CRC-32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Checksum {
    Verify,
    /// Only for a file this process has verified already and that has not changed since (same
    /// inode, length and modification time): the check touches every page of the mapping, which
    /// is most of the cost of reopening a world after the cache closed it.
    Trust,
}

/// The CRC-32 of every byte but the checksum's own four.
fn crc32(file: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&file[..CHECKSUM_AT.min(file.len())]);
    hasher.update(file.get(HEADER_LEN..).unwrap_or_default());
    hasher.finalize()
}

/// The header's hash field: the hex digits, zero-padded (a manifest's hash always has 64).
fn sha256_field(sha256: &str) -> [u8; SHA256_LEN] {
    let mut field = [0; SHA256_LEN];
    let len = sha256.len().min(SHA256_LEN);
    field[..len].copy_from_slice(&sha256.as_bytes()[..len]);
    field
}

fn align(len: usize) -> usize {
    len.next_multiple_of(ALIGN)
}

/// Reads little-endian integers and byte strings from the front of a slice, failing on a short
/// one instead of panicking.
pub(crate) struct ByteReader<'a> {
    bytes: &'a [u8],
}

impl<'a> ByteReader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> ByteReader<'a> {
        ByteReader { bytes }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub(crate) fn bytes(&mut self, len: usize) -> Result<&'a [u8], String> {
        let (head, rest) = self
            .bytes
            .split_at_checked(len)
            .ok_or_else(|| "truncated".to_owned())?;
        self.bytes = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let (head, rest) = self
            .bytes
            .split_first_chunk::<N>()
            .ok_or_else(|| "truncated".to_owned())?;
        self.bytes = rest;
        Ok(*head)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, String> {
        Ok(self.array::<1>()?[0])
    }

    pub(crate) fn u16(&mut self) -> Result<u16, String> {
        self.array().map(u16::from_le_bytes)
    }

    pub(crate) fn u32(&mut self) -> Result<u32, String> {
        self.array().map(u32::from_le_bytes)
    }

    pub(crate) fn u64(&mut self) -> Result<u64, String> {
        self.array().map(u64::from_le_bytes)
    }
}

/// Maps a bundle file read-only. A missing file (or folder, or a folder that is a file) is an
/// error of kind `NotFound`.
pub(crate) fn map(path: &Path) -> std::io::Result<OwnedBytes> {
    let not_found = || std::io::Error::from(std::io::ErrorKind::NotFound);
    let (Some(folder), Some(file_name)) = (path.parent(), path.file_name()) else {
        return Err(not_found());
    };
    // A folder that is not there, or not a folder, holds no index.
    let directory = MmapDirectory::open(folder).map_err(|error| match error {
        OpenDirectoryError::DoesNotExist(_) | OpenDirectoryError::NotADirectory(_) => not_found(),
        other => std::io::Error::other(other),
    })?;
    let file = directory
        .open_read(Path::new(file_name))
        .map_err(|error| match error {
            OpenReadError::FileDoesNotExist(_) => not_found(),
            OpenReadError::IoError { io_error, .. } => {
                std::io::Error::new(io_error.kind(), io_error.to_string())
            }
            other => std::io::Error::other(other),
        })?;
    file.read_bytes()
}

/// Writes a bundle atomically: to a unique temporary file in the same folder (created if
/// needed), synced, then renamed over `path`.
pub(crate) fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)?;
    let mut file = tempfile::Builder::new()
        .prefix(".fidx-")
        .suffix(".tmp")
        .tempfile_in(folder)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn key() -> IndexKey<'static> {
        IndexKey {
            world_id: 7,
            sha256: SHA,
        }
    }

    fn sample() -> Vec<u8> {
        let mut sections = Sections::default();
        sections.push("a", b"first".to_vec());
        sections.push("tantivy/meta.json", b"{}".to_vec());
        sections.push("empty", Vec::new());
        sections.push("tantivy/x.idx", vec![9; 1000]);
        sections.encode(key())
    }

    #[test]
    fn round_trips_sections() {
        let decoded = Sections::decode(OwnedBytes::new(sample()), key(), Checksum::Verify).unwrap();
        assert_eq!(decoded.get("a").unwrap().as_slice(), b"first");
        assert!(decoded.get("empty").unwrap().is_empty());
        assert!(decoded.get("b").is_none());
        assert_eq!(
            decoded.require("b").unwrap_err(),
            r#"section "b" is missing"#
        );
        let tantivy: Vec<(&str, usize)> = decoded
            .with_prefix("tantivy/")
            .map(|(name, bytes)| (name, bytes.len()))
            .collect();
        assert_eq!(tantivy, [("meta.json", 2), ("x.idx", 1000)]);
    }

    /// Decodes `bytes` with `key` and compares the outcome: `Ok(())` or the problem.
    #[track_caller]
    fn check(bytes: Vec<u8>, key: IndexKey<'_>, expect: Result<(), Problem>) {
        let got = Sections::decode(OwnedBytes::new(bytes), key, Checksum::Verify).map(drop);
        assert_eq!(got, expect);
    }

    #[test]
    fn finds_stale_and_corrupt_bundles() {
        let corrupt = |reason: &str| Err(Problem::Corrupt(reason.to_owned()));
        let good = sample();
        check(good.clone(), key(), Ok(()));
        check(Vec::new(), key(), corrupt("empty file"));
        check(b"FABI".to_vec(), key(), corrupt("truncated header"));
        check(
            good[..HEADER_LEN - 1].to_vec(),
            key(),
            corrupt("truncated header"),
        );
        check(
            good[..good.len() - 1].to_vec(),
            key(),
            corrupt("checksum mismatch"),
        );
        check(
            b"SQLite format 3\0".repeat(20),
            key(),
            corrupt("not a fabula index file"),
        );
        let mut flipped = good.clone();
        flipped[HEADER_LEN + 3] ^= 1;
        check(flipped, key(), corrupt("checksum mismatch"));
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 0x80;
        check(flipped, key(), corrupt("checksum mismatch"));
        let mut old = good.clone();
        old[8..12].copy_from_slice(&(INDEX_FORMAT_VERSION + 1).to_le_bytes());
        let expect = format!(
            "format version {}, expected {INDEX_FORMAT_VERSION}",
            INDEX_FORMAT_VERSION + 1
        );
        check(old, key(), Err(Problem::Stale(expect)));
        let other_world = IndexKey {
            world_id: 8,
            ..key()
        };
        let expect = "built for world 7, expected 8".to_owned();
        check(good.clone(), other_world, Err(Problem::Stale(expect)));
        let other_sha = "f".repeat(64);
        let other_file = IndexKey {
            sha256: &other_sha,
            ..key()
        };
        let expect = format!("built for world file sha256 {SHA}, manifest {other_sha}");
        check(good, other_file, Err(Problem::Stale(expect)));
    }

    #[test]
    fn a_table_outside_the_file_is_corrupt() {
        let mut sections = Sections::default();
        sections.push("a", b"first".to_vec());
        let mut bytes = sections.encode(key());
        // The section's length, after its name length (2), name (1) and offset (8).
        let len_at = HEADER_LEN + 2 + 1 + 8;
        bytes[len_at..len_at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        let checksum = crc32(&bytes);
        bytes[CHECKSUM_AT..HEADER_LEN].copy_from_slice(&checksum.to_le_bytes());
        let expect = Problem::Corrupt(r#"section "a" lies outside the file"#.to_owned());
        check(bytes, key(), Err(expect));
    }

    #[test]
    fn writes_atomically_and_maps() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index").join("world-00007.fidx");
        let error = map(&path).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
        write(&path, &sample()).unwrap();
        write(&path, &sample()).unwrap();
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["world-00007.fidx"], "no temporary file is left");
        let mapped = map(&path).unwrap();
        assert_eq!(mapped.as_slice(), sample());
        Sections::decode(mapped, key(), Checksum::Verify).unwrap();
    }
}
