//! Tests of the check rules: each case writes a clean world file, damages it with SQL, and lists
//! the rules `check_world` reports.

use std::collections::BTreeMap;

use rusqlite::Connection;

use fabula_file::{Page, PageFact, PageKind, Value, ValueKind};
use fabula_world::schema::{self, Layout};
use fabula_world::{World, generate_world, theme, write_world};

use super::*;

/// Which optional tables the damaged world has.
#[derive(Debug, Clone, Copy)]
enum Fixture {
    /// Works, no events, no alliances.
    Works,
    /// Events and alliances, no works.
    EventsAndAlliances,
}

/// The first world of seed 1 with the fixture's tables.
fn fixture_world(fixture: Fixture) -> World {
    let themes = theme::all().unwrap();
    (0..)
        .map(|id| generate_world(1, id, &themes))
        .find(|w| match fixture {
            Fixture::Works => w.groups.works && !w.groups.events && !w.groups.alliances,
            Fixture::EventsAndAlliances => !w.groups.works && w.groups.events && w.groups.alliances,
        })
        .unwrap()
}

/// One page per domain row that states each of its cells, as a renderer would.
fn pages_of(world: &World, layout: &Layout) -> Vec<Page> {
    let mut names: BTreeMap<(&str, i64), String> = BTreeMap::new();
    let rows: Vec<Vec<Vec<Value>>> = layout
        .tables
        .iter()
        .map(|t| schema::table_rows(world, t.role))
        .collect();
    for (table, rows) in layout.tables.iter().zip(&rows) {
        let Some(at) = table
            .columns
            .iter()
            .position(|c| c.role == ColumnRole::Name)
        else {
            continue;
        };
        for row in rows {
            if let (Value::Int(id), Value::Text(name)) = (&row[0], &row[at]) {
                names.insert((table.name.as_str(), *id), name.clone());
            }
        }
    }
    let mut pages = Vec::new();
    for (table, rows) in layout.tables.iter().zip(&rows) {
        for row in rows {
            let Value::Int(id) = row[0] else {
                panic!("ids are integers")
            };
            let facts: Vec<PageFact> = table
                .columns
                .iter()
                .zip(row)
                .filter(|(c, _)| c.role != ColumnRole::Id)
                .filter_map(|(c, value)| {
                    let (shown, value_kind) = match (value, &c.references) {
                        (Value::Int(n), Some(parent)) => {
                            (names[&(parent.as_str(), *n)].clone(), ValueKind::Entity)
                        }
                        (Value::Int(n), None) => (n.to_string(), ValueKind::Number),
                        (Value::Text(s), _) => (s.clone(), ValueKind::Text),
                        (Value::Null, _) => return None,
                    };
                    Some(PageFact {
                        table: table.name.clone(),
                        row_id: id,
                        column: c.name.clone(),
                        shown,
                        value_kind,
                    })
                })
                .collect();
            let body: Vec<&str> = facts.iter().map(|f| f.shown.as_str()).collect();
            pages.push(Page {
                url: format!("/{}/{id}", table.name),
                title: format!("{} {id}", table.singular),
                kind: PageKind::Entity,
                published: None,
                body: body.join("\n"),
                facts,
            });
        }
    }
    pages
}

