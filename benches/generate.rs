//! Benchmarks of one world through the generation pipeline: rows, pages, and the written file.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use fabula_world::{generate_world, theme, write_world};

fn one_world(c: &mut Criterion) {
    let themes = theme::all().expect("themes parse");
    let mut group = c.benchmark_group("world");
    group.sample_size(30);
    let mut id = 0u32;
    group.bench_function("generate_rows", |b| {
        b.iter(|| {
            id = id.wrapping_add(1);
            black_box(generate_world(0, id % 1000, &themes))
        })
    });
    let world = generate_world(0, 42, &themes);
    group.bench_function("render_pages", |b| {
        b.iter(|| black_box(fabula_pages::render_pages(&world)))
    });
    let pages = fabula_pages::render_pages(&world);
    let dir = tempfile::tempdir().expect("temp dir");
    let mut n = 0u64;
    group.bench_function("write_sqlite", |b| {
        b.iter(|| {
            n += 1;
            let path = dir.path().join(format!("w{n}.sqlite"));
            write_world(&path, &world, &pages, &[]).expect("written");
            std::fs::remove_file(&path).expect("removed");
        })
    });
    group.finish();
}

criterion_group!(benches, one_world);
criterion_main!(benches);
