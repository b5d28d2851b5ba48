//! Ranking, tie-breaking, pagination and hostile query strings.

use fabula_search::{Error, Hiding, SearchOptions, SearchResults};

use crate::fixture::FixturePage;
use crate::{generated_world, queries_for, world_of};

fn opts(top_k: usize, offset: usize) -> SearchOptions {
    SearchOptions {
        top_k,
        offset,
        hiding: Hiding::Partial,
    }
}

fn urls(results: &SearchResults) -> Vec<&str> {
    results.hits.iter().map(|hit| hit.url.as_str()).collect()
}

#[test]
fn results_are_ordered_by_score_then_url() {
    let world = generated_world();
    for query in queries_for(&world.pages) {
        let results = world.index.search(&query, &opts(50, 0)).unwrap();
        for pair in results.hits.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            assert!(
                a.score > b.score || (a.score == b.score && a.url < b.url),
                "{query}: {} {} before {} {}",
                a.score,
                a.url,
                b.score,
                b.url
            );
        }
        for (position, hit) in results.hits.iter().enumerate() {
            assert_eq!(hit.rank, position + 1);
        }
        assert_eq!(results, world.index.search(&query, &opts(50, 0)).unwrap());
    }
}

#[test]
fn title_matches_rank_first() {
    let world = generated_world();
    let city = world
        .pages
        .iter()
        .find(|page| page.kind == "entity")
        .unwrap();
    let results = world.index.search(&city.title, &opts(5, 0)).unwrap();
    assert_eq!(results.hits[0].url, city.url);
    assert_eq!(results.hits[0].title, city.title);
    assert_eq!(results.hits[0].date, None);
    let news = world.pages.iter().find(|page| page.kind == "news").unwrap();
    let results = world.index.search(&news.title, &opts(5, 0)).unwrap();
    assert_eq!(results.hits[0].url, news.url);
    assert_eq!(results.hits[0].date, news.published);
}

#[test]
fn equal_scores_are_ordered_by_url_across_pages() {
    // Six identical pages, written in shuffled url order, and one that scores higher.
    let mut pages: Vec<FixturePage> = ["e", "a", "d", "b", "f", "c"]
        .iter()
        .map(|name| {
            FixturePage::new(
                &format!("https://notices.test/{name}"),
                "Ferry notice",
                "news",
                "The ferry runs at dawn.",
            )
        })
        .collect();
    pages.push(FixturePage::new(
        "https://notices.test/z",
        "Ferry ferry timetable",
        "news",
        "The ferry and the ferry again.",
    ));
    let world = world_of(pages);
    let page_1 = world.index.search("ferry", &opts(3, 0)).unwrap();
    let page_2 = world.index.search("ferry", &opts(3, 3)).unwrap();
    let page_3 = world.index.search("ferry", &opts(3, 6)).unwrap();
    assert_eq!(
        urls(&page_1),
        [
            "https://notices.test/z",
            "https://notices.test/a",
            "https://notices.test/b"
        ]
    );
    assert_eq!(
        urls(&page_2),
        [
            "https://notices.test/c",
            "https://notices.test/d",
            "https://notices.test/e"
        ]
    );
    assert_eq!(urls(&page_3), ["https://notices.test/f"]);
    assert!(page_1.has_more && page_2.has_more && !page_3.has_more);
    assert_eq!(page_2.hits[0].rank, 4);
    assert_eq!(page_1.hits[1].score, page_3.hits[0].score);
    // A boundary inside the tied run still cuts it in url order.
    let page = world.index.search("ferry", &opts(2, 4)).unwrap();
    assert_eq!(
        urls(&page),
        ["https://notices.test/d", "https://notices.test/e"]
    );
}

