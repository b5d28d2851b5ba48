//! The analyzers of titles, bodies, passages and queries, fused into one tokenizer with a cache:
//! the same tokens (text, offsets, positions) as tantivy's chain of `SimpleTokenizer`,
//! `RemoveLongFilter`, `LowerCaser`, (for passages) the English `StopWordFilter`,
//! `AsciiFoldingFilter` and the English `Stemmer`, at a fraction of the cost.
//!
//! Why: analysis was about a fifth of building an index. A world's pages hold about 150,000 words
//! but about 10,000 distinct ones, and every filter of that chain looks at one token alone, so
//! what the chain makes of a word is computed once, by tantivy's own filters, and kept: this
//! tokenizer only splits the text into words (runs of alphanumeric characters, as
//! `SimpleTokenizer` does, with a fast path for ASCII) and looks each word up. The cache is
//! bounded ([`MAX_CACHED`]); past it, words are analyzed without being kept. It hashes with
//! FxHash: the keys are short words, and SipHash was a visible part of indexing.

use rustc_hash::FxHashMap;
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RawTokenizer, RemoveLongFilter, Stemmer,
    StopWordFilter, TextAnalyzer, Token, TokenStream, Tokenizer,
};

/// Tokens longer than this many bytes are dropped, as tantivy's default analyzer does.
const MAX_TOKEN_LEN: usize = 40;

/// The most words one analyzer keeps.
const MAX_CACHED: usize = 1 << 16;

/// The analyzer of titles, bodies and queries: words split on non-alphanumeric characters,
/// lowercased, folded to ASCII where possible and stemmed as English; words holding a digit
/// are left out (see [`Numbers`]).
pub(crate) fn analyzer() -> TextAnalyzer {
    TextAnalyzer::from(CachedAnalyzer::new(word_chain(false), Numbers::Dropped))
}

/// The analyzer of the passage index (see `passage_index`): [`analyzer`]'s, less the English
/// stop words of Lucene's `EnglishAnalyzer` (`the`, `of`, `which` is kept), as Pyserini's BM25,
/// the retriever behind Search-R1, drops them. Questions are full sentences; without this, every
/// one of them would walk the postings of `the` and `of` in every passage of the dataset.
pub(crate) fn passage_analyzer() -> TextAnalyzer {
    TextAnalyzer::from(CachedAnalyzer::new(word_chain(true), Numbers::Kept))
}

/// Whether words holding a digit (years, counts, dates, `1204th`) are terms.
///
/// The page index drops them. Snippets hide every such word (and the values the world file
/// lists) so that an agent opens the page to learn it; an index that matched them would hand
/// the value out through its ranking instead: research agents searched "1820 1821 … 1829"
/// and got the people born in that decade at the top, their years hidden in the snippets. A
/// query's numbers are dropped the same way, so a query of numbers alone has no results. The
/// passage index (Search-R1's `/retrieve`) keeps them: Pyserini's BM25, which it stands in
/// for, indexes numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Numbers {
    Dropped,
    Kept,
}

/// tantivy's filters over one word: the whole text as one token, then the chain.
fn word_chain(stop_words: bool) -> TextAnalyzer {
    chain_after(RawTokenizer::default(), stop_words)
}

/// tantivy's chain of filters after `tokenizer`: long tokens dropped, lowercased, (with
/// `stop_words`) English stop words dropped, folded to ASCII, stemmed as English. Built
/// dynamically, as the filters depend on `stop_words`: it runs once per distinct word.
fn chain_after<T: Tokenizer>(tokenizer: T, stop_words: bool) -> TextAnalyzer {
    let mut builder = TextAnalyzer::builder(tokenizer)
        .dynamic()
        .filter_dynamic(RemoveLongFilter::limit(MAX_TOKEN_LEN))
        .filter_dynamic(LowerCaser);
    if stop_words {
        builder = builder.filter_dynamic(
            StopWordFilter::new(Language::English).expect("tantivy has English stop words"),
        );
    }
    builder
        .filter_dynamic(AsciiFoldingFilter)
        .filter_dynamic(Stemmer::new(Language::English))
        .build()
}

