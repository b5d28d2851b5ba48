//! English stemming with a cache: the same Snowball stems as tantivy's `Stemmer` filter, each
//! word stemmed once per analyzer. Stemming was the largest cost of indexing a world (a world's
//! pages hold about 150,000 words but about 10,000 distinct ones). tantivy's filter keeps no
//! state between tokens, so this one wraps `rust_stemmers` itself (the crate tantivy uses).
//! The cache is bounded ([`MAX_CACHED`]); past it, words are stemmed without being kept. It
//! hashes with FxHash: the keys are short words from the world's own pages, and SipHash was a
//! visible part of indexing.

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;
use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// The most stems one analyzer keeps.
const MAX_CACHED: usize = 1 << 16;

/// The token filter: English stems, cached.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CachedStemmer;

impl TokenFilter for CachedStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter {
            inner,
            stems: FxHashMap::default(),
        }
    }
}

/// A tokenizer whose tokens are stemmed, with the stems seen so far.
#[derive(Clone)]
pub(crate) struct CachedStemmerFilter<T> {
    inner: T,
    stems: FxHashMap<String, String>,
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemStream {
            tail: self.inner.token_stream(text),
            stems: &mut self.stems,
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

/// The stream of stemmed tokens.
pub(crate) struct CachedStemStream<'a, S> {
    tail: S,
    stems: &'a mut FxHashMap<String, String>,
    stemmer: Stemmer,
}

impl<S: TokenStream> TokenStream for CachedStemStream<'_, S> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if let Some(stem) = self.stems.get(&token.text) {
            token.text.clear();
            token.text.push_str(stem);
            return true;
        }
        let stem = self.stemmer.stem(&token.text).into_owned();
        if self.stems.len() < MAX_CACHED {
            self.stems.insert(token.text.clone(), stem.clone());
        }
        token.text = stem;
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use tantivy::tokenizer::{Language, LowerCaser, SimpleTokenizer, Stemmer, TextAnalyzer};

    use super::*;

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    #[test]
    fn stems_are_tantivys_whether_cached_or_not() {
        let text = "Founded founding founders; the guilds' guild hosted hosting running runs \
                    Founded again, generously, generous generation";
        let mut cached = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(LowerCaser)
            .filter(CachedStemmer)
            .build();
        let mut plain = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(LowerCaser)
            .filter(Stemmer::new(Language::English))
            .build();
        let want = tokens(&mut plain, text);
        assert_eq!(want[..3], ["found", "found", "founder"]);
        assert_eq!(
            tokens(&mut cached, text),
            want,
            "first pass, filling the cache"
        );
        assert_eq!(
            tokens(&mut cached, text),
            want,
            "second pass, from the cache"
        );
    }
}
