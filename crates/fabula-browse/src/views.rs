//! The views both listeners show: the dataset, a world, a page and a row. Each reads what it
//! needs from the world file (never its tasks) and returns a template context; `templates.rs`
//! renders it. Links use the `/ui/...` paths of [`crate::Browse`].

use std::collections::BTreeMap;

use fabula_file::{PageHead, Value, WorldFile};
use fabula_search::{Hit, WorldInfo};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value as Json, json};

use crate::error::{Error, Result};
use crate::graph::entity_graph;
use crate::markdown::{Highlight, render};
use crate::plot::bar_chart;
use crate::timeline;
use crate::world::WorldData;
use fabula_tasks::difficulty::{all_shown, result_text};

/// Worlds listed per page of the dataset view.
pub(crate) const WORLDS_PER_PAGE: usize = 200;

/// The dataset view's query: a theme filter and a page number (from 1).
#[derive(Debug, Default, Clone, serde::Deserialize)]
pub struct DatasetQuery {
    pub theme: Option<String>,
    pub page: Option<usize>,
}

/// The dataset: worlds with theme, name and sizes, filtered by theme, a page at a time.
pub(crate) fn dataset(worlds: &[WorldInfo], query: &DatasetQuery) -> Json {
    let mut themes: Vec<&str> = worlds.iter().map(|w| w.theme.as_str()).collect();
    themes.sort_unstable();
    themes.dedup();
    let theme = query.theme.as_deref().filter(|t| !t.is_empty());
    let shown: Vec<&WorldInfo> = worlds
        .iter()
        .filter(|w| theme.is_none_or(|t| w.theme == t))
        .collect();
    let n_pages = shown.len().div_ceil(WORLDS_PER_PAGE).max(1);
    let page = query.page.unwrap_or(1).clamp(1, n_pages);
    let rows: Vec<Json> = shown
        .iter()
        .skip((page - 1) * WORLDS_PER_PAGE)
        .take(WORLDS_PER_PAGE)
        .map(|w| {
            json!({"id": w.id, "name": w.name, "theme": w.theme, "rows": w.rows,
                   "tables": w.tables, "pages": w.pages, "tasks": w.tasks})
        })
        .collect();
    let page_link = |n: usize| {
        let theme = theme
            .map(|t| format!("theme={}&", percent_encode(t)))
            .unwrap_or_default();
        format!("/ui/?{theme}page={n}")
    };
    json!({
        "title": "Dataset",
        "prev": (page > 1).then(|| page_link(page - 1)),
        "next": (page < n_pages).then(|| page_link(page + 1)),
        "themes": themes,
        "theme": theme,
        "worlds": rows,
        "matching": shown.len(),
        "total": worlds.len(),
        "page": page,
        "n_pages": n_pages,
        "rows_total": shown.iter().map(|w| w.rows).sum::<usize>(),
        "pages_total": shown.iter().map(|w| w.pages).sum::<usize>(),
        "tasks_total": shown.iter().map(|w| w.tasks).sum::<usize>(),
    })
}

