//! Round trips through the world file: what `write_world` stores, `WorldFile` reads back typed,
//! and damaged files are reported with their table and row.

use std::path::Path;

use fabula_file::{
    AgeRange, Column, ColumnRole, Hiding, Limits, Meta, Page, PageFact, PageKind, SqlType, Table,
    TableRole, Task, TaskKind, Tier, Value, ValueKind, WorldContents, WorldFile, write_world,
};

fn meta() -> Meta {
    Meta {
        world_id: 3,
        name: "Orvane".into(),
        theme: "islands".into(),
        theme_label: "island nation".into(),
        master_seed: 11,
        world_seed: 12,
        generator_version: "test".into(),
        format_version: fabula_file::FORMAT_VERSION,
        present_year: 2240,
        earliest_year: 1790,
        limits: Some(Limits {
            founder_age: AgeRange { min: 20, max: 65 },
            member_age: AgeRange { min: 15, max: 60 },
            office_age: [("Chief Factor".to_owned(), AgeRange { min: 30, max: 70 })].into(),
            offices_at_once: 1,
        }),
    }
}

fn column(name: &str, sql_type: SqlType, role: ColumnRole) -> Column {
    Column {
        name: name.into(),
        sql_type,
        role,
        nullable: false,
        references: None,
        derived: None,
        label: name.into(),
    }
}

fn tables() -> Vec<(Table, Vec<Vec<Value>>)> {
    let isles = Table {
        role: TableRole::Region,
        name: "isles".into(),
        singular: "isle".into(),
        plural: "isles".into(),
        columns: vec![
            column("id", SqlType::Integer, ColumnRole::Id),
            column("name", SqlType::Text, ColumnRole::Name),
            column("population", SqlType::Integer, ColumnRole::Population),
        ],
    };
    let rows = vec![
        vec![Value::Int(1), Value::Text("Kest".into()), Value::Int(1200)],
        vec![Value::Int(2), Value::Text("Varn".into()), Value::Int(80)],
    ];
    vec![(isles, rows)]
}

fn page(url: &str, kind: PageKind, facts: Vec<PageFact>) -> Page {
    Page {
        url: url.into(),
        title: url.trim_start_matches('/').into(),
        kind,
        published: (kind == PageKind::News).then(|| "2239-05-01".to_owned()),
        body: format!("# {url}\n\nKest has 1,200 people."),
        facts,
    }
}

fn fact(row_id: i64, column: &str, shown: &str, value_kind: ValueKind) -> PageFact {
    PageFact {
        table: "isles".into(),
        row_id,
        column: column.into(),
        shown: shown.into(),
        value_kind,
    }
}

fn write(path: &Path) -> (Vec<Page>, Vec<Task>) {
    let pages = vec![
        page(
            "/wiki/Kest",
            PageKind::Entity,
            vec![
                fact(1, "name", "Kest", ValueKind::Name),
                fact(1, "population", "1,200", ValueKind::Number),
            ],
        ),
        page("/news/kest", PageKind::News, Vec::new()),
    ];
    let tasks = vec![Task {
        id: "w3-t01".into(),
        kind: TaskKind::Lookup,
        question: "How many people live on Kest?".into(),
        answer: "\"1200\"".into(),
        evidence: "[\"/wiki/Kest\"]".into(),
        hops: 1,
        sql: "SELECT population FROM isles WHERE name = 'Kest'".into(),
        tier: Tier::Easy,
        // Not a tier the generator estimates effort for, but the column holds any task's.
        effort: Some(fabula_file::Effort {
            plan_calls: 61,
            plan_calls_first_fit: 48,
            plan_starts_above: true,
            candidates: 23,
            near_misses: 14,
            candidates_after_two: Some(6),
        }),
    }];
    let tables = tables();
    let contents = WorldContents {
        meta: &meta(),
        tables: &tables,
        pages: &pages,
        tasks: &tasks,
    };
    write_world(path, &contents).unwrap();
    (pages, tasks)
}

