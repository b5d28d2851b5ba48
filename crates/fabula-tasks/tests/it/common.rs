//! Shared fixtures: worlds rendered in memory.

use rayon::prelude::*;

use fabula_file::{Page, Task};
use fabula_world::{World, generate_world, theme};

pub const SEED: u64 = 20_250_601;

/// Generates world `id` and renders its pages and tasks.
pub fn rendered(id: u32) -> (World, Vec<Page>, Vec<Task>) {
    rendered_of(SEED, id)
}

/// Generates world `id` of master seed `seed` and renders its pages and tasks.
pub fn rendered_of(seed: u64, id: u32) -> (World, Vec<Page>, Vec<Task>) {
    let themes = theme::all().unwrap();
    let world = generate_world(seed, id, &themes);
    let pages = fabula_pages::render_pages(&world);
    let tasks = fabula_tasks::build_tasks(&world, &pages);
    (world, pages, tasks)
}

/// Renders worlds `0..n` in parallel, in id order.
pub fn rendered_many(n: u32) -> Vec<(World, Vec<Page>, Vec<Task>)> {
    (0..n).into_par_iter().map(rendered).collect()
}
