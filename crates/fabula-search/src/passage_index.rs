//! The passage index: every passage of every world of a dataset in one tantivy index, the
//! "fictional encyclopedia" that `/retrieve` searches when no world is named.
//!
//! Layout, in `DIR/index/passages/`:
//!
//! - tantivy's files: one segment per group of [`WORLDS_PER_SEGMENT`] worlds (in id order), each
//!   built on its own by a single-segment writer with a segment id fixed by the group's number,
//!   and one `meta.json` listing them all, so the bytes depend only on the worlds. Fields: the
//!   page title and the passage text (term frequencies, no positions, nothing stored) and the
//!   world id (indexed, for searches within one world).
//! - `passages.tbl`: per segment the number of its first passage, then per passage its world id,
//!   page (position in the world's url-sorted page store) and byte range in the page's plain text,
//!   16 bytes each. A hit's doc id in its segment plus the segment's first number is its row.
//! - `stamp`, written last, so a folder without one is an unfinished build: the format version,
//!   the key (SHA-256 over every world's id and file hash), the number of passages and the worlds
//!   left out because they could not be opened. A stamp with another key or version, or one that
//!   left worlds out, is stale: the index is built again (a world repaired since is then included).
//!
//! A build writes into a new temporary folder beside `passages/` and swaps it in by renames, so a
//! reader sees the old index or the new one, never a mix. The passage text itself is not stored:
//! a hit is rendered from its world's page store, which also applies the requested hiding. Like
//! the per-world indexes, this one is a cache: deleting it loses nothing.

use std::fs::{self, File};
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde_json::Value;
use tantivy::collector::{Collector, TopDocs};
use tantivy::directory::{OwnedBytes, RamDirectory};
use tantivy::query::{BooleanQuery, ConstScoreQuery, EnableScoring, Occur, Query, TermQuery};
use tantivy::schema::{Field, INDEXED, IndexRecordOption, Schema};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{
    Index, IndexSettings, ReloadPolicy, Score, Searcher, SegmentReader, SingleSegmentIndexWriter,
    TantivyDocument, TantivyError, Term,
};

use crate::analyzer::passage_analyzer;
use crate::bundle;
use crate::index::{hyphenated, query_terms, ram_file, text_options};
use crate::slice_dir::SliceDirectory;
use crate::{Error, Result, WorldIndex};

/// The version of the passage index's layout; a stamp of another version is stale.
pub const PASSAGE_FORMAT_VERSION: u32 = 1;

/// The folder under `DIR/index/` that holds the passage index.
pub(crate) const PASSAGE_DIR: &str = "passages";

/// Worlds per tantivy segment: a segment of 256 worlds holds about 100,000 passages. Each query
/// looks its terms up in every segment, so fewer segments answer faster; a group is built in
/// memory, about 0.3 GB for 256 worlds.
const WORLDS_PER_SEGMENT: usize = 256;

const STAMP_FILE: &str = "stamp";
const STAMP_HEADER: &str = "fabula passage index";
const TABLE_FILE: &str = "passages.tbl";
const TABLE_MAGIC: &[u8; 8] = b"FPASSAGE";
const ENTRY_BYTES: usize = 16;

/// The writer's initial memory budget per segment (it sizes tantivy's term table).
const WRITER_MEMORY: usize = 16 << 20;

/// The name the passage analyzer is registered under.
const TOKENIZER: &str = "fabula-passages";

const TITLE_FIELD: &str = "title";
const BODY_FIELD: &str = "body";
const WORLD_FIELD: &str = "world";

/// Where one passage comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) world: u32,
    pub(crate) page: u32,
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// The passage index of a dataset, opened from its folder (mapped).
pub(crate) struct PassageIndex {
    searcher: Searcher,
    title: Field,
    body: Field,
    world: Field,
    /// The analyzer the passages were indexed with, for queries (cloned per query).
    analyzer: TextAnalyzer,
    /// The entries of `passages.tbl`, mapped.
    entries: OwnedBytes,
    /// Per segment, in the searcher's order: the row of its first passage.
    segment_base: Vec<u64>,
    /// The folder of an index built for this process only (when indexes are not written): it
    /// is removed when the index is dropped, after the mappings above.
    _temporary: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for PassageIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassageIndex")
            .field("n_passages", &self.len())
            .finish_non_exhaustive()
    }
}

