//! Rendered pages of generated worlds.

use std::collections::{BTreeMap, BTreeSet};

use fabula_file::{Page, PageKind, TableRole, Value, ValueKind};
use fabula_pages::render_pages;
use fabula_world::schema;
use fabula_world::{World, generate_world, theme};

fn world(seed: u64, id: u32) -> World {
    generate_world(seed, id, &theme::all().unwrap())
}

/// Dumps a page with every field, so a new field forces a decision in the snapshots.
fn dump(page: &Page) -> String {
    let Page {
        url,
        title,
        kind,
        published,
        body,
        facts,
    } = page;
    let facts: Vec<String> = facts
        .iter()
        .map(|f| {
            format!(
                "{}.{}#{} = {:?} ({})",
                f.table,
                f.column,
                f.row_id,
                f.shown,
                f.value_kind.as_str()
            )
        })
        .collect();
    format!(
        "url: {url}\ntitle: {title}\nkind: {kind}\npublished: {published:?}\n---\n{body}---\n{}\n",
        facts.join("\n")
    )
}

#[test]
fn snapshots_of_each_page_kind() {
    let w = world(1, 5);
    let pages = render_pages(&w);
    for kind in PageKind::ALL {
        let page = pages
            .iter()
            .find(|p| p.kind == kind)
            .unwrap_or_else(|| panic!("no {kind} page"));
        insta::assert_snapshot!(format!("page_{kind}"), dump(page));
    }
    let person = pages
        .iter()
        .find(|p| p.kind == PageKind::Entity && p.body.contains("| Born |"))
        .unwrap();
    insta::assert_snapshot!("page_person", dump(person));
}

/// Some of an article's mentions of other entities are plain names, and only those whose own
/// article links back to it: the relation stays a link away from the other side.
#[test]
fn some_mentions_are_plain_names_the_other_side_links() {
    let (mut plain, mut all) = (0, 0);
    for id in 0..6 {
        let pages = render_pages(&world(9, id));
        let articles: BTreeMap<&str, &Page> = pages
            .iter()
            .filter(|p| p.kind == PageKind::Entity)
            .map(|p| (p.title.as_str(), p))
            .collect();
        for page in articles.values() {
            for f in page
                .facts
                .iter()
                .filter(|f| f.value_kind == ValueKind::Entity)
            {
                all += 1;
                if page.body.contains(&format!("[{}](", f.shown)) {
                    continue;
                }
                plain += 1;
                let other = articles[f.shown.as_str()];
                assert!(
                    other.body.contains(&format!("]({})", page.url)),
                    "{} names {} in plain text, whose article does not link back",
                    page.url,
                    f.shown
                );
            }
        }
    }
    let share = plain as f64 / all as f64;
    assert!(
        (0.05..0.35).contains(&share),
        "{plain} of {all} mentions plain"
    );
}

#[test]
fn rendering_is_deterministic() {
    let w = world(2, 9);
    assert_eq!(render_pages(&w), render_pages(&w));
}

fn cell_texts(w: &World) -> BTreeMap<(String, i64, String), Value> {
    let layout = schema::layout(w);
    let mut cells = BTreeMap::new();
    for table in &layout.tables {
        for row in schema::table_rows(w, table.role) {
            let Value::Int(id) = row[0] else {
                unreachable!()
            };
            for (c, v) in table.columns.iter().zip(row) {
                cells.insert((table.name.clone(), id, c.name.clone()), v);
            }
        }
    }
    cells
}

