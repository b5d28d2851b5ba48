//! Benchmarks of one world of about 800 generated pages: building its index from the world file,
//! opening its persisted index, a top-10 search at each hiding level, and one extract.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use fabula_search::{Corpus, Hiding, SearchOptions, WorldIndex};

#[path = "../tests/it/fixture.rs"]
mod fixture;

/// Queries of the kinds agents send: names, topics, and names plus topics.
fn queries(pages: &[fixture::FixturePage]) -> Vec<String> {
    let mut queries: Vec<String> = pages
        .iter()
        .step_by(16)
        .map(|page| page.title.clone())
        .collect();
    queries.extend(
        pages
            .iter()
            .step_by(23)
            .map(|page| format!("{} population founded", page.title)),
    );
    queries.extend(
        [
            "river city salt market",
            "harbor ledgers shipments",
            "magistrate born",
        ]
        .map(String::from),
    );
    queries
}

fn bench_world(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("world-00000.sqlite");
    let pages = fixture::generate_pages(7, 800);
    fixture::write_world(&path, 0, "Bench Delta", &pages);
    let queries = queries(&pages);

    c.bench_function("build_index_800_pages", |b| {
        b.iter(|| WorldIndex::open(black_box(&path)).unwrap())
    });

    fixture::write_manifest(
        dir.path(),
        &[(0, "world-00000.sqlite", "Bench Delta", pages.len())],
    );
    let corpus = Corpus::open(dir.path()).unwrap();
    corpus.ensure_index(0).unwrap();
    let index_path = corpus.index_path(0).unwrap();
    let info = corpus.info(0).unwrap();
    println!(
        "persisted index: {} bytes; world file: {} bytes",
        std::fs::metadata(&index_path).unwrap().len(),
        std::fs::metadata(&path).unwrap().len()
    );
    c.bench_function("open_persisted", |b| {
        b.iter(|| {
            WorldIndex::open_persisted(black_box(&index_path), &info.file, info.index_key())
                .unwrap()
        })
    });

    let world = WorldIndex::open(&path).unwrap();
    for (name, hiding) in [
        ("search_top10_partial", Hiding::Partial),
        ("search_top10_none", Hiding::None),
        ("search_top10_strict", Hiding::Strict),
    ] {
        let opts = SearchOptions {
            top_k: 10,
            offset: 0,
            hiding,
        };
        let mut query_idx = 0;
        c.bench_function(name, |b| {
            b.iter(|| {
                query_idx = (query_idx + 1) % queries.len();
                world.search(black_box(&queries[query_idx]), &opts).unwrap()
            })
        });
    }

    let url = &pages[0].url;
    c.bench_function("extract_first_4000_chars", |b| {
        b.iter(|| world.extract(black_box(url), 0, 4000).unwrap())
    });
}

criterion_group!(benches, bench_world);
criterion_main!(benches);