#[test]
fn pages_of_results_concatenate_to_the_full_list() {
    let world = generated_world();
    for query in ["river city", "the", "ferry stairs market"] {
        let all = world.index.search(query, &opts(50, 0)).unwrap();
        assert!(all.hits.len() > 7, "{query}");
        let mut paged = Vec::new();
        let mut offset = 0;
        loop {
            let page = world.index.search(query, &opts(7, offset)).unwrap();
            paged.extend(page.hits);
            offset += 7;
            if !page.has_more {
                break;
            }
        }
        assert_eq!(paged, all.hits, "{query}");
        let beyond = world.index.search(query, &opts(7, paged.len())).unwrap();
        assert!(beyond.hits.is_empty() && !beyond.has_more);
        let far = world.index.search(query, &opts(50, usize::MAX)).unwrap();
        assert!(far.hits.is_empty() && !far.has_more);
    }
}

#[test]
fn hostile_queries_never_fail() {
    let world = generated_world();
    let long = "river ".repeat(400);
    let queries = [
        "\"\\\"AND* (foo:",
        "***",
        "AND OR NOT",
        "title:river AND body:(city OR",
        "[1 TO 5}",
        "river~2 ^3 +city -market",
        "\u{0}\u{1b}\u{feff}",
        "日本語のクエリ",
        "Ünïcödé ẞtraße",
        "🦀🦀🦀",
        "a\nb\tc\r\n",
        "'; DROP TABLE fabula_pages; --",
        &long,
    ];
    for query in queries {
        for hiding in [Hiding::None, Hiding::Partial, Hiding::Strict] {
            let results = world
                .index
                .search(
                    query,
                    &SearchOptions {
                        top_k: 50,
                        offset: 0,
                        hiding,
                    },
                )
                .unwrap_or_else(|err| panic!("{query:?}: {err}"));
            assert!(results.hits.len() <= 50);
        }
    }
    let river = world.index.search("river", &opts(10, 0)).unwrap();
    assert!(!river.hits.is_empty());
    assert!(
        !world
            .index
            .search("title:river AND", &opts(10, 0))
            .unwrap()
            .hits
            .is_empty()
    );
}

#[test]
fn queries_without_terms_have_no_results() {
    let world = generated_world();
    for query in ["", "   ", "***", "\"\" :: () [] {}", "!?.,;"] {
        let results = world.index.search(query, &opts(10, 0)).unwrap();
        assert_eq!(
            results,
            SearchResults {
                hits: Vec::new(),
                has_more: false
            },
            "{query:?}"
        );
    }
}

#[test]
fn folded_and_stemmed_terms_match() {
    let pages = vec![
        FixturePage::new(
            "https://w.test/a",
            "Vélmora",
            "entity",
            "# Vélmora\n\nThe founding of Vélmora.",
        ),
        FixturePage::new(
            "https://w.test/b",
            "Other",
            "entity",
            "# Other\n\nNothing here.",
        ),
    ];
    let world = world_of(pages);
    for query in ["velmora", "VÉLMORA", "founded", "Founding"] {
        let results = world.index.search(query, &opts(10, 0)).unwrap();
        assert_eq!(urls(&results), ["https://w.test/a"], "{query}");
    }
}

#[test]
fn top_k_out_of_range_is_a_user_error() {
    let world = generated_world();
    for top_k in [0, 51] {
        let err = world.index.search("river", &opts(top_k, 0)).unwrap_err();
        assert!(matches!(err, Error::BadArgument(_)), "{err}");
        assert!(err.is_user_error());
    }
}

#[test]
fn page_count_and_urls() {
    let world = generated_world();
    assert_eq!(world.index.page_count(), world.pages.len());
    let mut expected: Vec<&str> = world.pages.iter().map(|page| page.url.as_str()).collect();
    expected.sort_unstable();
    assert_eq!(world.index.urls().collect::<Vec<_>>(), expected);
    assert_eq!(world.index.name(), Some("Test Delta"));
    assert_eq!(world.index.path(), world.path);
}

#[test]
fn empty_world_is_searchable() {
    let world = world_of(Vec::new());
    assert_eq!(world.index.page_count(), 0);
    let results = world.index.search("river", &opts(10, 0)).unwrap();
    assert!(results.hits.is_empty() && !results.has_more);
}