/// Replaces `{role}` with the table of a role, `{role.column_role}` with the column of a role in
/// it, and `{role.ratio}` with its first column drawn in a ratio to another.
fn resolve(template: &str, layout: &Layout) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let end = start + rest[start..].find('}').unwrap();
        out.push_str(&rest[..start]);
        let name = &rest[start + 1..end];
        let (role, column) = match name.split_once('.') {
            Some((role, column)) => (role, Some(column)),
            None => (name, None),
        };
        let role = TableRole::parse(role).unwrap_or_else(|| panic!("no role {role}"));
        let table = layout.table(role);
        out.push_str(match column {
            Some("ratio") => {
                let ratio = table.columns.iter().find(|c| {
                    c.derived
                        .as_deref()
                        .is_some_and(|rule| rule.starts_with("ratio:"))
                });
                &ratio
                    .unwrap_or_else(|| panic!("{} has no ratio", table.name))
                    .name
            }
            Some(column) => {
                let role =
                    ColumnRole::parse(column).unwrap_or_else(|| panic!("no column role {column}"));
                &table.column(role).name
            }
            None => &table.name,
        });
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Writes the fixture's world, runs `damage` on it (SQL with `{role}` and `{role.column}`
/// names), and compares the rules `check_world` reports, sorted and space-separated.
fn check(fixture: Fixture, damage: &str, expect: &str) {
    let world = fixture_world(fixture);
    let layout = schema::layout(&world);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("world-00000.sqlite");
    write_world(&path, &world, &pages_of(&world, &layout), &[]).unwrap();
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    conn.execute_batch(&resolve(damage, &layout)).unwrap();
    drop(conn);

    let mut out = Vec::new();
    check_world(&WorldFile::open(&path).unwrap(), &mut out);
    let rules: BTreeSet<&str> = out.iter().map(|v| v.rule.as_str()).collect();
    let rules: Vec<&str> = rules.into_iter().collect();
    let listed: Vec<String> = out.iter().take(20).map(ToString::to_string).collect();
    assert_eq!(rules.join(" "), expect, "{damage}\n{}", listed.join("\n"));
}

#[test]
fn a_clean_world_passes() {
    check(Fixture::Works, "", "");
    check(Fixture::EventsAndAlliances, "", "");
}

#[test]
fn metadata_and_integrity() {
    check(
        Fixture::Works,
        "DELETE FROM fabula_meta WHERE key = 'world_seed'",
        "meta",
    );
    check(
        Fixture::Works,
        "UPDATE fabula_meta SET value = '' WHERE key = 'theme'",
        "meta",
    );
    check(
        Fixture::Works,
        "UPDATE {settlement} SET {settlement.region} = 9999 WHERE id = 1",
        "derived foreign_key pages.provenance",
    );
}

#[test]
fn bounds_strictness_and_shape() {
    check(
        Fixture::Works,
        "CREATE TABLE junk (id INTEGER PRIMARY KEY)",
        "strict",
    );
    check(
        Fixture::Works,
        "CREATE TABLE junk (id INTEGER PRIMARY KEY) STRICT;
         INSERT INTO junk WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600)
         SELECT i FROM n",
        "bounds.rows",
    );
    check(
        Fixture::Works,
        "CREATE TABLE junk_0 (id INTEGER PRIMARY KEY) STRICT;
         CREATE TABLE junk_1 (id INTEGER PRIMARY KEY) STRICT;
         CREATE TABLE junk_2 (id INTEGER PRIMARY KEY) STRICT;
         CREATE TABLE junk_3 (id INTEGER PRIMARY KEY) STRICT;
         CREATE TABLE junk_4 (id INTEGER PRIMARY KEY) STRICT;
         CREATE TABLE junk_5 (id INTEGER PRIMARY KEY) STRICT",
        "bounds.tables",
    );
}

#[test]
fn names() {
    check(
        Fixture::Works,
        "UPDATE {person} SET name = (SELECT name FROM {settlement} WHERE id = 1) WHERE id = 1",
        "name.unique pages.provenance",
    );
    check(
        Fixture::Works,
        "UPDATE {settlement} SET name = 'Oslo' WHERE id = 2",
        "name.blocklist pages.provenance",
    );
}