/// What a build did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassageBuild {
    /// Passages indexed.
    pub passages: u64,
    /// Worlds left out because they could not be opened, by id.
    pub skipped: Vec<u32>,
}

/// Opens a world's index by id, for a build: the corpus's cache, in practice.
pub(crate) trait WorldSource: Sync {
    fn open_world(&self, id: u32) -> Result<Arc<WorldIndex>>;
}

impl PassageIndex {
    /// Opens the index in `folder` when its stamp holds `key`, this format version and no
    /// left-out worlds. A folder without a stamp is [`Error::Io`] of kind `NotFound`; another
    /// stamp is [`Error::StaleIndex`]; files that do not fit together are [`Error::CorruptIndex`].
    pub(crate) fn open(folder: &Path, key: &str) -> Result<PassageIndex> {
        PassageIndex::open_without(folder, key, &[])
    }

    /// [`PassageIndex::open`], also accepting an index built without some of the worlds in
    /// `left_out` (those a server knows are unavailable), but no others.
    pub(crate) fn open_without(folder: &Path, key: &str, left_out: &[u32]) -> Result<PassageIndex> {
        let stamp = read_stamp(folder)?;
        stamp.check(folder, key, left_out)?;
        let corrupt = |reason: String| Error::CorruptIndex {
            path: folder.to_owned(),
            reason,
        };
        let mut files = Vec::new();
        for entry in fs::read_dir(folder).map_err(|source| io_error(folder, source))? {
            let entry = entry.map_err(|source| io_error(folder, source))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == STAMP_FILE || name == TABLE_FILE {
                continue;
            }
            let bytes =
                bundle::map(&entry.path()).map_err(|source| io_error(&entry.path(), source))?;
            files.push((PathBuf::from(name), bytes));
        }
        let index = Index::open(SliceDirectory::new(files))?;
        let schema = index.schema();
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .doc_store_cache_num_blocks(0)
            .try_into()?;
        let searcher = reader.searcher();
        let table_path = folder.join(TABLE_FILE);
        let table = bundle::map(&table_path).map_err(|source| io_error(&table_path, source))?;
        let (bases, entries) = split_table(table).map_err(&corrupt)?;
        let mut segment_base = Vec::new();
        for segment in searcher.segment_readers() {
            let group = group_of(&segment.segment_id().uuid_string())
                .filter(|&group| group + 1 < bases.len())
                .ok_or_else(|| corrupt("a segment that no group of the table names".to_owned()))?;
            if bases[group + 1] - bases[group] != u64::from(segment.max_doc()) {
                return Err(corrupt(format!("segment {group} does not match the table")));
            }
            segment_base.push(bases[group]);
        }
        let n_entries = (entries.len() / ENTRY_BYTES) as u64;
        if bases.last() != Some(&n_entries) || n_entries != stamp.passages {
            return Err(corrupt("the table and the stamp disagree".to_owned()));
        }
        Ok(PassageIndex {
            searcher,
            title: schema.get_field(TITLE_FIELD)?,
            body: schema.get_field(BODY_FIELD)?,
            world: schema.get_field(WORLD_FIELD)?,
            analyzer: passage_analyzer(),
            entries,
            segment_base,
            _temporary: None,
        })
    }

    /// Builds the index of the worlds `ids` into a temporary folder of this process's
    /// own, removed when the index is dropped.
    pub(crate) fn build_temporary(
        worlds: &dyn WorldSource,
        ids: &[u32],
        key: &str,
        jobs: usize,
    ) -> Result<PassageIndex> {
        let temporary = tempfile::Builder::new()
            .prefix("fabula-passages-")
            .tempdir()
            .map_err(|source| io_error(Path::new("fabula-passages-*"), source))?;
        let folder = temporary.path().join(PASSAGE_DIR);
        build(worlds, ids, &folder, key, jobs)?;
        let mut index = PassageIndex::open(&folder, key)?;
        index._temporary = Some(temporary);
        Ok(index)
    }

    /// The number of passages.
    pub(crate) fn len(&self) -> u64 {
        (self.entries.len() / ENTRY_BYTES) as u64
    }

