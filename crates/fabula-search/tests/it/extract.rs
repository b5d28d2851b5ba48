//! Extraction: the page's whole Markdown, windowed by characters.

use fabula_search::{Error, Extract};

use crate::fixture::FixturePage;
use crate::{generated_world, world_of};

/// Reads a page window by window and checks each window's fields.
fn read_all(index: &fabula_search::WorldIndex, url: &str, max_chars: usize) -> String {
    let mut content = String::new();
    let mut start = 0;
    loop {
        let Extract {
            url: extract_url,
            title: _,
            date: _,
            content: window,
            next_start,
            total_chars,
        } = index.extract(url, start, max_chars).unwrap();
        assert_eq!(extract_url, url);
        assert!(window.chars().count() <= max_chars);
        content.push_str(&window);
        match next_start {
            Some(next) => {
                assert_eq!(window.chars().count(), max_chars);
                assert_eq!(next, start + max_chars);
                start = next;
            }
            None => {
                assert_eq!(content.chars().count(), total_chars);
                return content;
            }
        }
    }
}

#[test]
fn windows_concatenate_to_the_page() {
    let world = generated_world();
    for page in &world.pages {
        let whole = world.index.markdown(&page.url).unwrap();
        assert_eq!(whole, page.body, "generated bodies open with their title");
        for max_chars in [1, 64, 1000, 100_000] {
            assert_eq!(read_all(&world.index, &page.url, max_chars), whole);
        }
        let extract = world.index.extract(&page.url, 0, 100_000).unwrap();
        assert_eq!(extract.title, page.title);
        assert_eq!(extract.date, page.published);
        assert_eq!(extract.next_start, None);
    }
}

#[test]
fn windows_count_characters_not_bytes() {
    let body = "# Ünïcödé\n\nNaïve café — 日本語のテキスト, emoji 🦀🦀 and more.";
    let world = world_of(vec![FixturePage::new(
        "https://w.test/u",
        "Ünïcödé",
        "entity",
        body,
    )]);
    let extract = world.index.extract("https://w.test/u", 4, 5).unwrap();
    assert_eq!(extract.content, "ïcödé");
    assert_eq!(extract.next_start, Some(9));
    assert_eq!(extract.total_chars, body.chars().count());
    for max_chars in 1..12 {
        assert_eq!(read_all(&world.index, "https://w.test/u", max_chars), body);
    }
}

#[test]
fn title_line_is_added_when_missing() {
    let pages = vec![
        FixturePage::new(
            "https://w.test/a",
            "Plain Page",
            "entity",
            "No heading here.\n\n- item",
        ),
        FixturePage::new(
            "https://w.test/b",
            "Headed",
            "entity",
            "\n# Headed\n\nText.",
        ),
    ];
    let world = world_of(pages);
    assert_eq!(
        world.index.markdown("https://w.test/a").unwrap(),
        "# Plain Page\n\nNo heading here.\n\n- item"
    );
    assert_eq!(
        world.index.markdown("https://w.test/b").unwrap(),
        "\n# Headed\n\nText."
    );
    let extract = world.index.extract("https://w.test/a", 0, 12).unwrap();
    assert_eq!(extract.content, "# Plain Page");
}

#[test]
fn start_past_the_end_is_empty() {
    let world = generated_world();
    let url = &world.pages[0].url;
    let total = world.index.extract(url, 0, 10).unwrap().total_chars;
    for start in [total, total + 1, usize::MAX] {
        let extract = world.index.extract(url, start, 10).unwrap();
        assert_eq!(extract.content, "");
        assert_eq!(extract.next_start, None);
        assert_eq!(extract.total_chars, total);
    }
    let extract = world.index.extract(url, 0, usize::MAX).unwrap();
    assert_eq!(extract.content.chars().count(), total);
}

#[test]
fn bad_requests_are_user_errors() {
    let world = generated_world();
    let err = world
        .index
        .extract("https://nowhere.test/x", 0, 100)
        .unwrap_err();
    assert!(
        matches!(&err, Error::UrlNotFound(url) if url == "https://nowhere.test/x"),
        "{err}"
    );
    assert!(err.is_user_error());
    let err = world.index.extract(&world.pages[0].url, 0, 0).unwrap_err();
    assert!(matches!(err, Error::BadArgument(_)), "{err}");
    assert!(matches!(
        world.index.markdown("nope"),
        Err(Error::UrlNotFound(_))
    ));
}