#[test]
fn written_rows_read_back_typed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.sqlite");
    let (pages, tasks) = write(&path);
    let file = WorldFile::open(&path).unwrap();
    assert_eq!(file.meta().unwrap(), meta());
    let read_tables = file.tables().unwrap();
    assert_eq!(read_tables, vec![tables().remove(0).0]);
    let stored = file.pages().unwrap();
    assert_eq!(stored.iter().map(|p| p.id).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(
        stored.into_iter().map(|p| p.page).collect::<Vec<_>>(),
        pages
    );
    assert_eq!(file.tasks().unwrap(), tasks);
    let kest = file.page("/wiki/Kest").unwrap().unwrap();
    assert_eq!(kest.page.facts.len(), 2);
    assert!(file.page("/wiki/Nowhere").unwrap().is_none());
    assert_eq!(
        file.query_text(&tasks[0].sql).unwrap(),
        vec![vec!["1200".to_owned()]]
    );
    assert_eq!(file.page_facts().unwrap().len(), 2);
    assert_eq!(file.domain_tables().unwrap(), ["isles"]);
    let bare = file.pages_without_facts().unwrap();
    assert_eq!(bare.len(), 2);
    assert!(bare.iter().all(|p| p.page.facts.is_empty()));
    // Pages by the start of their title: the same rows as the whole list, filtered.
    for prefix in ["wiki/K", "wiki/", "Kest", ""] {
        let titled = file.pages_titled(prefix).unwrap();
        let expected: Vec<_> = bare
            .iter()
            .filter(|p| p.page.title.starts_with(prefix))
            .cloned()
            .collect();
        assert_eq!(titled, expected, "{prefix}");
    }
    assert_eq!(Hiding::default(), Hiding::Partial);
}

#[test]
fn domain_rows_page_heads_and_facts_of_a_row_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.sqlite");
    let (pages, _) = write(&path);
    let file = WorldFile::open(&path).unwrap();
    let (table, rows) = tables().remove(0);
    assert_eq!(file.table_rows(&table).unwrap(), rows);
    let heads = file.page_heads().unwrap();
    assert_eq!(
        heads
            .iter()
            .map(|h| (h.id, h.url.as_str(), h.kind))
            .collect::<Vec<_>>(),
        [
            (1, "/wiki/Kest", PageKind::Entity),
            (2, "/news/kest", PageKind::News)
        ]
    );
    assert_eq!(heads[1].published.as_deref(), Some("2239-05-01"));
    let facts = file.facts_of_row("isles", 1).unwrap();
    assert_eq!(
        facts,
        pages[0]
            .facts
            .iter()
            .map(|f| (1, f.clone()))
            .collect::<Vec<_>>()
    );
    assert!(file.facts_of_row("isles", 2).unwrap().is_empty());
}

#[test]
fn writing_never_replaces_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.sqlite");
    std::fs::write(&path, b"x").unwrap();
    let contents = WorldContents {
        meta: &meta(),
        tables: &[],
        pages: &[],
        tasks: &[],
    };
    let err = write_world(&path, &contents).unwrap_err();
    assert!(
        err.to_string().contains("only written to a new path"),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"x");
}

/// Damages a written file with `sql` and checks the reader's error for `read`.
fn check_damage(sql: &str, read: fn(&WorldFile) -> String, expect: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.sqlite");
    write(&path);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(sql)
        .unwrap();
    let file = WorldFile::open(&path).unwrap();
    let got = read(&file);
    assert!(got.contains(expect), "expected `{expect}` in `{got}`");
}

#[test]
fn damaged_values_are_reported_with_their_row() {
    let pages = |f: &WorldFile| f.pages().unwrap_err().to_string();
    let tasks = |f: &WorldFile| f.tasks().unwrap_err().to_string();
    let tables = |f: &WorldFile| f.tables().unwrap_err().to_string();
    let meta = |f: &WorldFile| f.meta().unwrap_err().to_string();
    check_damage(
        "UPDATE fabula_pages SET kind = 'blog' WHERE id = 2",
        pages,
        "fabula_pages row 2: unknown page kind `blog`",
    );
    check_damage(
        "UPDATE fabula_page_facts SET value_kind = 'colour'",
        pages,
        "unknown value kind `colour`",
    );
    check_damage(
        "UPDATE fabula_tasks SET kind = 'riddle'",
        tasks,
        "fabula_tasks row w3-t01: unknown task kind `riddle`",
    );
    check_damage(
        "UPDATE fabula_columns SET role = 'colour' WHERE column_name = 'population'",
        tables,
        "fabula_columns row population: unknown column role `colour`",
    );
    check_damage(
        "DELETE FROM fabula_meta WHERE key = 'theme'",
        meta,
        "missing meta key `theme`",
    );
}

#[test]
fn a_missing_file_is_an_io_error() {
    let err = WorldFile::open(Path::new("/nonexistent/w.sqlite")).unwrap_err();
    assert!(matches!(err, fabula_file::Error::Io { .. }), "{err}");
}