    /// The `top_k` best passages for `query` (plain text, analyzed as the passages were), in
    /// all worlds or in `world` only: BM25 over the page title and the passage text, summed,
    /// best first. A query without terms has none.
    pub(crate) fn search(
        &self,
        query: &str,
        top_k: usize,
        world: Option<u32>,
    ) -> Result<Vec<(Score, Entry)>> {
        let terms = query_terms(&mut self.analyzer.clone(), query);
        let terms = terms.as_slice();
        if terms.is_empty() || top_k == 0 {
            return Ok(Vec::new());
        }
        let collector = TopDocs::with_limit(top_k);
        let scoring = EnableScoring::enabled_from_searcher(&self.searcher);
        let mut fruits = Vec::new();
        for (ord, segment) in self.searcher.segment_readers().iter().enumerate() {
            let Some(query) = self.segment_query(segment, terms, world)? else {
                continue;
            };
            let weight = query.weight(scoring)?;
            fruits.push(collector.collect_segment(weight.as_ref(), ord as u32, segment)?);
        }
        let top = collector.merge_fruits(fruits)?;
        top.into_iter()
            .map(|(score, address)| {
                let base = self.segment_base[address.segment_ord as usize];
                Ok((score, self.entry(base + u64::from(address.doc_id))?))
            })
            .collect()
    }

    /// The query for one segment: an OR of plain term queries, over the title and the passage
    /// text, of the terms the segment holds (BM25 statistics still come from the whole index),
    /// within `world` when given. None when the segment cannot match.
    ///
    /// Only terms the segment holds, and no boosts: tantivy's block-max WAND prunes a boolean OR
    /// of term scorers that read frequencies, and one boosted clause, or one term absent from the
    /// segment (an empty posting list reads none), turns it into a full union of every posting:
    /// 8.2 s instead of 0.3 s for 1,024 questions over the 405,000 passages of 1,000 worlds.
    fn segment_query(
        &self,
        segment: &SegmentReader,
        terms: &[String],
        world: Option<u32>,
    ) -> Result<Option<Box<dyn Query>>> {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::with_capacity(terms.len() * 2);
        for field in [self.title, self.body] {
            let postings = segment.inverted_index(field)?;
            for term in terms {
                let term = Term::from_field_text(field, term);
                if postings
                    .get_term_info(&term)
                    .map_err(TantivyError::from)?
                    .is_some()
                {
                    let query = TermQuery::new(term, IndexRecordOption::WithFreqs);
                    clauses.push((Occur::Should, Box::new(query)));
                }
            }
        }
        if clauses.is_empty() {
            return Ok(None);
        }
        let query: Box<dyn Query> = Box::new(BooleanQuery::new(clauses));
        let Some(world) = world else {
            return Ok(Some(query));
        };
        let in_world = Term::from_field_u64(self.world, u64::from(world));
        let holds_world = segment
            .inverted_index(self.world)?
            .get_term_info(&in_world)
            .map_err(TantivyError::from)?
            .is_some();
        if !holds_world {
            return Ok(None);
        }
        let in_world = TermQuery::new(in_world, IndexRecordOption::Basic);
        Ok(Some(Box::new(BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(in_world), 0.0)),
            ),
            (Occur::Must, query),
        ]))))
    }

    fn entry(&self, row: u64) -> Result<Entry> {
        let offset = usize::try_from(row)
            .ok()
            .and_then(|row| row.checked_mul(ENTRY_BYTES))
            .filter(|&offset| offset + ENTRY_BYTES <= self.entries.len())
            .ok_or_else(|| Error::Internal(format!("passage {row} is not in the table")))?;
        let bytes = &self.entries.as_slice()[offset..offset + ENTRY_BYTES];
        let word = |idx: usize| {
            u32::from_le_bytes(bytes[idx * 4..idx * 4 + 4].try_into().expect("4 bytes"))
        };
        Ok(Entry {
            world: word(0),
            page: word(1),
            start: word(2),
            end: word(3),
        })
    }
}