#[test]
fn ranges_and_derived_values() {
    check(
        Fixture::Works,
        // A person who founded an organisation, held an office, belonged to one and died.
        "UPDATE {person} SET {person.birth_year} = 99999 WHERE id = (SELECT p.id FROM {person} p \
         JOIN {organisation} o ON o.{organisation.founder} = p.id \
         JOIN {tenure} t ON t.{tenure.person} = p.id \
         JOIN {membership} m ON m.{membership.person} = p.id \
         WHERE p.{person.death_year} IS NOT NULL ORDER BY p.id LIMIT 1)",
        "age.founder age.member age.office pages.provenance time.founder time.future \
         time.membership time.order time.tenure",
    );
    check(
        Fixture::Works,
        "UPDATE {settlement} SET {settlement.founded} = -5000 WHERE id = 3",
        "pages.provenance range.year",
    );
    check(
        Fixture::Works,
        "UPDATE {region} SET {region.population} = {region.population} + 1 WHERE id = 1",
        "derived pages.provenance",
    );
    check(
        Fixture::Works,
        "UPDATE {organisation} SET {organisation.member_count} = 0 WHERE id = 1",
        "derived pages.provenance",
    );
    check(
        Fixture::EventsAndAlliances,
        "UPDATE {participation} SET {participation.result} = 0 WHERE id = 1",
        "pages.provenance range.result",
    );
}

#[test]
fn time_order() {
    check(
        Fixture::Works,
        "UPDATE {organisation} SET {organisation.founded} =
           (SELECT p.{person.birth_year} + 3 FROM {person} p
            WHERE p.id = {organisation}.{organisation.founder}) WHERE id = 1",
        "age.founder pages.provenance time.founder",
    );
    check(
        Fixture::Works,
        "UPDATE {work} SET {work.year} = {work.year} - 1000 WHERE id = 1",
        "pages.provenance time.work",
    );
    check(
        Fixture::Works,
        "UPDATE {tenure} SET {tenure.end_year} = {tenure.start_year} - 1 WHERE id = 1",
        "pages.provenance time.order",
    );
    check(
        Fixture::Works,
        "UPDATE {membership} SET {membership.joined} = 0 WHERE id = 1",
        "age.member pages.provenance time.membership",
    );
    check(
        Fixture::EventsAndAlliances,
        "UPDATE {event} SET {event.year} = {event.year} - 1000 WHERE id = 1",
        "pages.provenance time.event time.participation",
    );
    check(
        Fixture::Works,
        "UPDATE {census} SET {census.year} = {census.year} - 1000 WHERE id = 1",
        "pages.provenance time.census",
    );
    check(
        Fixture::Works,
        "UPDATE {census} SET {census.population} = 0 WHERE id = 1",
        "pages.provenance range.population time.census_empty",
    );
    check(
        Fixture::Works,
        "UPDATE {census} SET {census.year} = (SELECT {census.year} FROM {census} WHERE id = 1)
         WHERE id = (SELECT min(id) FROM {census} WHERE {census.year} <> (SELECT {census.year} FROM {census} WHERE id = 1)
                     AND {census.settlement} = (SELECT {census.settlement} FROM {census} WHERE id = 1))",
        "pages.provenance time.census_twice",
    );
    check(
        Fixture::EventsAndAlliances,
        "UPDATE {alliance_membership} SET {alliance_membership.end_year} =
           {alliance_membership.start_year} - 1
         WHERE id = (SELECT min(id) FROM {alliance_membership}
                     WHERE {alliance_membership.end_year} IS NOT NULL)",
        "pages.provenance time.alliance_membership",
    );
}

#[test]
fn overlapping_terms() {
    check(
        Fixture::Works,
        "INSERT INTO {tenure} SELECT 100001, {tenure.organisation}, {tenure.person}, {tenure.seat},
           {tenure.start_year}, {tenure.end_year} FROM {tenure} WHERE id = 1",
        "offices.at_once offices.same_title pages.coverage time.overlap",
    );
}

