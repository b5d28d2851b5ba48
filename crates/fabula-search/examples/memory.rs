//! Measures the resident memory of many indexed worlds: builds N fixture worlds of about 950
//! pages (or opens every world of a generated corpus directory, from its persisted index where
//! one is fresh, else building and writing it), keeps them all, searches each once, and prints
//! the build or open time and resident set size per world.
//!
//! Run with `cargo run --release -p fabula-search --example memory -- 200`, or with a directory
//! holding `manifest.json` instead of the count (Linux only: it reads `/proc/self/status`).

use std::time::Instant;

use fabula_search::{Corpus, SearchOptions, WorldIndex};

#[path = "../tests/it/fixture.rs"]
mod fixture;

fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() {
    if let Some(dir) = std::env::args()
        .nth(1)
        .filter(|arg| arg.parse::<usize>().is_err())
    {
        measure_corpus(std::path::Path::new(&dir));
        return;
    }
    let n_worlds: usize = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(100);
    let dir = tempfile::tempdir().unwrap();
    // A handful of distinct world files, each opened many times: every open builds a new index.
    let n_files = 8;
    let mut body_bytes = 0;
    let mut n_pages = 0;
    for file_idx in 0..n_files {
        let pages = fixture::generate_pages(file_idx as u64, 950);
        body_bytes += pages.iter().map(|page| page.body.len()).sum::<usize>();
        n_pages += pages.len();
        fixture::write_world(
            &dir.path().join(format!("w{file_idx}.sqlite")),
            file_idx,
            "Memory Delta",
            &pages,
        );
    }
    println!(
        "fixture: {} pages per world, {} bytes of Markdown per page",
        n_pages / n_files as usize,
        body_bytes / n_pages
    );

    let before = resident_kib();
    let started = Instant::now();
    let mut worlds = Vec::with_capacity(n_worlds);
    for world_idx in 0..n_worlds {
        let path = dir
            .path()
            .join(format!("w{}.sqlite", world_idx % n_files as usize));
        let world = WorldIndex::open(&path).unwrap();
        world
            .search("river city population", &SearchOptions::default())
            .unwrap();
        worlds.push(world);
    }
    let elapsed = started.elapsed();
    let after = resident_kib();
    let heap: usize = worlds.iter().map(WorldIndex::heap_bytes).sum();
    println!(
        "{n_worlds} worlds: build {:.1} ms per world, resident +{} KiB ({} KiB per world), \
         estimated heap {} KiB per world",
        elapsed.as_secs_f64() * 1000.0 / n_worlds as f64,
        after - before,
        (after - before) / n_worlds as u64,
        heap / n_worlds / 1024,
    );
}

fn measure_corpus(dir: &std::path::Path) {
    let before = resident_kib();
    let started = Instant::now();
    let corpus = Corpus::open(dir).unwrap();
    println!("corpus opened in {:?}", started.elapsed());
    let started = Instant::now();
    let mut n_pages = 0;
    for world in corpus.worlds() {
        let index = corpus.world(world.id).unwrap();
        index
            .search("history of the", &SearchOptions::default())
            .unwrap();
        n_pages += index.page_count();
    }
    let n_worlds = corpus.worlds().len().max(1);
    let build_ms = started.elapsed().as_secs_f64() * 1000.0 / n_worlds as f64;
    let after = resident_kib();
    // Search latency over each world's page titles, the most common agent query.
    let mut queries = Vec::new();
    for world in corpus.worlds() {
        let index = corpus.world(world.id).unwrap();
        for url in index.urls().step_by(25) {
            queries.push((world.id, index.extract(url, 0, 1).unwrap().title));
        }
    }
    let started = Instant::now();
    for (id, query) in &queries {
        corpus
            .world(*id)
            .unwrap()
            .search(query, &SearchOptions::default())
            .unwrap();
    }
    println!(
        "{} title queries: {:.1} µs per top-10 partial search",
        queries.len(),
        started.elapsed().as_secs_f64() * 1e6 / queries.len().max(1) as f64
    );
    println!(
        "{n_worlds} worlds, {} pages per world ({} built from their files, the rest opened from \
         persisted indexes): {:.2} ms per world, resident +{} KiB ({} KiB per world)",
        n_pages / n_worlds,
        corpus.builds(),
        build_ms,
        after - before,
        (after - before) / n_worlds as u64,
    );
}
