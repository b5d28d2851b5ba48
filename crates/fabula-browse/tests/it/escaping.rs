//! Text from a world file never reaches a view as markup: names, page bodies, urls, questions
//! and answers holding HTML are escaped in every view that shows them.

use fabula_file::{
    Column, ColumnRole, Meta, Page, PageFact, PageKind, SqlType, Table, TableRole, Task, TaskKind,
    Value, ValueKind, WorldContents,
};
use serde_json::json;

use crate::{apps, get_ok, page_link};

const HOSTILE: &str = "<script>alert(1)</script> & \"Co\"";

fn column(name: &str, sql_type: SqlType, role: ColumnRole) -> Column {
    Column {
        name: name.into(),
        sql_type,
        role,
        nullable: false,
        references: None,
        derived: None,
        label: format!("{name} <b>label</b>"),
    }
}

/// One world whose only row, page and task carry HTML in every text they have.
fn hostile_dataset() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let table = Table {
        role: TableRole::Region,
        name: "isles".into(),
        singular: "isle <i>".into(),
        plural: "isles <i>".into(),
        columns: vec![
            column("id", SqlType::Integer, ColumnRole::Id),
            column("name", SqlType::Text, ColumnRole::Name),
        ],
    };
    let rows = vec![vec![Value::Int(1), Value::Text(HOSTILE.into())]];
    let url = "https://x.org/wiki/<img src=x onerror=alert(1)>";
    let page = Page {
        url: url.into(),
        title: HOSTILE.into(),
        kind: PageKind::Entity,
        published: None,
        body: format!(
            "# {HOSTILE}\n\n<iframe src=\"javascript:alert(1)\"></iframe> {HOSTILE} is an isle.\n"
        ),
        facts: vec![PageFact {
            table: "isles".into(),
            row_id: 1,
            column: "name".into(),
            shown: HOSTILE.into(),
            value_kind: ValueKind::Name,
        }],
    };
    let task = Task {
        id: "t<1>".into(),
        kind: TaskKind::Lookup,
        question: format!("Which isle is {HOSTILE}?"),
        answer: json!(HOSTILE).to_string(),
        evidence: json!([url]).to_string(),
        hops: 1,
        sql: "SELECT name FROM isles".into(),
        tier: fabula_file::Tier::Easy,
        effort: None,
    };
    let meta = Meta {
        world_id: 0,
        name: HOSTILE.into(),
        theme: "islands".into(),
        theme_label: "island <u>nation</u>".into(),
        master_seed: 0,
        world_seed: 0,
        generator_version: "test".into(),
        format_version: fabula_file::FORMAT_VERSION,
        present_year: 2240,
        earliest_year: 1800,
        limits: None,
    };
    let file = dir.path().join("world-00000.sqlite");
    let tables = [(table, rows)];
    let contents = WorldContents {
        meta: &meta,
        tables: &tables,
        pages: &[page],
        tasks: &[task],
    };
    fabula_file::write_world(&file, &contents).unwrap();
    let sha256 = fabula_file::sha256_file(&file).unwrap();
    let manifest = json!({"format_version": fabula_file::FORMAT_VERSION, "generator_version": "test",
        "master_seed": 0, "count": 1,
        "worlds": [{"id": 0, "file": "world-00000.sqlite", "sha256": sha256, "theme": "islands",
                    "name": HOSTILE, "rows": 1, "tables": 1, "pages": 1, "tasks": 1}]});
    std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).unwrap();
    dir
}

#[tokio::test]
async fn world_text_is_escaped_in_every_view() {
    let dir = hostile_dataset();
    let (agent, admin, _) = apps(dir.path());
    let page = page_link(0, "https://x.org/wiki/<img src=x onerror=alert(1)>");
    let views = [
        (&agent, "/".to_owned()),
        (&agent, "/ui/worlds/0".to_owned()),
        (&agent, page),
        (&agent, "/ui/worlds/0/rows/isles/1".to_owned()),
        (&admin, "/".to_owned()),
        (&admin, "/ui/worlds/0".to_owned()),
        (&admin, "/ui/worlds/0/tasks/t%3C1%3E".to_owned()),
    ];
    for (app, uri) in views {
        let html = get_ok(app, &uri).await;
        for markup in ["<script", "<img", "<iframe", "<b>", "<i>", "<u>"] {
            assert!(
                !html.contains(markup),
                "{uri} lets {markup} through:\n{html}"
            );
        }
        assert!(
            html.contains("&lt;script&gt;"),
            "{uri} shows the name escaped"
        );
    }
    for (name, app, uri) in [
        ("world", &agent, "/ui/worlds/0".to_owned()),
        ("row", &agent, "/ui/worlds/0/rows/isles/1".to_owned()),
        (
            "page",
            &agent,
            page_link(0, "https://x.org/wiki/<img src=x onerror=alert(1)>"),
        ),
        ("task", &admin, "/ui/worlds/0/tasks/t%3C1%3E".to_owned()),
    ] {
        let html = get_ok(app, &uri).await;
        insta::assert_snapshot!(name, main_of(&html));
    }
    let page_view = get_ok(
        &agent,
        &page_link(0, "https://x.org/wiki/<img src=x onerror=alert(1)>"),
    )
    .await;
    assert!(
        page_view.contains("&lt;iframe"),
        "raw HTML in a body shows as text"
    );
    assert!(
        page_view.contains("<mark class=\"fact\">"),
        "the hostile name is still marked"
    );
}

/// The `<main>` element of a view: what it shows, without the shared header and styles.
fn main_of(html: &str) -> &str {
    let start = html.find("<main").expect("a main element");
    let end = html.find("</main>").expect("a closed main element");
    &html[start..end + "</main>".len()]
}