/// A world: its meta data, the entity graph, every table with its rows, and the timeline.
pub(crate) fn world(file: &WorldFile, world_id: u32) -> Result<Json> {
    let data = WorldData::load(file)?;
    let counts: Vec<usize> = data.rows.iter().map(Vec::len).collect();
    let graph = entity_graph(&data.tables, &counts);
    let tables: Vec<Json> = data
        .tables
        .iter()
        .enumerate()
        .map(|(idx, table)| {
            let rows: Vec<Json> = data
                .ids(idx)
                .map(|id| json!({"id": id, "label": data.label(idx, id)}))
                .collect();
            json!({"name": table.name, "plural": table.plural, "singular": table.singular,
                   "role": table.role.as_str(), "rows": rows,
                   "columns": table.columns.iter().map(|c| c.label.as_str()).collect::<Vec<_>>()})
        })
        .collect();
    let events = timeline::events(&data);
    let decades = timeline::per_decade(&events);
    let chart = bar_chart("Dated facts per decade", &decades, 760);
    let mut by_decade: BTreeMap<i64, Vec<&timeline::Event>> = BTreeMap::new();
    for event in &events {
        by_decade
            .entry(event.year.div_euclid(10) * 10)
            .or_default()
            .push(event);
    }
    let decades: Vec<Json> = by_decade
        .into_iter()
        .map(|(decade, events)| json!({"decade": decade, "events": events}))
        .collect();
    Ok(json!({
        "title": data.meta.name,
        "world": world_id,
        "meta": {"name": data.meta.name, "theme": data.meta.theme,
                 "theme_label": data.meta.theme_label, "earliest_year": data.meta.earliest_year,
                 "present_year": data.meta.present_year,
                 "generator_version": data.meta.generator_version},
        "graph": graph,
        "tables": tables,
        "rows_total": counts.iter().sum::<usize>(),
        "timeline_chart": chart,
        "decades": decades,
        "events_total": events.len(),
    }))
}

/// The browser's link to a row, with an optional column anchor.
pub(crate) fn row_href(world_id: u32, table: &str, row: i64, column: Option<&str>) -> String {
    let anchor = column.map(|c| format!("#c-{c}")).unwrap_or_default();
    format!("/ui/worlds/{world_id}/rows/{table}/{row}{anchor}")
}

/// The browser's link to a page of a world.
pub(crate) fn page_href(world_id: u32, url: &str) -> String {
    format!("/ui/worlds/{world_id}/page?url={}", percent_encode(url))
}

/// A page: its Markdown rendered with every stated cell marked and linked to its row, and the
/// table of those cells.
pub(crate) fn page(file: &WorldFile, world_id: u32, url: &str) -> Result<Json> {
    let stored = file
        .page(url)?
        .ok_or_else(|| Error::NotFound(format!("world {world_id} has no page {url}")))?;
    let data = WorldData::load(file)?;
    let page = stored.page;
    let mut highlights = Vec::new();
    let mut facts = Vec::new();
    for fact in &page.facts {
        let href = row_href(world_id, &fact.table, fact.row_id, Some(&fact.column));
        let (row_label, column_label) = match data.table_index(&fact.table) {
            Some(idx) => (
                data.label(idx, fact.row_id),
                column_label(&data, idx, &fact.column),
            ),
            None => (format!("#{}", fact.row_id), fact.column.clone()),
        };
        let title = format!(
            "{row_label}: {column_label} ({}.{})",
            fact.table, fact.column
        );
        highlights.push(Highlight {
            shown: fact.shown.clone(),
            href: href.clone(),
            title: title.clone(),
        });
        facts.push(json!({"shown": fact.shown, "href": href, "row": row_label,
                          "column": column_label, "kind": fact.value_kind.as_str()}));
    }
    let heads = file.page_heads()?;
    let known: BTreeMap<&str, &PageHead> = heads.iter().map(|h| (h.url.as_str(), h)).collect();
    let link = |dest: &str| match known.get(dest) {
        Some(_) => page_href(world_id, dest),
        None => dest.to_owned(),
    };
    let html = render(&page.body, &highlights, &link);
    Ok(json!({
        "title": page.title,
        "world": world_id,
        "world_name": data.meta.name,
        "page": {"url": page.url, "title": page.title, "kind": page.kind.as_str(),
                 "published": page.published},
        "html": html,
        "facts": facts,
    }))
}

fn column_label(data: &WorldData, table_idx: usize, column: &str) -> String {
    data.tables[table_idx]
        .columns
        .iter()
        .find(|c| c.name == column)
        .map_or_else(|| column.to_owned(), |c| c.label.clone())
}