/// The tokenizer: words of the text, each replaced by what `chain` makes of it (cached), and
/// left out when the chain drops it.
#[derive(Clone)]
struct CachedAnalyzer {
    chain: TextAnalyzer,
    numbers: Numbers,
    /// Word as written -> its term, or None when the chain drops it.
    terms: FxHashMap<String, Option<String>>,
    token: Token,
}

impl CachedAnalyzer {
    fn new(chain: TextAnalyzer, numbers: Numbers) -> CachedAnalyzer {
        CachedAnalyzer {
            chain,
            numbers,
            terms: FxHashMap::default(),
            token: Token::default(),
        }
    }
}

impl Tokenizer for CachedAnalyzer {
    type TokenStream<'a> = CachedStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CachedStream<'a> {
        self.token.reset();
        CachedStream {
            text,
            pos: 0,
            analyzer: self,
        }
    }
}

/// The stream of one text's tokens.
struct CachedStream<'a> {
    text: &'a str,
    /// Where the next word is looked for.
    pos: usize,
    analyzer: &'a mut CachedAnalyzer,
}

impl TokenStream for CachedStream<'_> {
    fn advance(&mut self) -> bool {
        loop {
            let Some((start, end)) = next_word(self.text, self.pos) else {
                self.pos = self.text.len();
                return false;
            };
            self.pos = end;
            let token = &mut self.analyzer.token;
            // Every word takes a position, dropped or not, as in tantivy's chain.
            token.position = token.position.wrapping_add(1);
            if self.analyzer.set_term(&self.text[start..end]) {
                let token = &mut self.analyzer.token;
                token.offset_from = start;
                token.offset_to = end;
                return true;
            }
        }
    }

    fn token(&self) -> &Token {
        &self.analyzer.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.analyzer.token
    }
}

impl CachedAnalyzer {
    /// Sets the token's text to the term of `word`; false when the chain drops the word.
    fn set_term(&mut self, word: &str) -> bool {
        if let Some(term) = self.terms.get(word) {
            return match term {
                Some(term) => {
                    self.token.text.clear();
                    self.token.text.push_str(term);
                    true
                }
                None => false,
            };
        }
        let term = self.analyze(word);
        let kept = term.is_some();
        if let Some(term) = &term {
            self.token.text.clear();
            self.token.text.push_str(term);
        }
        if self.terms.len() < MAX_CACHED {
            self.terms.insert(word.to_owned(), term);
        }
        kept
    }

    /// What tantivy's chain makes of one word; `None` for a word holding a digit where
    /// numbers are dropped.
    fn analyze(&mut self, word: &str) -> Option<String> {
        if self.numbers == Numbers::Dropped && word.chars().any(char::is_numeric) {
            return None;
        }
        let mut stream = self.chain.token_stream(word);
        stream.advance().then(|| stream.token().text.clone())
    }
}

/// The byte range of the first word (maximal run of alphanumeric characters) at or after byte
/// `pos`, if any.
fn next_word(text: &str, pos: usize) -> Option<(usize, usize)> {
    let start = skip(text, pos, false);
    (start < text.len()).then(|| (start, skip(text, start, true)))
}

/// Where the run of characters from byte `pos` that are alphanumeric (or not, as `alnum` says)
/// ends. ASCII bytes are looked at one by one, without decoding characters.
fn skip(text: &str, mut pos: usize, alnum: bool) -> usize {
    let bytes = text.as_bytes();
    while pos < bytes.len() {
        let byte = bytes[pos];
        let (is_alnum, len) = if byte.is_ascii() {
            (byte.is_ascii_alphanumeric(), 1)
        } else {
            let c = text[pos..].chars().next().expect("a character starts here");
            (c.is_alphanumeric(), c.len_utf8())
        };
        if is_alnum != alnum {
            break;
        }
        pos += len;
    }
    pos
}

#[cfg(test)]
#[path = "../tests/it/fixture.rs"]
mod fixture;

#[cfg(test)]
mod tests {
    use tantivy::tokenizer::SimpleTokenizer;

    use super::fixture;
    use super::*;
    use crate::plain_text;