/// Builds the passage index of the worlds `ids` (sorted) into `folder`, replacing what is there,
/// with `jobs` threads (one segment per group of worlds at a time each).
pub(crate) fn build(
    worlds: &dyn WorldSource,
    ids: &[u32],
    folder: &Path,
    key: &str,
    jobs: usize,
) -> Result<PassageBuild> {
    let parent = folder.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(|source| io_error(parent, source))?;
    let staging = tempfile::Builder::new()
        .prefix(".passages-")
        .tempdir_in(parent)
        .map_err(|source| io_error(parent, source))?;
    let groups: Vec<&[u32]> = ids.chunks(WORLDS_PER_SEGMENT).collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|error| Error::Internal(format!("cannot start the build's threads: {error}")))?;
    let built: Vec<Group> = pool.install(|| {
        groups
            .par_iter()
            .enumerate()
            .map(|(number, group)| build_group(worlds, number, group, staging.path()))
            .collect::<Result<Vec<Group>>>()
    })?;
    write_meta(staging.path(), &built)?;
    let passages = write_table(staging.path(), &built)?;
    let skipped: Vec<u32> = built
        .iter()
        .flat_map(|group| group.skipped.iter().copied())
        .collect();
    let stamp = Stamp {
        format: PASSAGE_FORMAT_VERSION,
        key: key.to_owned(),
        passages,
        skipped: skipped.clone(),
    };
    let stamp_path = staging.path().join(STAMP_FILE);
    write_synced(&stamp_path, stamp.to_text().as_bytes())?;
    swap_in(staging, folder)?;
    Ok(PassageBuild { passages, skipped })
}

/// One group's segment, built and written into the staging folder.
struct Group {
    /// The segment's entry of `meta.json`; None when the group has no passages.
    segment: Option<Value>,
    /// Its passages, written to the group's part of the table.
    passages: u64,
    part: PathBuf,
    skipped: Vec<u32>,
}

fn schema() -> (Schema, Field, Field, Field) {
    let mut schema = Schema::builder();
    let options = text_options(TOKENIZER);
    let title = schema.add_text_field(TITLE_FIELD, options.clone());
    let body = schema.add_text_field(BODY_FIELD, options);
    let world = schema.add_u64_field(WORLD_FIELD, INDEXED);
    (schema.build(), title, body, world)
}

/// The fixed segment id of group `number`: 32 hex digits.
fn segment_id(number: usize) -> String {
    format!("fab1de{number:026x}")
}

/// The group number a segment id names, if it is one of ours.
fn group_of(segment_id: &str) -> Option<usize> {
    let digits = segment_id.strip_prefix("fab1de")?;
    usize::from_str_radix(digits, 16).ok()
}

fn build_group(
    worlds: &dyn WorldSource,
    number: usize,
    ids: &[u32],
    staging: &Path,
) -> Result<Group> {
    let (schema, title, body, world) = schema();
    let ram = RamDirectory::create();
    let index = Index::create(ram.clone(), schema, IndexSettings::default())?;
    index.tokenizers().register(TOKENIZER, passage_analyzer());
    let mut writer = SingleSegmentIndexWriter::new(index, WRITER_MEMORY)?;
    let part = staging.join(format!("group-{number:06}.part"));
    let mut table = BufWriter::new(File::create(&part).map_err(|source| io_error(&part, source))?);
    let mut passages = 0u64;
    let mut skipped = Vec::new();
    for &id in ids {
        let index = match worlds.open_world(id) {
            Ok(index) => index,
            Err(error) => {
                tracing::warn!(world = id, error = %crate::ErrorChain(&error), "world left out of the passage index");
                skipped.push(id);
                continue;
            }
        };
        index.for_each_passage(|page, page_title, text, start, end| {
            let mut doc = TantivyDocument::new();
            doc.add_text(title, page_title);
            doc.add_text(body, text);
            doc.add_u64(world, u64::from(id));
            writer.add_document(doc)?;
            for word in [id, page, start, end] {
                table
                    .write_all(&word.to_le_bytes())
                    .map_err(|source| io_error(&part, source))?;
            }
            passages += 1;
            Ok(())
        })?;
    }
    table.flush().map_err(|source| io_error(&part, source))?;
    let index = writer.finalize()?;
    let segment = write_segment(&ram, &index, number, staging)?;
    Ok(Group {
        segment,
        passages,
        part,
        skipped,
    })
}