#[test]
fn every_cell_is_stated_and_every_fact_is_true() {
    for id in 0..30 {
        let w = world(4, id);
        let pages = render_pages(&w);
        assert!(
            (300..=2000).contains(&pages.len()),
            "world {id}: {} pages",
            pages.len()
        );
        let cells = cell_texts(&w);
        let mut stated = BTreeSet::new();
        let mut urls = BTreeSet::new();
        for page in &pages {
            assert!(
                urls.insert(page.url.to_lowercase()),
                "duplicate url {}",
                page.url
            );
            assert!(page.url.starts_with("https://"), "{}", page.url);
            for f in &page.facts {
                assert!(
                    page.body.contains(&f.shown),
                    "{} lacks {:?}",
                    page.url,
                    f.shown
                );
                let value = &cells[&(f.table.clone(), f.row_id, f.column.clone())];
                match (value, f.value_kind) {
                    (Value::Int(n), ValueKind::Number) => {
                        assert!(
                            f.shown == n.to_string() || f.shown == fabula_pages::fmt_count(*n),
                            "{f:?} vs {n}"
                        )
                    }
                    (Value::Int(n), ValueKind::Year) => assert_eq!(f.shown, n.to_string()),
                    (Value::Text(t), ValueKind::Text | ValueKind::Name) => assert_eq!(&f.shown, t),
                    (Value::Int(_), ValueKind::Entity | ValueKind::Name) => {} // A reference, checked by `fabula check`.
                    other => panic!("unexpected fact {f:?} for {other:?}"),
                }
                stated.insert((f.table.clone(), f.row_id, f.column.clone()));
            }
        }
        for ((table, row, column), value) in &cells {
            if column != "id" && *value != Value::Null {
                assert!(
                    stated.contains(&(table.clone(), *row, column.clone())),
                    "world {id}: {table}.{column}#{row} unstated"
                );
            }
        }
    }
}

#[test]
fn prose_varies_between_pages() {
    let w = world(5, 3);
    let pages = render_pages(&w);
    // The founding sentence of organisation articles uses several phrasings.
    let openings: BTreeSet<String> = pages
        .iter()
        .filter(|p| p.kind == PageKind::Entity && p.body.contains("| Founder |"))
        .filter_map(|p| {
            p.body
                .lines()
                .nth(2)
                .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        })
        .collect();
    assert!(openings.len() >= 3, "{openings:?}");
}

#[test]
fn yearbooks_state_what_held_at_their_date() {
    let w = world(6, 1);
    let pages = render_pages(&w);
    let tenure_table = schema::layout(&w).table(TableRole::Tenure).name.clone();
    let mut checked = 0;
    for page in pages.iter().filter(|p| p.kind == PageKind::History) {
        let year: i64 = page.published.as_deref().unwrap()[..4].parse().unwrap();
        for f in page.facts.iter().filter(|f| f.table == tenure_table) {
            let t = &w.tenures[(f.row_id - 1) as usize];
            assert!(
                t.start <= year && t.end.is_none_or(|e| e > year),
                "{} states {t:?}",
                page.url
            );
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn near_namesakes_exist() {
    let w = world(7, 2);
    let words: Vec<String> = w
        .organisations
        .iter()
        .map(|o| &o.name)
        .chain(w.settlements.iter().map(|s| &s.name))
        .flat_map(|n| n.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for word in &words {
        *counts.entry(word.as_str()).or_default() += 1;
    }
    let shared_roots = counts
        .iter()
        .filter(|(w, n)| **n > 1 && w.chars().next().unwrap().is_uppercase() && w.len() > 3)
        .count();
    assert!(shared_roots >= 1, "{counts:?}");
    // People share family names.
    let families: BTreeSet<&str> = w
        .people
        .iter()
        .map(|p| p.name.split_whitespace().last().unwrap())
        .collect();
    assert!(families.len() < w.people.len());
}

#[test]
fn sites_are_named_after_the_invented_root_and_laid_out_per_world() {
    let mut shapes = BTreeSet::new();
    for id in 0..12 {
        let w = world(8, id);
        let root = fabula_pages::sites::slug(&w.root);
        let pages = render_pages(&w);
        let hosts: BTreeSet<&str> = pages
            .iter()
            .filter_map(|p| p.url.strip_prefix("https://")?.split('/').next())
            .collect();
        for kind in [PageKind::Entity, PageKind::News, PageKind::History] {
            let host = pages
                .iter()
                .find(|p| p.kind == kind)
                .and_then(|p| p.url.strip_prefix("https://")?.split('/').next())
                .unwrap();
            assert!(host.contains(&root), "world {id}: {kind} page on {host}");
        }
        assert!(hosts.len() > 3, "world {id}: {hosts:?}");
        // The shape of an article url: its path with the title's letters dropped.
        let article = pages.iter().find(|p| p.kind == PageKind::Category).unwrap();
        let path = article.url.split_once(&root).unwrap().1;
        shapes.insert(path.replace(|c: char| c.is_alphanumeric(), ""));
    }
    assert!(shapes.len() >= 3, "{shapes:?}");
}
