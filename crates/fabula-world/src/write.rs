//! Writing a world, its pages and its tasks into one SQLite file through [`fabula_file`].
//!
//! The file is self-describing: besides the domain tables it holds `fabula_meta` (ids, seeds,
//! versions, the theme's limits on people), `fabula_tables` and `fabula_columns` (the role of
//! every table and column, and the ratio rule of each extra drawn against another number), the
//! pages with their provenance, and the tasks. [`fabula_file::write_world`] owns the schema and the
//! order of statements; this module only turns a [`World`] into its metadata and rows.

use std::path::Path;

use fabula_file::{AgeRange, Limits, Meta, Page, Table, Task, Value, WorldContents};

use crate::model::World;
use crate::schema;
use crate::{FORMAT_VERSION, GENERATOR_VERSION, Result};

/// The metadata of a world.
fn meta(world: &World) -> Meta {
    Meta {
        world_id: world.id,
        name: world.name.clone(),
        theme: world.theme.id.clone(),
        theme_label: world.theme.label.clone(),
        master_seed: world.master_seed,
        world_seed: world.world_seed,
        generator_version: GENERATOR_VERSION.to_string(),
        format_version: FORMAT_VERSION,
        present_year: world.present_year,
        earliest_year: world.earliest_year,
        limits: Some(limits(&world.theme.limits)),
    }
}

/// The theme's limits on people, as the file records them for `fabula check`.
fn limits(limits: &crate::theme::Limits) -> Limits {
    let range = |[min, max]: [i64; 2]| AgeRange { min, max };
    Limits {
        founder_age: range(limits.founder_age),
        member_age: range(limits.member_age),
        office_age: limits
            .office_age
            .iter()
            .map(|(seat, &r)| (seat.clone(), range(r)))
            .collect(),
        offices_at_once: limits.offices_at_once,
    }
}

/// Every domain table of a world with its rows, in layout order.
fn tables(world: &World) -> Vec<(Table, Vec<Vec<Value>>)> {
    schema::layout(world)
        .tables
        .into_iter()
        .map(|table| {
            let rows = schema::table_rows(world, table.role);
            (table, rows)
        })
        .collect()
}

/// Writes a complete world file at `path`, which must not exist yet.
pub fn write_world(path: &Path, world: &World, pages: &[Page], tasks: &[Task]) -> Result<()> {
    let contents = WorldContents {
        meta: &meta(world),
        tables: &tables(world),
        pages,
        tasks,
    };
    Ok(fabula_file::write_world(path, &contents)?)
}