/// A row: its cells (references linked), the pages that state each cell, and the rows that
/// refer to it.
pub(crate) fn row(file: &WorldFile, world_id: u32, table: &str, row_id: i64) -> Result<Json> {
    let data = WorldData::load(file)?;
    let missing = || Error::NotFound(format!("world {world_id} has no row {table}/{row_id}"));
    let table_idx = data.table_index(table).ok_or_else(missing)?;
    let cells = data.row(table_idx, row_id).ok_or_else(missing)?;
    let heads = file.page_heads()?;
    let by_id: BTreeMap<i64, &PageHead> = heads.iter().map(|h| (h.id, h)).collect();
    let mut stated: BTreeMap<&str, Vec<Json>> = BTreeMap::new();
    let facts = file.facts_of_row(table, row_id)?;
    for (page_id, fact) in &facts {
        if let Some(head) = by_id.get(page_id) {
            stated.entry(fact.column.as_str()).or_default().push(json!({
                "href": page_href(world_id, &head.url), "title": head.title,
                "kind": head.kind.as_str(), "date": head.published, "shown": fact.shown}));
        }
    }
    let spec = &data.tables[table_idx];
    let columns: Vec<Json> = spec
        .columns
        .iter()
        .zip(cells)
        .map(|(column, value)| {
            let link = match (value, &column.references) {
                (Value::Int(id), Some(target)) => Some(row_href(world_id, target, *id, None)),
                _ => None,
            };
            json!({"name": column.name, "label": column.label, "role": column.role.as_str(),
                   "value": data.cell_text(column, value), "link": link,
                   "derived": column.derived,
                   "pages": stated.get(column.name.as_str()).cloned().unwrap_or_default()})
        })
        .collect();
    let referrers: Vec<Json> = data
        .referrers(table, row_id)
        .into_iter()
        .map(|(idx, id, column)| {
            json!({"href": row_href(world_id, &data.tables[idx].name, id, None),
                   "label": data.label(idx, id), "table": data.tables[idx].singular,
                   "via": column.label})
        })
        .collect();
    let mut pages: Vec<&PageHead> = facts
        .iter()
        .filter_map(|(id, _)| by_id.get(id).copied())
        .collect();
    pages.dedup_by_key(|head| head.id);
    let pages: Vec<Json> = pages
        .iter()
        .map(|h| {
            json!({"href": page_href(world_id, &h.url), "title": h.title,
                        "kind": h.kind.as_str(), "date": h.published})
        })
        .collect();
    Ok(json!({
        "title": data.label(table_idx, row_id),
        "world": world_id,
        "world_name": data.meta.name,
        "table": {"name": spec.name, "singular": spec.singular, "plural": spec.plural},
        "row": row_id,
        "columns": columns,
        "referrers": referrers,
        "pages": pages,
    }))
}

/// Search results for a template: each hit with its browser link, and whether it shows
/// every value of `answer` (empty: no answer to look for).
pub(crate) fn hits_view(world_id: u32, hits: &[Hit], answer: &[String]) -> Json {
    let rows: Vec<Json> = hits
        .iter()
        .map(|hit| {
            let text = result_text(&hit.title, &hit.snippet, &hit.url, hit.date.as_deref());
            json!({"rank": hit.rank, "url": hit.url, "title": hit.title, "snippet": hit.snippet,
                   "date": hit.date, "href": page_href(world_id, &hit.url),
                   "shows_answer": all_shown(answer, &text)})
        })
        .collect();
    Json::Array(rows)
}

/// Everything but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`).
const NOT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encodes text for one query value or path segment: every byte but RFC 3986's
/// unreserved ones becomes `%XX`.
pub fn percent_encode(text: &str) -> String {
    utf8_percent_encode(text, NOT_UNRESERVED).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_names_are_encoded_whole() {
        fn check(text: &str, expect: &str) {
            assert_eq!(percent_encode(text), expect, "{text}");
        }
        check("island-nation", "island-nation");
        check(
            "https://a.example/wiki/Port_Amsel?x=1&y",
            "https%3A%2F%2Fa.example%2Fwiki%2FPort_Amsel%3Fx%3D1%26y",
        );
        check("Ærø Vale", "%C3%86r%C3%B8%20Vale");
    }
}