/// Inserts person 100001, aged `age` in the year `event_year` (a column of the row `row`) and
/// dead that year or in `died`, born in the oldest settlement: a made-up actor for one rule.
fn elder(row: &str, event_year: &str, age: i64, died: &str) -> String {
    format!(
        "INSERT INTO {{person}} (id, name, {{person.birth_year}}, {{person.death_year}},
           {{person.birthplace}}, {{person.occupation}})
         SELECT 100001, 'Quorvath Ulmes', {event_year} - {age}, {died},
           (SELECT id FROM {{settlement}} ORDER BY {{settlement.founded}}, id LIMIT 1), 'x'
         FROM {row};"
    )
}

#[test]
fn ages_at_founding_joining_and_taking_office() {
    // The latest founding, joining and short term: a 100-year-old founder, a 90-year-old new
    // member and office holder, each dying that year (or when the term ends).
    let org = "(SELECT * FROM {organisation} ORDER BY {organisation.founded} DESC, id LIMIT 1) o";
    let founder = elder(org, "o.{organisation.founded}", 100, "o.{organisation.founded}")
        + "UPDATE {organisation} SET {organisation.founder} = 100001
           WHERE id = (SELECT id FROM {organisation} ORDER BY {organisation.founded} DESC, id LIMIT 1)";
    check(
        Fixture::Works,
        &founder,
        "age.founder pages.coverage pages.provenance",
    );
    let member = "(SELECT * FROM {membership} ORDER BY {membership.joined} DESC, id LIMIT 1) m";
    let member = elder(member, "m.{membership.joined}", 90, "m.{membership.joined}")
        + "UPDATE {membership} SET {membership.person} = 100001
           WHERE id = (SELECT id FROM {membership} ORDER BY {membership.joined} DESC, id LIMIT 1)";
    check(
        Fixture::Works,
        &member,
        "age.member pages.coverage pages.provenance",
    );
    let short = "SELECT id FROM {tenure} WHERE {tenure.end_year} - {tenure.start_year} <= 20
                 ORDER BY {tenure.start_year} DESC, id LIMIT 1";
    let holder =
        elder(
            &format!("{{tenure}} t WHERE t.id = ({short})"),
            "t.{tenure.start_year}",
            90,
            "t.{tenure.end_year}",
        ) + &format!("UPDATE {{tenure}} SET {{tenure.person}} = 100001 WHERE id = ({short})");
    check(
        Fixture::EventsAndAlliances,
        &holder,
        "age.office pages.coverage pages.provenance",
    );
    // A seat the limits do not name has no plausible holder.
    check(
        Fixture::Works,
        "UPDATE {tenure} SET {tenure.seat} = 'Stoker' WHERE id = 1",
        "age.office pages.provenance",
    );
}

/// Copies the term of a person who holds one into another organisation that has no term of
/// `seat` (an SQL expression over the copied term `t` and the seat titles `a.seat`), where the
/// holder's age fits the seat's range.
fn second_office(seat: &str) -> String {
    format!(
        "WITH ages(seat, lo, hi) AS (
           SELECT substr(key, 18), CAST(substr(value, 1, instr(value, '..') - 1) AS INTEGER),
             CAST(substr(value, instr(value, '..') + 2) AS INTEGER)
           FROM fabula_meta WHERE key LIKE 'limit.office_age.%')
         INSERT INTO {{tenure}} (id, {{tenure.organisation}}, {{tenure.person}}, {{tenure.seat}},
           {{tenure.start_year}}, {{tenure.end_year}})
         SELECT 100001, o.id, t.{{tenure.person}}, a.seat, t.{{tenure.start_year}}, t.{{tenure.end_year}}
         FROM {{tenure}} t JOIN {{person}} p ON p.id = t.{{tenure.person}}
         JOIN ages a ON a.seat = {seat}
           AND t.{{tenure.start_year}} - p.{{person.birth_year}} BETWEEN a.lo AND a.hi
         JOIN {{organisation}} o ON o.{{organisation.founded}} <= t.{{tenure.start_year}}
           AND NOT EXISTS (SELECT 1 FROM {{tenure}} u
                           WHERE u.{{tenure.organisation}} = o.id AND u.{{tenure.seat}} = a.seat)
         WHERE t.{{tenure.person}} IN
           (SELECT {{tenure.person}} FROM {{tenure}} GROUP BY 1 HAVING count(*) = 1)
         ORDER BY t.id, o.id LIMIT 1"
    )
}

