//! `fabula check` reports each kind of corruption under its own rule.

use std::fs;
use std::path::Path;

use rusqlite::Connection;

use super::{fabula, generate};

/// The SQL name of a table role and a column role in a world file.
fn names(conn: &Connection, role: &str, column_role: &str) -> (String, String) {
    let table: String = conn
        .query_row(
            "SELECT table_name FROM fabula_tables WHERE role = ?1",
            [role],
            |r| r.get(0),
        )
        .unwrap();
    let column: String = conn
        .query_row(
            "SELECT column_name FROM fabula_columns WHERE table_name = ?1 AND role = ?2",
            [&table, column_role],
            |r| r.get(0),
        )
        .unwrap();
    (table, column)
}

fn corrupt(path: &Path, f: impl FnOnce(&Connection)) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    f(&conn);
}

#[test]
fn each_corruption_is_reported_under_its_rule() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    generate(&dir, 10, 3);
    let world = |id: u32| dir.join(format!("world-{id:05}.sqlite"));

    corrupt(&world(0), |c| {
        let (t, col) = names(c, "settlement", "region");
        c.execute(&format!("UPDATE {t} SET {col} = 9999 WHERE id = 1"), [])
            .unwrap();
    });
    corrupt(&world(1), |c| {
        let (people, _) = names(c, "person", "name");
        let (towns, _) = names(c, "settlement", "name");
        c.execute(
            &format!(
                "UPDATE {people} SET name = (SELECT name FROM {towns} WHERE id = 1) WHERE id = 1"
            ),
            [],
        )
        .unwrap();
        c.execute(
            &format!("UPDATE {towns} SET name = 'Oslo' WHERE id = 2"),
            [],
        )
        .unwrap();
    });
    corrupt(&world(2), |c| {
        let (orgs, founded) = names(c, "organisation", "founded");
        let (_, founder) = names(c, "organisation", "founder");
        let (people, birth) = names(c, "person", "birth_year");
        c.execute(&format!("UPDATE {orgs} SET {founded} = (SELECT {birth} + 3 FROM {people} p WHERE p.id = {orgs}.{founder}) WHERE id = 1"), []).unwrap();
    });
    corrupt(&world(3), |c| {
        let (regions, pop) = names(c, "region", "population");
        c.execute(
            &format!("UPDATE {regions} SET {pop} = {pop} + 1 WHERE id = 1"),
            [],
        )
        .unwrap();
        // No page defines the fields its frontier clues stand for any more.
        let gone = c
            .execute(
                "DELETE FROM fabula_pages WHERE title LIKE 'Glossary: %'",
                [],
            )
            .unwrap();
        assert!(gone > 0, "the world has glossary pages");
    });
    corrupt(&world(4), |c| {
        let (t, _) = names(c, "tenure", "seat");
        let cols: Vec<String> = c
            .prepare(&format!(
                "SELECT name FROM pragma_table_info('{t}') WHERE name != 'id' ORDER BY cid"
            ))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let list = cols.join(", ");
        c.execute(
            &format!("INSERT INTO {t} (id, {list}) SELECT 100001, {list} FROM {t} WHERE id = 1"),
            [],
        )
        .unwrap();
    });
    corrupt(&world(5), |c| {
        c.execute("DELETE FROM fabula_meta WHERE key = 'world_seed'", [])
            .unwrap();
        let (people, birth) = names(c, "person", "birth_year");
        c.execute(
            &format!("UPDATE {people} SET {birth} = 99999 WHERE id = 2"),
            [],
        )
        .unwrap();
    });
    corrupt(&world(6), |c| {
        let (orgs, category) = names(c, "organisation", "category");
        c.execute("DELETE FROM fabula_page_facts WHERE table_name = ?1 AND column_name = ?2 AND row_id = 1", [&orgs, &category]).unwrap();
        c.execute(
            "UPDATE fabula_page_facts SET shown = '987,654' WHERE rowid = (SELECT min(rowid) FROM fabula_page_facts WHERE value_kind = 'number')",
            [],
        )
        .unwrap();
    });
    corrupt(&world(7), |c| {
        for i in 0..5 {
            c.execute_batch(&format!("CREATE TABLE junk_{i} (id INTEGER PRIMARY KEY)"))
                .unwrap();
        }
    });
    fs::remove_file(world(8)).unwrap();

    let out = fabula(&["check", dir.to_str().unwrap(), "--max-listed", "0"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "corrupt worlds passed:\n{stdout}");
    let expect = [
        ("world-00000.sqlite", "foreign_key"),
        ("world-00001.sqlite", "name.unique"),
        ("world-00001.sqlite", "name.blocklist"),
        ("world-00002.sqlite", "time.founder"),
        ("world-00003.sqlite", "derived"),
        ("world-00003.sqlite", "tasks.fields"),
        ("world-00004.sqlite", "time.overlap"),
        ("world-00005.sqlite", "meta"),
        ("world-00005.sqlite", "time.future"),
        ("world-00006.sqlite", "pages.coverage"),
        ("world-00006.sqlite", "pages.provenance"),
        ("world-00007.sqlite", "bounds.tables"),
        ("world-00007.sqlite", "strict"),
        ("world-00008.sqlite", "manifest.missing"),
        ("world-00000.sqlite", "manifest.hash"),
    ];
    for (world, rule) in expect {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(world) && l.contains(&format!("[{rule}]"))),
            "no [{rule}] violation for {world}:\n{stdout}"
        );
    }
    // The untouched world stays clean.
    assert!(
        !stdout.lines().any(|l| l.starts_with("world-00009.sqlite")),
        "{stdout}"
    );
}