/// Writes the group's one segment (if any) under its fixed id and returns its `meta.json` entry.
fn write_segment(
    ram: &RamDirectory,
    index: &Index,
    number: usize,
    staging: &Path,
) -> Result<Option<Value>> {
    let segments = index.searchable_segment_metas()?;
    let Some(segment) = segments.first() else {
        return Ok(None);
    };
    if segments.len() > 1 {
        return Err(Error::Internal(format!(
            "expected one segment, found {}",
            segments.len()
        )));
    }
    let random_id = segment.id().uuid_string();
    let fixed_id = segment_id(number);
    for path in segment.list_files() {
        let Some(bytes) = ram_file(ram, &path)? else {
            continue;
        };
        let name = path.to_string_lossy().replace(&random_id, &fixed_id);
        let target = staging.join(name);
        write_synced(&target, &bytes)?;
    }
    let meta = ram_file(ram, Path::new("meta.json"))?
        .ok_or_else(|| Error::Internal("tantivy wrote no meta.json".to_owned()))?;
    let meta: Value = serde_json::from_slice(&meta)
        .map_err(|error| Error::Internal(format!("tantivy's meta.json: {error}")))?;
    let mut entry = meta["segments"][0].clone();
    entry["segment_id"] = Value::String(hyphenated(&fixed_id));
    Ok(Some(entry))
}

/// Writes the `meta.json` that lists every group's segment, in group order.
fn write_meta(staging: &Path, groups: &[Group]) -> Result<()> {
    let (schema, ..) = schema();
    let ram = RamDirectory::create();
    Index::create(ram.clone(), schema, IndexSettings::default())?;
    let meta = ram_file(&ram, Path::new("meta.json"))?
        .ok_or_else(|| Error::Internal("tantivy wrote no meta.json".to_owned()))?;
    let mut meta: Value = serde_json::from_slice(&meta)
        .map_err(|error| Error::Internal(format!("tantivy's meta.json: {error}")))?;
    let segments: Vec<Value> = groups
        .iter()
        .filter_map(|group| group.segment.clone())
        .collect();
    meta["segments"] = Value::Array(segments);
    let text = serde_json::to_string_pretty(&meta)
        .map_err(|error| Error::Internal(format!("meta.json: {error}")))?;
    write_synced(&staging.join("meta.json"), text.as_bytes())
}

/// Writes `passages.tbl` from the groups' parts (removing them) and returns the passage count.
fn write_table(staging: &Path, groups: &[Group]) -> Result<u64> {
    let path = staging.join(TABLE_FILE);
    let mut table = BufWriter::new(File::create(&path).map_err(|source| io_error(&path, source))?);
    let mut header = Vec::with_capacity(16 + 8 * (groups.len() + 1));
    header.extend_from_slice(TABLE_MAGIC);
    header.extend_from_slice(&PASSAGE_FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&(groups.len() as u32).to_le_bytes());
    let mut base = 0u64;
    header.extend_from_slice(&base.to_le_bytes());
    for group in groups {
        base += group.passages;
        header.extend_from_slice(&base.to_le_bytes());
    }
    table
        .write_all(&header)
        .map_err(|source| io_error(&path, source))?;
    for group in groups {
        let mut part = File::open(&group.part).map_err(|source| io_error(&group.part, source))?;
        std::io::copy(&mut part, &mut table).map_err(|source| io_error(&path, source))?;
        drop(part);
        fs::remove_file(&group.part).map_err(|source| io_error(&group.part, source))?;
    }
    let file = table
        .into_inner()
        .map_err(|error| io_error(&path, error.into_error()))?;
    file.sync_all().map_err(|source| io_error(&path, source))?;
    Ok(base)
}

/// Splits a mapped table into its group bases and its entries.
fn split_table(table: OwnedBytes) -> std::result::Result<(Vec<u64>, OwnedBytes), String> {
    let mut reader = bundle::ByteReader::new(table.as_slice());
    if reader.bytes(TABLE_MAGIC.len())? != TABLE_MAGIC {
        return Err("passages.tbl does not start with its magic".to_owned());
    }
    let version = reader.u32()?;
    if version != PASSAGE_FORMAT_VERSION {
        return Err(format!("passages.tbl has version {version}"));
    }
    let n_groups = reader.u32()? as usize;
    let bases = (0..=n_groups)
        .map(|_| reader.u64())
        .collect::<std::result::Result<Vec<u64>, String>>()?;
    if bases.windows(2).any(|pair| pair[0] > pair[1]) {
        return Err("passages.tbl's group bases are not in order".to_owned());
    }
    let header_len = TABLE_MAGIC.len() + 8 + 8 * (n_groups + 1);
    let entries = table.slice(header_len..table.len());
    if !entries.len().is_multiple_of(ENTRY_BYTES) {
        return Err("passages.tbl is cut in the middle of a passage".to_owned());
    }
    Ok((bases, entries))
}