#[test]
fn offices_held_at_once() {
    // The fixture's theme allows one office at a time: a second one of another title breaks
    // that limit, a second one of the same title the title rule as well.
    check(
        Fixture::Works,
        &second_office("a.seat AND a.seat != t.{tenure.seat}"),
        "offices.at_once pages.coverage",
    );
    check(
        Fixture::Works,
        &second_office("t.{tenure.seat}"),
        "offices.at_once offices.same_title pages.coverage",
    );
    // With two offices allowed at once, only the title rule is left.
    check(
        Fixture::Works,
        &(second_office("t.{tenure.seat}")
            + ";\nUPDATE fabula_meta SET value = '2' WHERE key = 'limit.offices_at_once'"),
        "offices.same_title pages.coverage",
    );
}

#[test]
fn ratios_of_related_columns() {
    // Outside the column's range.
    check(
        Fixture::Works,
        "UPDATE {work} SET {work.ratio} = 100000 WHERE id = 1",
        "pages.provenance ratio",
    );
    // In range, but far above its ratio to the smallest source, which holds it at its minimum.
    check(
        Fixture::Works,
        "UPDATE {settlement} SET {settlement.ratio} = {settlement.ratio} + 1
         WHERE id = (SELECT id FROM {settlement} ORDER BY {settlement.population}, id LIMIT 1)",
        "pages.provenance ratio",
    );
    check(
        Fixture::Works,
        "UPDATE fabula_columns SET derived_from = 'ratio:nowhere:1..2:0..5'
         WHERE derived_from LIKE 'ratio:%'",
        "ratio",
    );
}

#[test]
fn limits_come_from_the_file() {
    check(
        Fixture::Works,
        "UPDATE fabula_meta SET value = 'young' WHERE key = 'limit.founder_age'",
        "meta",
    );
    // A file written before limits were recorded is held to the title rule and ratios only.
    check(
        Fixture::Works,
        "DELETE FROM fabula_meta WHERE key LIKE 'limit.%';
         UPDATE {tenure} SET {tenure.seat} = 'Stoker' WHERE id = 1",
        "pages.provenance",
    );
}

#[test]
fn pages() {
    check(
        Fixture::Works,
        "UPDATE fabula_pages SET kind = 'blog' WHERE id = 1",
        "pages.kind",
    );
    check(
        Fixture::Works,
        "UPDATE fabula_pages SET published = '9999-01-01' WHERE id = 1;
         UPDATE fabula_pages SET published = '1 May' WHERE id = 2",
        "pages.date",
    );
    check(
        Fixture::Works,
        "DELETE FROM fabula_page_facts WHERE page_id = 1",
        "pages.coverage",
    );
    check(
        Fixture::Works,
        "UPDATE fabula_page_facts SET shown = '987,654' WHERE rowid = 1",
        "pages.provenance",
    );
    check(
        Fixture::Works,
        "UPDATE fabula_pages SET body = '' WHERE id = 1",
        "pages.provenance",
    );
    check(
        Fixture::Works,
        "DELETE FROM fabula_page_facts WHERE page_id > 200; DELETE FROM fabula_pages WHERE id > 200",
        "pages.count pages.coverage",
    );
}

