//! The tantivy side of one world: the schema and analyzer, building a single-segment index in RAM
//! into a set of files that can be persisted, opening it again from those files, and scoring
//! every page that matches a bag of query terms with BM25.
//!
//! Pages are added in url order into one segment, so a tantivy doc id is the page's position in
//! the url-sorted page store, and ordering equal scores by doc id orders them by url. Nothing is
//! stored in tantivy's doc store: the page store owns all page text.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::directory::RamDirectory;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::query::Bm25Weight;
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{
    Directory, Index, IndexSettings, InvertedIndexReader, ReloadPolicy, Score, Searcher,
    SingleSegmentIndexWriter, TantivyDocument, TantivyError, Term,
};

use crate::analyzer::analyzer;
use crate::slice_dir::SliceDirectory;
use crate::{Error, Result};

/// How much a match in the title counts against a match in the body.
pub(crate) const TITLE_BOOST: Score = 2.0;

/// At most this many distinct terms of a query are searched; the rest are ignored.
pub(crate) const MAX_QUERY_TERMS: usize = 64;

/// The name the analyzer is registered under in each index.
pub(crate) const TOKENIZER: &str = "fabula";

/// The indexed fields.
const TITLE_FIELD: &str = "title";
const BODY_FIELD: &str = "body";

/// The id every index's one segment gets in place of tantivy's random one.
const SEGMENT_ID: &str = "fab1de0000000000000000000000000a";

/// The indexing memory budget. One world is about a megabyte of text, so this is never reached;
/// it also sizes the writer's initial term hash table, which is why it is kept small.
const WRITER_MEMORY: usize = 4 << 20;

/// The distinct terms of `text` in order of first appearance, at most [`MAX_QUERY_TERMS`].
pub(crate) fn query_terms(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        if terms.len() == MAX_QUERY_TERMS {
            break;
        }
        let token = &stream.token().text;
        if !terms.contains(token) {
            terms.push(token.clone());
        }
    }
    terms
}

/// One field's postings and the statistics BM25 needs, read once when the index is built.
struct FieldIndex {
    field: Field,
    postings: Arc<InvertedIndexReader>,
    norms: FieldNormReader,
    average_norm: Score,
    boost: Score,
}

/// One world's inverted index over page titles and bodies.
pub(crate) struct PageIndex {
    searcher: Searcher,
    n_docs: u32,
    /// The title and body fields; empty when the world has no pages.
    fields: Vec<FieldIndex>,
}

impl std::fmt::Debug for PageIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageIndex")
            .field("n_docs", &self.n_docs)
            .finish_non_exhaustive()
    }
}

/// Indexes `(title, body)` pairs in one segment, the n-th pair as doc id n, and returns the
/// index's files by name, sorted.
///
/// The index is built in a `RamDirectory`. Its segment's random id is replaced by a fixed one in
/// the file names and in `meta.json`, so the files depend only on the documents; tantivy's
/// `.managed.json`, which only guides its garbage collection, is left out.
pub(crate) fn build_files<'a>(
    docs: impl Iterator<Item = (&'a str, &'a str)>,
) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut schema = Schema::builder();
    let options = text_options(TOKENIZER);
    let title = schema.add_text_field(TITLE_FIELD, options.clone());
    let body = schema.add_text_field(BODY_FIELD, options);
    let ram = RamDirectory::create();
    let index = Index::create(ram.clone(), schema.build(), IndexSettings::default())?;
    index.tokenizers().register(TOKENIZER, analyzer());
    // The single-segment writer runs on the calling thread and keeps doc ids in insertion
    // order; its buffers are freed when `finalize` returns.
    let mut writer = SingleSegmentIndexWriter::new(index, WRITER_MEMORY)?;
    for (title_text, body_text) in docs {
        let mut doc = TantivyDocument::new();
        doc.add_text(title, title_text);
        doc.add_text(body, body_text);
        writer.add_document(doc)?;
    }
    let index = writer.finalize()?;
    let segments = index.searchable_segment_metas()?;
    if segments.len() > 1 {
        return Err(Error::Internal(format!(
            "expected one index segment, found {}",
            segments.len()
        )));
    }
    let meta_path = Path::new("meta.json");
    let meta = ram_file(&ram, meta_path)?
        .ok_or_else(|| Error::Internal("tantivy wrote no meta.json".to_owned()))?;
    let mut meta = String::from_utf8(meta)
        .map_err(|_| Error::Internal("tantivy's meta.json is not UTF-8".to_owned()))?;
    let mut files = Vec::new();
    for segment in segments {
        let segment_id = segment.id().uuid_string();
        // `meta.json` spells the id with hyphens, file names without.
        meta = meta.replace(&hyphenated(&segment_id), &hyphenated(SEGMENT_ID));
        for path in segment.list_files() {
            let Some(bytes) = ram_file(&ram, &path)? else {
                continue;
            };
            let name = path.to_string_lossy().replace(&segment_id, SEGMENT_ID);
            files.push((PathBuf::from(name), bytes));
        }
    }
    files.push((meta_path.to_owned(), meta.into_bytes()));
    files.sort_unstable();
    Ok(files)
}

