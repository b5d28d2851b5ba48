//! Integration tests of fabula-search against fixture world files built in temporary directories.

mod corpus;
mod extract;
mod fixture;
mod logs;
mod passages;
mod persist;
mod search;
mod snippets;

use std::path::PathBuf;

use fabula_search::WorldIndex;
use fixture::FixturePage;

/// A world file in a temporary directory, its pages and its index.
struct TestWorld {
    _dir: tempfile::TempDir,
    path: PathBuf,
    pages: Vec<FixturePage>,
    index: WorldIndex,
}

impl TestWorld {
    fn page(&self, url: &str) -> &FixturePage {
        self.pages.iter().find(|page| page.url == url).unwrap()
    }
}

/// The generated fixture world of about 40 pages that most tests share.
fn generated_world() -> TestWorld {
    world_of(fixture::generate_pages(42, 40))
}

/// Writes these pages as a world file and indexes it.
fn world_of(pages: Vec<FixturePage>) -> TestWorld {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("world-00000.sqlite");
    fixture::write_world(&path, 0, "Test Delta", &pages);
    let index = WorldIndex::open(&path).unwrap();
    TestWorld {
        _dir: dir,
        path,
        pages,
        index,
    }
}

/// Queries that exercise a world: each page's title words, the values it hides, and generic words.
fn queries_for(pages: &[FixturePage]) -> Vec<String> {
    let mut queries: Vec<String> = vec![
        "river city population founded".into(),
        "market trade salt amber".into(),
        "census 1204".into(),
        "news shipments weirs".into(),
        "magistrate born".into(),
    ];
    for page in pages {
        queries.push(page.title.clone());
        queries.extend(page.hidden().map(str::to_owned));
    }
    queries.sort();
    queries.dedup();
    queries
}
