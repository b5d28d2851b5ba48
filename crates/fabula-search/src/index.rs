//! The tantivy side of one world: the schema and analyzer, building a single-segment index in RAM,
//! and scoring every page that matches a bag of query terms with BM25.
//!
//! Pages are added in url order into one segment, so a tantivy doc id is the page's position in
//! the url-sorted page store, and ordering equal scores by doc id orders them by url. Nothing is
//! stored in tantivy's doc store: the page store owns all page text.

use tantivy::query::{BooleanQuery, BoostQuery, EnableScoring, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
    TextAnalyzer,
};
use tantivy::{
    Index, ReloadPolicy, Score, Searcher, SingleSegmentIndexWriter, TantivyDocument, Term,
};

use crate::Result;

/// How much a match in the title counts against a match in the body.
pub(crate) const TITLE_BOOST: Score = 2.0;

/// At most this many distinct terms of a query are searched; the rest are ignored.
pub(crate) const MAX_QUERY_TERMS: usize = 64;

/// The name the analyzer is registered under in each index.
const TOKENIZER: &str = "fabula";

/// Tokens longer than this many bytes are dropped, as tantivy's default analyzer does.
const MAX_TOKEN_LEN: usize = 40;

/// The indexing memory budget. One world is about a megabyte of text, so this is never reached;
/// it also sizes the writer's initial term hash table, which is why it is kept small.
const WRITER_MEMORY: usize = 4 << 20;

/// The analyzer of titles, bodies and queries: words split on non-alphanumeric characters,
/// lowercased, folded to ASCII where possible and stemmed as English.
pub(crate) fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_LEN))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(Stemmer::new(Language::English))
        .build()
}

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

/// One world's inverted index over page titles and bodies.
pub(crate) struct PageIndex {
    searcher: Searcher,
    title: Field,
    body: Field,
}

impl std::fmt::Debug for PageIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageIndex")
            .field("n_docs", &self.searcher.num_docs())
            .finish()
    }
}

impl PageIndex {
    /// Indexes `(title, body)` pairs; the n-th pair becomes doc id n.
    pub(crate) fn build<'a>(docs: impl Iterator<Item = (&'a str, &'a str)>) -> Result<PageIndex> {
        let mut schema = Schema::builder();
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqs);
        let options = TextOptions::default().set_indexing_options(indexing);
        let title = schema.add_text_field("title", options.clone());
        let body = schema.add_text_field("body", options);
        let index = Index::create_in_ram(schema.build());
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
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .doc_store_cache_num_blocks(0)
            .try_into()?;
        Ok(PageIndex {
            searcher: reader.searcher(),
            title,
            body,
        })
    }

    /// The bytes of the index's files, all of which live in RAM.
    pub(crate) fn space_usage(&self) -> usize {
        self.searcher
            .space_usage()
            .map_or(0, |usage| usage.total().get_bytes() as usize)
    }

    /// Scores every page that contains at least one of `terms`, as `(score, doc id)` pairs in no
    /// particular order. A title match counts [`TITLE_BOOST`] times a body match.
    pub(crate) fn score_all(&self, terms: &[String]) -> Result<Vec<(Score, u32)>> {
        if terms.is_empty() || self.searcher.num_docs() == 0 {
            return Ok(Vec::new());
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::with_capacity(terms.len() * 2);
        for term in terms {
            let in_title = TermQuery::new(
                Term::from_field_text(self.title, term),
                IndexRecordOption::WithFreqs,
            );
            let in_body = TermQuery::new(
                Term::from_field_text(self.body, term),
                IndexRecordOption::WithFreqs,
            );
            clauses.push((
                Occur::Should,
                Box::new(BoostQuery::new(Box::new(in_title), TITLE_BOOST)),
            ));
            clauses.push((Occur::Should, Box::new(in_body)));
        }
        let query = BooleanQuery::new(clauses);
        let weight = query.weight(EnableScoring::enabled_from_searcher(&self.searcher))?;
        let mut scored = Vec::new();
        let mut doc_base = 0;
        for segment in self.searcher.segment_readers() {
            weight.for_each(segment, &mut |doc, score| scored.push((score, doc_base + doc)))?;
            doc_base += segment.max_doc();
        }
        Ok(scored)
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
        let many: String = (0..200).map(|n| format!("w{n} ")).collect();
        assert_eq!(query_terms(&mut analyzer, &many).len(), MAX_QUERY_TERMS);
    }

    #[test]
    fn scores_title_above_body() {
        let docs = [("Kest", "A town."), ("Other", "Kest is near."), ("Third", "Nothing.")];
        let index = PageIndex::build(docs.into_iter()).unwrap();
        let mut scored = index.score_all(&["kest".to_owned()]).unwrap();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let docs: Vec<u32> = scored.iter().map(|&(_, doc)| doc).collect();
        assert_eq!(docs, [0, 1]);
        assert!(index.score_all(&[]).unwrap().is_empty());
        assert!(index.score_all(&["absent".to_owned()]).unwrap().is_empty());
    }

    #[test]
    fn empty_index() {
        let index = PageIndex::build(std::iter::empty()).unwrap();
        assert!(index.score_all(&["kest".to_owned()]).unwrap().is_empty());
    }
}