/// The options of an indexed text field analyzed by `tokenizer`: term frequencies for BM25, no
/// positions, nothing stored.
pub(crate) fn text_options(tokenizer: &str) -> TextOptions {
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(tokenizer)
        .set_index_option(IndexRecordOption::WithFreqs);
    TextOptions::default().set_indexing_options(indexing)
}

/// A segment id (32 hex digits) as a hyphenated UUID: 8-4-4-4-12 digits.
pub(crate) fn hyphenated(segment_id: &str) -> String {
    let mut out = String::with_capacity(36);
    for (idx, digit) in segment_id.chars().enumerate() {
        if matches!(idx, 8 | 12 | 16 | 20) {
            out.push('-');
        }
        out.push(digit);
    }
    out
}

/// A file of a RAM directory, if it exists.
pub(crate) fn ram_file(ram: &RamDirectory, path: &Path) -> tantivy::Result<Option<Vec<u8>>> {
    if !ram.exists(path)? {
        return Ok(None);
    }
    Ok(Some(ram.open_read(path)?.read_bytes()?.as_slice().to_vec()))
}

impl PageIndex {
    /// Opens an index that [`build_files`] wrote, from a directory of its files.
    pub(crate) fn open(directory: SliceDirectory) -> Result<PageIndex> {
        let index = Index::open(directory)?;
        let schema = index.schema();
        let title = schema.get_field(TITLE_FIELD)?;
        let body = schema.get_field(BODY_FIELD)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .doc_store_cache_num_blocks(0)
            .try_into()?;
        let searcher = reader.searcher();
        let segments = searcher.segment_readers();
        if segments.len() > 1 {
            return Err(Error::Internal(format!(
                "expected one index segment, found {}",
                segments.len()
            )));
        }
        let mut fields = Vec::new();
        let mut n_docs = 0;
        if let Some(segment) = segments.first() {
            n_docs = segment.max_doc();
            for (field, boost) in [(title, TITLE_BOOST), (body, 1.0)] {
                let postings = segment.inverted_index(field)?;
                // The same average tantivy's own BM25 weights use.
                let average_norm = postings.total_num_tokens() as Score / n_docs.max(1) as Score;
                fields.push(FieldIndex {
                    field,
                    norms: segment.get_fieldnorms_reader(field)?,
                    postings,
                    average_norm,
                    boost,
                });
            }
        }
        Ok(PageIndex {
            searcher,
            n_docs,
            fields,
        })
    }

