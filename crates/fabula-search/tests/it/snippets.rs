//! Snippets at each hiding level, the partial no-leak invariant, and snapshots.

use fabula_search::{Hiding, Hit, SearchOptions, plain_text};

use crate::fixture::FixturePage;
use crate::{TestWorld, generated_world, queries_for, world_of};

fn search(world: &TestWorld, query: &str, hiding: Hiding) -> Vec<Hit> {
    let opts = SearchOptions {
        top_k: 50,
        offset: 0,
        hiding,
    };
    world.index.search(query, &opts).unwrap().hits
}

/// Strips the `…` marks a snippet adds where it cuts the text.
fn passage(snippet: &str) -> &str {
    snippet.trim_start_matches('…').trim_end_matches('…')
}

#[test]
fn unhidden_snippets_are_passages_of_the_page() {
    let world = generated_world();
    for query in queries_for(&world.pages) {
        for hit in search(&world, &query, Hiding::None) {
            let page_text = plain_text(&world.index.markdown(&hit.url).unwrap());
            assert!(
                page_text.contains(passage(&hit.snippet)),
                "{query}: {:?} not in {page_text:?}",
                hit.snippet
            );
            assert!(!hit.snippet.contains(['|', '#', '\n']), "{}", hit.snippet);
            assert!(!hit.snippet.contains("**"), "{}", hit.snippet);
            assert!(!passage(&hit.snippet).is_empty(), "{}", hit.url);
            assert!(hit.snippet.chars().count() <= 202, "{}", hit.snippet);
        }
    }
}

#[test]
fn unhidden_snippets_show_the_matched_words() {
    let world = generated_world();
    let hits = search(&world, "ferry stairs", Hiding::None);
    assert!(
        hits[0].snippet.contains("ferry stairs"),
        "{}",
        hits[0].snippet
    );
    for hit in hits {
        assert!(
            hit.snippet.to_lowercase().contains("ferry"),
            "{}",
            hit.snippet
        );
    }
}

/// The invariant of partial hiding: no value a page states as a number, year, date or related
/// entity appears in its snippet, whatever the query, and no digit either.
#[test]
fn partial_snippets_never_leak_stated_values() {
    let world = generated_world();
    let queries = queries_for(&world.pages);
    let mut n_checked = 0;
    for query in &queries {
        for hit in search(&world, query, Hiding::Partial) {
            let page = world.page(&hit.url);
            assert_no_leak(page, &hit.snippet, query);
            n_checked += 1;
        }
    }
    assert!(n_checked > 500, "only {n_checked} snippets checked");
}

fn assert_no_leak(page: &FixturePage, snippet: &str, query: &str) {
    let lower = snippet.to_ascii_lowercase();
    for value in page.hidden() {
        assert!(
            !lower.contains(&value.to_ascii_lowercase()),
            "{query}: {value:?} leaks in {snippet:?} of {}",
            page.url
        );
    }
    assert!(
        !snippet.chars().any(char::is_numeric),
        "{query}: digit in {snippet:?}"
    );
}

#[test]
fn partial_snippets_mask_values_cut_by_the_window() {
    // The entity's name straddles the end of any window that shows the matched word.
    let filler = "Quiet words fill the opening lines of this page. ".repeat(3);
    let body = format!(
        "# Notice\n\n{filler}The toll bridge belongs to Ardmoor Westerfield Kavelmor today."
    );
    let mut page = FixturePage::new("https://w.test/n", "Notice", "news", &body);
    page.facts = vec![("Ardmoor Westerfield Kavelmor".to_owned(), "entity")];
    let world = world_of(vec![page.clone()]);
    for query in ["toll", "bridge belongs", "quiet", "kavelmor"] {
        for hit in search(&world, query, Hiding::Partial) {
            assert_no_leak(&page, &hit.snippet, query);
            for part in ["Ardmoor", "Westerfield", "Kavelmor"] {
                assert!(!hit.snippet.contains(part), "{query}: {}", hit.snippet);
            }
        }
    }
}

#[test]
fn strict_snippets_describe_the_page() {
    let world = generated_world();
    for page in &world.pages {
        let hits = search(&world, &page.title, Hiding::Strict);
        let hit = hits.iter().find(|hit| hit.url == page.url).unwrap();
        let expected_start = match page.kind {
            "entity" => "An encyclopedia article about ",
            "list" => "A reference list: ",
            "category" => "A category page: ",
            "news" => "A news report from delta-courier.fabula.test.",
            "history" => "A historical account from annals.fabula.test.",
            other => panic!("unexpected kind {other}"),
        };
        assert!(hit.snippet.starts_with(expected_start), "{}", hit.snippet);
        assert!(
            !hit.snippet.chars().any(char::is_numeric),
            "{}",
            hit.snippet
        );
        let lower = hit.snippet.to_ascii_lowercase();
        for value in page.hidden() {
            let in_title = page
                .title
                .to_ascii_lowercase()
                .contains(&value.to_ascii_lowercase());
            assert!(
                in_title || !lower.contains(&value.to_ascii_lowercase()),
                "{value} in {}",
                hit.snippet
            );
        }
    }
}

#[test]
fn snippets_agree_with_extracts() {
    let world = generated_world();
    for query in queries_for(&world.pages).iter().take(60) {
        for hit in search(&world, query, Hiding::None) {
            let mut markdown = String::new();
            let mut start = 0;
            loop {
                let extract = world.index.extract(&hit.url, start, 97).unwrap();
                markdown.push_str(&extract.content);
                let Some(next) = extract.next_start else {
                    break;
                };
                start = next;
            }
            assert!(
                plain_text(&markdown).contains(passage(&hit.snippet)),
                "{}",
                hit.snippet
            );
        }
    }
}

/// Renders every field of the hits of one query at each hiding level.
fn dump(world: &TestWorld, query: &str) -> String {
    let mut out = String::new();
    for hiding in [Hiding::None, Hiding::Partial, Hiding::Strict] {
        out.push_str(&format!("== {hiding:?}\n"));
        let opts = SearchOptions {
            top_k: 3,
            offset: 0,
            hiding,
        };
        let results = world.index.search(query, &opts).unwrap();
        for hit in results.hits {
            let Hit {
                rank,
                url,
                title,
                snippet,
                date,
                score,
            } = hit;
            let date = date.as_deref().unwrap_or("N/A");
            out.push_str(&format!(
                "[{rank}] {url}\nTitle: {title}\nSnippet: {snippet}\nDate: {date}\nScore: {score:.3}\n"
            ));
        }
        out.push_str(&format!("has_more: {}\n", results.has_more));
    }
    out
}

#[test]
fn snapshot_city_query() {
    let world = generated_world();
    insta::assert_snapshot!(dump(&world, "river city founded population"));
}

#[test]
fn snapshot_news_query() {
    let world = generated_world();
    insta::assert_snapshot!(dump(&world, "shipments harbor ledgers"));
}

#[test]
fn snapshot_list_query() {
    let world = generated_world();
    insta::assert_snapshot!(dump(&world, "list of cities by population"));
}