#[test]
fn dated_pages_report_nothing_later_than_their_date() {
    // The page of organisation 1 states its founding year: dated that year it is true, dated the
    // year before it reports the future.
    let date_org_page = |year: &str| {
        format!(
            "UPDATE fabula_pages SET kind = 'news', published = (SELECT printf('%04d-06-01', {year})
               FROM {{organisation}} WHERE id = 1) WHERE url = '/{{organisation}}/1'"
        )
    };
    check(Fixture::Works, &date_org_page("{organisation.founded}"), "");
    check(
        Fixture::Works,
        &date_org_page("{organisation.founded} - 1"),
        "pages.date_order",
    );
    // A membership that began in its organisation's founding year, on a page dated that year:
    // before the page that reports the founding it mentions an organisation not yet founded.
    let date_membership_page = |month: &str| {
        format!(
            "CREATE TEMP TABLE pick AS
               SELECT m.id AS membership, o.id AS organisation, o.{{organisation.founded}} AS year
               FROM {{membership}} m JOIN {{organisation}} o ON o.id = m.{{membership.organisation}}
               WHERE m.{{membership.joined}} = o.{{organisation.founded}} ORDER BY m.id LIMIT 1;
             UPDATE fabula_pages SET kind = 'news',
               published = (SELECT printf('%04d-06-01', year) FROM pick)
               WHERE url = (SELECT '/{{organisation}}/' || organisation FROM pick);
             UPDATE fabula_pages SET kind = 'news',
               published = (SELECT printf('%04d-{month}-01', year) FROM pick)
               WHERE url = (SELECT '/{{membership}}/' || membership FROM pick)"
        )
    };
    check(Fixture::Works, &date_membership_page("09"), "");
    check(
        Fixture::Works,
        &date_membership_page("03"),
        "pages.founding_order",
    );
}

#[test]
fn an_unreadable_file_is_a_format_violation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("world-00000.sqlite");
    std::fs::write(&path, b"not a database").unwrap();
    let mut out = Vec::new();
    assert_eq!(check_world(&WorldFile::open(&path).unwrap(), &mut out), 0);
    let rules: Vec<&str> = out.iter().map(|v| v.rule.as_str()).collect();
    assert_eq!(rules, ["format"], "{out:?}");
}

#[test]
fn parallel_map_keeps_the_input_order() {
    let items: Vec<u32> = (0..100).collect();
    for jobs in [0, 1, 3] {
        let doubled = parallel_map(&items, jobs, |&i| i * 2).unwrap();
        assert_eq!(doubled, (0..100).map(|i| i * 2).collect::<Vec<_>>());
    }
}

#[test]
fn a_directory_is_checked_against_its_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = fabula_dataset::GenerateConfig {
        count: 3,
        master_seed: 2,
        out: dir.path().to_path_buf(),
        jobs: 2,
        shard: None,
        force: false,
        themes: Vec::new(),
        write_indexes: false,
    };
    fabula_dataset::generate_dataset(&cfg, &fabula_dataset::NoPages, &|| {}).unwrap();
    std::fs::remove_file(dir.path().join("world-00001.sqlite")).unwrap();
    let conn = Connection::open(dir.path().join("world-00002.sqlite")).unwrap();
    conn.execute_batch("UPDATE fabula_meta SET value = 'x' WHERE key = 'name'")
        .unwrap();
    drop(conn);
    let report = check_dir(dir.path(), 2).unwrap();
    assert_eq!(report.worlds, 3);
    let rules: Vec<String> = report.by_rule().into_keys().collect();
    // Bare worlds have no pages and no tasks, so those rules fire for every world still there.
    assert_eq!(
        rules.join(" "),
        "manifest.hash manifest.missing pages.count pages.coverage tasks.count"
    );
    let missing: Vec<&str> = report
        .violations
        .iter()
        .filter(|v| v.rule.starts_with("manifest."))
        .map(|v| v.world.as_str())
        .collect();
    assert_eq!(missing, ["world-00001.sqlite", "world-00002.sqlite"]);
}

