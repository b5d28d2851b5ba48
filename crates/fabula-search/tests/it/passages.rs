//! The passage index behind `Corpus::retrieve`: a page found by its title across worlds, whole
//! passages at every hiding level, searches within one world, a build that is byte-identical
//! whatever the thread count, kept when fresh and rebuilt when stale, and a corpus that may not
//! write indexes building one of its own.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use fabula_search::{Corpus, Error, Hiding, IndexState};

use crate::fixture::FixturePage;
use crate::persist::{corpus_dir, options, pages_of};

/// The first city article of world `id`: a page with an infobox of hidden values.
fn city_of(id: u32) -> FixturePage {
    pages_of(id)
        .into_iter()
        .find(|page| page.kind == "entity" && page.facts.iter().any(|(_, kind)| *kind == "number"))
        .unwrap()
}

#[test]
fn a_page_is_found_by_its_title_across_worlds() {
    let dir = corpus_dir(3);
    let corpus = Corpus::open(dir.path()).unwrap();
    let city = city_of(2);
    let passages = corpus.retrieve(&city.title, 5, None, Hiding::None).unwrap();
    let first = &passages[0];
    assert_eq!((first.world, first.url.as_str()), (2, city.url.as_str()));
    assert_eq!(first.title, city.title);
    assert_eq!(first.id, format!("{}#p0", city.url));
    let number = city
        .facts
        .iter()
        .find(|(_, kind)| *kind == "number")
        .unwrap();
    assert!(
        first.text.contains(&number.0),
        "{:?} lacks {number:?}",
        first.text
    );
    assert!(
        !first.text.starts_with(&city.title),
        "the title is not repeated: {:?}",
        first.text
    );
    assert!(
        passages
            .windows(2)
            .all(|pair| pair[0].score >= pair[1].score)
    );
}

#[test]
fn hiding_applies_to_passages() {
    let dir = corpus_dir(2);
    let corpus = Corpus::open(dir.path()).unwrap();
    let city = city_of(1);
    let partial = &corpus
        .retrieve(&city.title, 1, None, Hiding::Partial)
        .unwrap()[0];
    assert_eq!(partial.url, city.url);
    for value in city.hidden() {
        assert!(
            !partial.text.contains(value),
            "{value:?} shows in {:?}",
            partial.text
        );
    }
    assert!(partial.text.contains('…'));
    let strict = &corpus
        .retrieve(&city.title, 1, None, Hiding::Strict)
        .unwrap()[0];
    assert_eq!(
        strict.text,
        format!("An encyclopedia article about {}.", city.title)
    );
}

#[test]
fn a_world_can_be_searched_alone() {
    let dir = corpus_dir(3);
    let corpus = Corpus::open(dir.path()).unwrap();
    let passages = corpus
        .retrieve("population founded region", 20, Some(1), Hiding::None)
        .unwrap();
    assert_eq!(passages.len(), 20);
    assert!(passages.iter().all(|passage| passage.world == 1));
    let everywhere = corpus
        .retrieve("population founded region", 50, None, Hiding::None)
        .unwrap();
    let worlds: std::collections::BTreeSet<u32> = everywhere.iter().map(|p| p.world).collect();
    assert_eq!(worlds.len(), 3);
}

#[test]
fn bad_arguments_are_user_errors_and_empty_queries_find_nothing() {
    let dir = corpus_dir(1);
    let corpus = Corpus::open(dir.path()).unwrap();
    for top_k in [0, 51] {
        let error = corpus
            .retrieve("city", top_k, None, Hiding::None)
            .unwrap_err();
        assert!(matches!(error, Error::BadArgument(_)), "{error}");
    }
    let error = corpus
        .retrieve("city", 3, Some(9), Hiding::None)
        .unwrap_err();
    assert!(matches!(error, Error::WorldNotFound(9)), "{error}");
    assert!(
        corpus
            .retrieve("*** ::", 3, None, Hiding::None)
            .unwrap()
            .is_empty()
    );
}

/// Every file of the passage index by name.
fn files(folder: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(folder)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (
                entry.file_name().to_string_lossy().into_owned(),
                fs::read(entry.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn builds_are_byte_identical_kept_when_fresh_and_redone_when_stale() {
    let dir = corpus_dir(3);
    let corpus = Corpus::open(dir.path()).unwrap();
    let (state, build) = corpus.ensure_passage_index(2).unwrap();
    assert_eq!(state, IndexState::Built);
    assert!(
        build.passages > 100 && build.skipped.is_empty(),
        "{build:?}"
    );
    let folder = corpus.passage_index_path();
    let first = files(&folder);
    assert!(first.contains_key("meta.json") && first.contains_key("stamp"));
    assert_eq!(
        corpus.ensure_passage_index(2).unwrap(),
        (IndexState::Fresh, build)
    );

    fs::remove_dir_all(&folder).unwrap();
    let fresh = Corpus::open(dir.path()).unwrap();
    assert_eq!(fresh.ensure_passage_index(1).unwrap().0, IndexState::Built);
    assert_eq!(files(&folder), first, "one thread or two, the same bytes");

    let stamp = folder.join("stamp");
    let text = fs::read_to_string(&stamp).unwrap().replace("key ", "key 0");
    fs::write(&stamp, text).unwrap();
    assert_eq!(
        fresh.ensure_passage_index(1).unwrap().0,
        IndexState::Rebuilt
    );
    assert_eq!(files(&folder), first);
    // The leftovers of a swap are gone.
    let index_dir = folder.parent().unwrap();
    let stray: Vec<String> = fs::read_dir(index_dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

#[test]
fn retrieve_builds_the_index_once_and_reuses_it() {
    let dir = corpus_dir(2);
    let corpus = Corpus::open(dir.path()).unwrap();
    assert!(!corpus.passages_ready());
    let city = city_of(0);
    let first = corpus.retrieve(&city.title, 3, None, Hiding::None).unwrap();
    assert!(corpus.passages_ready());
    assert!(corpus.passage_index_path().join("stamp").exists());
    // A second corpus opens what the first wrote, and answers the same.
    let again = Corpus::open(dir.path()).unwrap();
    assert_eq!(again.ensure_passage_index(1).unwrap().0, IndexState::Fresh);
    assert_eq!(
        again.retrieve(&city.title, 3, None, Hiding::None).unwrap(),
        first
    );
}

#[test]
fn a_corpus_that_writes_no_indexes_builds_its_own() {
    let dir = corpus_dir(2);
    let corpus = Corpus::open_with(dir.path(), options(8, false)).unwrap();
    let city = city_of(1);
    let passages = corpus.retrieve(&city.title, 3, None, Hiding::None).unwrap();
    assert_eq!(passages[0].url, city.url);
    assert!(!dir.path().join("index").exists());
}

/// A batch's queries run on rayon's pool; the first of them builds the index, with a pool of its
/// own, while the others wait. No worker may end up waiting for a lock it holds itself.
#[test]
fn first_retrieves_from_rayon_workers_build_once_without_deadlock() {
    use rayon::prelude::*;

    let dir = corpus_dir(2);
    let corpus = Corpus::open(dir.path()).unwrap();
    let found: Vec<usize> = (0..256)
        .into_par_iter()
        .map(|_| {
            corpus
                .retrieve("population founded", 3, None, Hiding::None)
                .unwrap()
                .len()
        })
        .collect();
    assert!(found.iter().all(|&n| n == 3), "{found:?}");
}