    /// tantivy's chain as it was before this module, over tantivy's own word splitting: the
    /// reference.
    fn chain(stop_words: bool) -> TextAnalyzer {
        chain_after(SimpleTokenizer::default(), stop_words)
    }

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<Token> {
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().clone());
        }
        out
    }

    /// The reference's tokens as the analyzer of `stop_words` keeps them: the page analyzer
    /// (no stop words) leaves out the words holding a digit.
    fn reference(stop_words: bool, text: &str) -> Vec<Token> {
        let mut want = tokens(&mut chain(stop_words), text);
        if !stop_words {
            want.retain(|t| {
                !text[t.offset_from..t.offset_to]
                    .chars()
                    .any(char::is_numeric)
            });
        }
        want
    }

    /// Asserts that both analyzers give `text` exactly the tokens of tantivy's chain, twice (the
    /// second time from the cache).
    #[track_caller]
    pub(crate) fn check_same_tokens(text: &str) {
        for stop_words in [false, true] {
            let want = reference(stop_words, text);
            let mut fused = if stop_words {
                passage_analyzer()
            } else {
                analyzer()
            };
            assert_eq!(tokens(&mut fused, text), want, "first pass: {text:?}");
            assert_eq!(tokens(&mut fused, text), want, "cached: {text:?}");
        }
    }

    #[test]
    fn tokens_are_tantivys() {
        check_same_tokens("");
        check_same_tokens("...");
        check_same_tokens(
            "Founded founding founders; the guilds' guild hosted hosting running runs of The \
             OF which Which, generously, generous generation 1,204 1204th",
        );
        check_same_tokens("Vélmora · Ærø — Ünïcödé ÉCOLE straße İstanbul ǅemal 东京 ١٢٣ x²");
        check_same_tokens(&format!(
            "short {} long {}é end",
            "a".repeat(39),
            "b".repeat(40)
        ));
        check_same_tokens(&format!("{} {}", "é".repeat(20), "é".repeat(19)));
    }

    /// Generated pages (titles, Markdown bodies and their plain text) through one analyzer of
    /// each kind, whose cache fills as it goes, against tantivy's chain.
    #[test]
    fn generated_pages_give_tantivys_tokens() {
        let pages = fixture::generate_pages(42, 300);
        for stop_words in [false, true] {
            let mut fused = if stop_words {
                passage_analyzer()
            } else {
                analyzer()
            };
            let mut n_tokens = 0;
            for page in &pages {
                for text in [
                    page.title.clone(),
                    page.body.clone(),
                    plain_text(&page.body),
                ] {
                    let want = reference(stop_words, &text);
                    assert_eq!(tokens(&mut fused, &text), want, "page {}", page.url);
                    n_tokens += want.len();
                }
            }
            assert!(n_tokens > 40_000, "only {n_tokens} tokens");
        }
    }

    #[test]
    fn the_page_analyzer_leaves_numbers_out() {
        let got: Vec<(String, usize)> = tokens(&mut analyzer(), "born in 1823, the 3rd of 4")
            .into_iter()
            .map(|token| (token.text, token.position))
            .collect();
        assert_eq!(
            got,
            [
                ("born".to_owned(), 0),
                ("in".to_owned(), 1),
                ("the".to_owned(), 3),
                ("of".to_owned(), 5)
            ]
        );
        assert!(tokens(&mut analyzer(), "1820 1821 1829").is_empty());
        let kept = tokens(&mut passage_analyzer(), "born in 1823");
        assert_eq!(kept.last().map(|t| t.text.as_str()), Some("1823"));
    }

    #[test]
    fn dropped_words_keep_their_positions() {
        let mut passages = passage_analyzer();
        let got: Vec<(String, usize)> = tokens(&mut passages, "the port of Kest")
            .into_iter()
            .map(|token| (token.text, token.position))
            .collect();
        assert_eq!(got, [("port".to_owned(), 1), ("kest".to_owned(), 3)]);
    }

    /// Pseudo-random texts over letters, digits, blank space, punctuation and non-ASCII
    /// characters, upper and lower case.
    #[test]
    fn random_texts_give_tantivys_tokens() {
        let alphabet = "aAeEsSiIngNG1 .,-'é·ÉßİÆ东\u{a0}";
        for text in crate::text::random_texts(alphabet, 0x2545_f491_4f6c_dd1d, 300, 120) {
            check_same_tokens(&text);
        }
    }
}