/// Moves the finished staging folder to `folder`, replacing an older index by renames.
fn swap_in(staging: tempfile::TempDir, folder: &Path) -> Result<()> {
    let parent = folder.parent().unwrap_or(Path::new("."));
    let staged = staging.keep();
    if folder.exists() {
        let old = tempfile::Builder::new()
            .prefix(".passages-old-")
            .tempdir_in(parent)
            .map_err(|source| io_error(parent, source))?;
        let retired = old.path().join(PASSAGE_DIR);
        fs::rename(folder, &retired).map_err(|source| io_error(folder, source))?;
        fs::rename(&staged, folder).map_err(|source| io_error(folder, source))?;
        drop(old);
    } else {
        fs::rename(&staged, folder).map_err(|source| io_error(folder, source))?;
    }
    Ok(())
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = File::create(path).map_err(|source| io_error(path, source))?;
    file.write_all(bytes)
        .map_err(|source| io_error(path, source))?;
    file.sync_all().map_err(|source| io_error(path, source))
}

fn io_error(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.to_owned(),
        source,
    }
}

/// The stamp of a finished build.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    format: u32,
    key: String,
    passages: u64,
    skipped: Vec<u32>,
}

impl Stamp {
    fn to_text(&self) -> String {
        let skipped: Vec<String> = self.skipped.iter().map(u32::to_string).collect();
        format!(
            "{STAMP_HEADER}\nformat {}\nkey {}\npassages {}\nskipped {}\n",
            self.format,
            self.key,
            self.passages,
            skipped.join(" ")
        )
    }

    fn parse(text: &str) -> Option<Stamp> {
        let mut lines = text.lines();
        if lines.next()? != STAMP_HEADER {
            return None;
        }
        let mut field = |name: &str| {
            lines
                .next()?
                .strip_prefix(name)?
                .strip_prefix(' ')
                .map(str::to_owned)
        };
        let format = field("format")?.parse().ok()?;
        let key = field("key")?;
        let passages = field("passages")?.parse().ok()?;
        let skipped = field("skipped")?
            .split_whitespace()
            .map(str::parse)
            .collect::<std::result::Result<Vec<u32>, _>>()
            .ok()?;
        Some(Stamp {
            format,
            key,
            passages,
            skipped,
        })
    }

    /// Whether this stamp makes the index usable for `key`.
    fn check(&self, folder: &Path, key: &str, left_out: &[u32]) -> Result<()> {
        let stale = |reason: String| Error::StaleIndex {
            path: folder.to_owned(),
            reason,
        };
        if self.format != PASSAGE_FORMAT_VERSION {
            return Err(stale(format!(
                "format version {}, expected {PASSAGE_FORMAT_VERSION}",
                self.format
            )));
        }
        if self.key != key {
            return Err(stale("built for other world files".to_owned()));
        }
        if self.skipped.iter().any(|id| !left_out.contains(id)) {
            return Err(stale(format!("built without worlds {:?}", self.skipped)));
        }
        Ok(())
    }
}

fn read_stamp(folder: &Path) -> Result<Stamp> {
    let path = folder.join(STAMP_FILE);
    let text = fs::read_to_string(&path).map_err(|source| io_error(&path, source))?;
    Stamp::parse(&text).ok_or_else(|| Error::CorruptIndex {
        path,
        reason: "the stamp cannot be read".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_round_trip() {
        let stamp = Stamp {
            format: PASSAGE_FORMAT_VERSION,
            key: "ab".repeat(32),
            passages: 1234,
            skipped: vec![3, 17],
        };
        assert_eq!(Stamp::parse(&stamp.to_text()), Some(stamp.clone()));
        let fresh = Stamp {
            skipped: Vec::new(),
            ..stamp
        };
        assert_eq!(Stamp::parse(&fresh.to_text()), Some(fresh));
        assert_eq!(Stamp::parse("something else\n"), None);
    }

    #[test]
    fn segment_ids_name_their_group() {
        for number in [0, 1, 63, 4096, 1 << 30] {
            let id = segment_id(number);
            assert_eq!(id.len(), 32);
            assert_eq!(group_of(&id), Some(number));
        }
        assert_eq!(group_of("0123456789abcdef0123456789abcdef"), None);
    }
}