/// Writes the works fixture's world with one task whose query is `sql` (with `{role}` and
/// `{role.column}` names, `{held}` for the birth year of person 1 and `{free}` for a year no
/// person was born in) and compares the number of `tasks.threshold` violations.
fn check_threshold(sql: &str, expect: usize) {
    let world = fixture_world(Fixture::Works);
    let layout = schema::layout(&world);
    let table = layout.table(TableRole::Person);
    let at = table
        .columns
        .iter()
        .position(|c| c.role == ColumnRole::BirthYear)
        .unwrap();
    let born: BTreeSet<i64> = schema::table_rows(&world, TableRole::Person)
        .iter()
        .filter_map(|row| match row[at] {
            Value::Int(year) => Some(year),
            _ => None,
        })
        .collect();
    let held = match schema::table_rows(&world, TableRole::Person)[0][at] {
        Value::Int(year) => year,
        _ => panic!("person 1 has a birth year"),
    };
    let free = (held..).find(|y| !born.contains(y)).unwrap();
    let sql = resolve(sql, &layout)
        .replace("[held]", &held.to_string())
        .replace("[free]", &free.to_string());
    let found = task_violations(&world, "How many?", &sql, "tasks.threshold");
    assert_eq!(found.len(), expect, "{sql}\n{found:?}");
}

/// Writes `world` with one task of `question` and `sql` and lists the task rules' violations
/// of `rule`.
fn task_violations(world: &World, question: &str, sql: &str, rule: &str) -> Vec<Violation> {
    let layout = schema::layout(world);
    let task = fabula_file::Task {
        id: "w00000-t000".into(),
        kind: fabula_file::TaskKind::Identify,
        question: question.into(),
        answer: "\"1\"".into(),
        evidence: "[]".into(),
        hops: 1,
        sql: sql.into(),
        tier: fabula_file::Tier::Easy,
        effort: None,
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("world-00000.sqlite");
    write_world(&path, world, &pages_of(world, &layout), &[task]).unwrap();
    let mut out = Vec::new();
    tasks::check_tasks(&WorldFile::open(&path).unwrap(), "w", &mut out);
    out.retain(|v| v.rule == rule);
    out
}

#[test]
fn thresholds_lie_on_no_value_of_their_column() {
    let qualified = "SELECT p.{person.name} FROM {person} p WHERE p.{person.birth_year} < ";
    check_threshold(&format!("{qualified}[held]"), 1);
    check_threshold(&format!("{qualified}[free]"), 0);
    let bare = "SELECT COUNT(*) FROM {person} WHERE {person.birth_year} > ";
    check_threshold(&format!("{bare}[held]"), 1);
    check_threshold(&format!("{bare}[free]"), 0);
    // An equality asks for the value itself, and a number in a string is no threshold.
    check_threshold(
        "SELECT p.{person.name} FROM {person} p WHERE p.{person.birth_year} = [held] \
         AND p.{person.name} <> 'born < [held]'",
        0,
    );
}

/// Writes the works fixture's world with one frontier question whose query is `sql` (with
/// `{role}` and `{role.column}` names) and compares the number of `tasks.frontier` violations.
fn check_frontier(sql: &str, expect: usize) {
    let world = fixture_world(Fixture::Works);
    let sql = resolve(sql, &schema::layout(&world));
    let question =
        "Track down the colonist who was born in the 2140s; and held an office in a guild.";
    let found = task_violations(&world, question, &sql, "tasks.frontier");
    assert_eq!(found.len(), expect, "{sql}\n{found:?}");
}

#[test]
fn frontier_questions_keep_their_search_space() {
    let base = "SELECT p.{person.name} FROM {person} p WHERE ";
    // 21 and at least 20 people hold the clues, one holds both, everyone else fails one.
    check_frontier(&format!("{base}(p.id <= 21) AND (p.id >= 21)"), 0);
    // Two people fit every clue.
    check_frontier(&format!("{base}(p.id <= 22) AND (p.id >= 21)"), 1);
    // A clue that holds for one person alone names the answer.
    check_frontier(&format!("{base}(p.id = 21) AND (p.id >= 1)"), 1);
    // A query that is not one condition per clue.
    check_frontier(&format!("{base}p.id = 21"), 1);
}