    /// Builds an index of `(title, body)` pairs and opens it from memory.
    #[cfg(test)]
    pub(crate) fn build<'a>(docs: impl Iterator<Item = (&'a str, &'a str)>) -> Result<PageIndex> {
        let files = build_files(docs)?;
        let files = files
            .into_iter()
            .map(|(path, bytes)| (path, tantivy::directory::OwnedBytes::new(bytes)));
        PageIndex::open(SliceDirectory::new(files))
    }

    /// The number of documents, one per page.
    pub(crate) fn n_docs(&self) -> u32 {
        self.n_docs
    }

    /// The bytes of the index's files, on the heap or mapped.
    pub(crate) fn space_usage(&self) -> usize {
        self.searcher
            .space_usage()
            .map_or(0, |usage| usage.total().get_bytes() as usize)
    }

    /// Scores every page that contains at least one of `terms`, as `(score, doc id)` pairs in no
    /// particular order.
    ///
    /// A page's score is the sum over terms and fields of tantivy's BM25 score, a title match
    /// weighing [`TITLE_BOOST`] times a body match: what a boolean OR of term queries gives, but
    /// summed into one array per query instead of through tantivy's union scorer, which costs
    /// more than the scoring itself on worlds of a thousand pages.
    pub(crate) fn score_all(&self, terms: &[String]) -> Result<Vec<(Score, u32)>> {
        let mut scores: Vec<Score> = vec![0.0; self.n_docs as usize];
        let mut matched: Vec<u32> = Vec::new();
        for term in terms {
            for field in &self.fields {
                let term = Term::from_field_text(field.field, term);
                let Some(info) = field
                    .postings
                    .get_term_info(&term)
                    .map_err(TantivyError::from)?
                else {
                    continue;
                };
                let weight = Bm25Weight::for_one_term_without_explain(
                    u64::from(info.doc_freq),
                    u64::from(self.n_docs),
                    field.average_norm,
                )
                .boost_by(field.boost);
                let mut block = field
                    .postings
                    .read_block_postings_from_terminfo(&info, IndexRecordOption::WithFreqs)
                    .map_err(TantivyError::from)?;
                while !block.docs().is_empty() {
                    for (&doc, &term_freq) in block.docs().iter().zip(block.freqs()) {
                        let Some(score) = scores.get_mut(doc as usize) else {
                            continue;
                        };
                        // BM25 scores are positive, so zero means not matched yet.
                        if *score == 0.0 {
                            matched.push(doc);
                        }
                        *score += weight.score(field.norms.fieldnorm_id(doc), term_freq);
                    }
                    block.advance();
                }
            }
        }
        Ok(matched
            .into_iter()
            .map(|doc| (scores[doc as usize], doc))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_terms_are_analyzed_and_distinct() {
        let mut analyzer = analyzer();
        let terms = query_terms(&mut analyzer, "Founded FOUNDING \"Vélmora\" AND* (foo: ***");
        assert_eq!(terms, ["found", "velmora", "and", "foo"]);
        assert!(query_terms(&mut analyzer, "*** :: ()").is_empty());
        // Words holding a digit are no terms (the analyzer's `Numbers`).
        assert!(query_terms(&mut analyzer, "1820 1821 w1").is_empty());
        let many: String = (0..200)
            .map(|n| format!("w{} ", "x".repeat(n % 40 + 1) + &"y".repeat(n / 40)))
            .collect();
        assert_eq!(query_terms(&mut analyzer, &many).len(), MAX_QUERY_TERMS);
    }

    #[test]
    fn scores_title_above_body() {
        let docs = [
            ("Kest", "A town."),
            ("Other", "Kest is near."),
            ("Third", "Nothing."),
        ];
        let index = PageIndex::build(docs.into_iter()).unwrap();
        let mut scored = index.score_all(&["kest".to_owned()]).unwrap();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let docs: Vec<u32> = scored.iter().map(|&(_, doc)| doc).collect();
        assert_eq!(docs, [0, 1]);
        assert!(index.score_all(&[]).unwrap().is_empty());
        assert!(index.score_all(&["absent".to_owned()]).unwrap().is_empty());
    }

    /// The summed scores equal those of tantivy's own boolean OR of boosted term queries.
    #[test]
    fn scores_equal_tantivys_boolean_query() {
        use tantivy::collector::TopDocs;
        use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};

        let docs = [
            (
                "Kest harbor",
                "The harbor of Kest trades salt. Salt and amber.",
            ),
            ("Ardmoor", "A town near Kest with a small harbor."),
            ("Salt", "Salt salt salt, nothing but salt."),
            ("Other", "Nothing to see."),
        ];
        let index = PageIndex::build(docs.into_iter()).unwrap();
        let terms = ["kest".to_owned(), "harbor".to_owned(), "salt".to_owned()];
        let mut ours = index.score_all(&terms).unwrap();
        ours.sort_by_key(|&(_, doc)| doc);

        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for term in &terms {
            for field in &index.fields {
                let query = TermQuery::new(
                    Term::from_field_text(field.field, term),
                    IndexRecordOption::WithFreqs,
                );
                clauses.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(query), field.boost)),
                ));
            }
        }
        let query = BooleanQuery::new(clauses);
        let mut theirs: Vec<(Score, u32)> = index
            .searcher
            .search(&query, &TopDocs::with_limit(10))
            .unwrap()
            .into_iter()
            .map(|(score, address)| (score, address.doc_id))
            .collect();
        theirs.sort_by_key(|&(_, doc)| doc);
        assert_eq!(ours.len(), 3);
        assert_eq!(ours.len(), theirs.len());
        for ((our_score, our_doc), (their_score, their_doc)) in ours.into_iter().zip(theirs) {
            assert_eq!(our_doc, their_doc);
            assert!(
                (our_score - their_score).abs() < 1e-4,
                "{our_score} {their_score}"
            );
        }
    }

    #[test]
    fn empty_index() {
        let index = PageIndex::build(std::iter::empty()).unwrap();
        assert!(index.score_all(&["kest".to_owned()]).unwrap().is_empty());
    }
}
