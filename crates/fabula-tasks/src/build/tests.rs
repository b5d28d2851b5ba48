//! Tests of the task builder: for every family, the tasks it builds in a few generated worlds
//! agree with their world. Each task's query, run against the world's tables in SQLite, gives
//! its gold answer; its evidence pages exist and state every cell the answer rests on; its
//! question maps back to its phrasing and slots and does not give the answer away.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::Value;

use fabula_file::{ColumnRole, Page, TableRole, Task, TaskKind};
use fabula_world::schema;
use fabula_world::{World, generate_world, theme};

use super::db::Cell;
use super::family::{FAMILIES, Family, Order, Rows, Shape, Tally};
use super::{Builder, build_tasks};
use crate::clues::{self, Said};
use crate::phrasings;

/// The worlds every family is built in: (master seed, world id).
const WORLDS: &[(u64, u32)] = &[(123, 0), (123, 1), (123, 2), (7, 3), (7, 5)];

/// How many candidates of each family are tried per world.
const CANDIDATES: usize = 12;

/// A generated world, its rendered pages and the tasks `build_tasks` makes of them.
struct Fixture {
    world: World,
    pages: Vec<Page>,
    tasks: Vec<Task>,
}

fn fixtures() -> &'static [Fixture] {
    static FIXTURES: OnceLock<Vec<Fixture>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let themes = theme::all().unwrap();
        WORLDS
            .iter()
            .map(|&(seed, id)| {
                let world = generate_world(seed, id, &themes);
                let pages = fabula_pages::render_pages(&world);
                let tasks = build_tasks(&world, &pages);
                Fixture {
                    world,
                    pages,
                    tasks,
                }
            })
            .collect()
    })
}

/// The world's domain tables in an in-memory SQLite database, as the world file holds them.
fn database(world: &World) -> Connection {
    let conn = Connection::open_in_memory().unwrap();
    for table in &schema::layout(world).tables {
        conn.execute_batch(&table.create_sql()).unwrap();
        let marks = vec!["?"; table.columns.len()].join(", ");
        let insert = format!("INSERT INTO {} VALUES ({marks})", table.name);
        let mut stmt = conn.prepare(&insert).unwrap();
        for row in schema::table_rows(world, table.role) {
            let values = row.iter().map(|v| match v {
                fabula_file::Value::Int(i) => rusqlite::types::Value::Integer(*i),
                fabula_file::Value::Text(t) => rusqlite::types::Value::Text(t.clone()),
                fabula_file::Value::Null => rusqlite::types::Value::Null,
            });
            stmt.execute(rusqlite::params_from_iter(values)).unwrap();
        }
    }
    conn
}

/// Runs a read-only query; cells read as text (NULL as the empty string).
fn run(conn: &Connection, sql: &str) -> Result<Vec<Vec<String>>, String> {
    let mut stmt = conn.prepare(sql).map_err(|e| e.to_string())?;
    if !stmt.readonly() {
        return Err("not read-only".into());
    }
    let n = stmt.column_count();
    let rows = stmt
        .query_map([], |r| {
            (0..n)
                .map(|i| {
                    r.get_ref(i).map(|v| match v {
                        ValueRef::Integer(i) => i.to_string(),
                        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                        _ => String::new(),
                    })
                })
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(|e| e.to_string())?;
    rows.collect::<rusqlite::Result<_>>()
        .map_err(|e| e.to_string())
}

/// What a task rests on besides its record: the cells its answer needs and its slot values.
struct Support<'a> {
    cells: &'a [Cell],
    slots: &'a [(&'static str, String)],
}

/// Everything wrong with one task of `family` built in `fixture`.
fn problems(
    fixture: &Fixture,
    conn: &Connection,
    family: &Family,
    task: &Task,
    support: &Support<'_>,
) -> Vec<String> {
    let mut out = Vec::new();
    let template = phrasings::template(family.kind.as_str(), family.name);
    if task.kind != family.kind || task.hops != template.hops {
        out.push(format!("kind {} hops {}", task.kind.as_str(), task.hops));
    }
    if !task.id.starts_with(&format!("w{:05}-t", fixture.world.id)) {
        out.push(format!("id {}", task.id));
    }
    let gold: Value = serde_json::from_str(&task.answer).unwrap();
    let rows = run(conn, &task.sql).unwrap_or_else(|e| {
        out.push(format!("query fails: {e}"));
        Vec::new()
    });
    out.extend(evidence_problems(
        fixture,
        family,
        task,
        support.cells,
        &rows,
    ));
    out.extend(answer_problems(family, &gold, rows));
    out.extend(question_problems(family, task, &gold, support.slots));
    out.extend(threshold_problems(fixture, conn, family, task));
    out
}

/// The columns a family's threshold is compared with: a year before or after which rows
/// count, the years a term starts and ends, or the birth years of identify clues.
fn compared_columns(family: &Family) -> Vec<(TableRole, ColumnRole)> {
    match family.shape {
        Shape::Count(f) => f.before.map(|c| (f.role, c)).into_iter().collect(),
        Shape::CountBefore(f) => vec![(f.hops.last().map_or(f.role, |h| h.target), f.column)],
        Shape::SumBefore(f) => vec![(f.role, f.year)],
        Shape::Table(f) => match f.rows {
            Rows::Before(c) | Rows::After(c) => vec![(f.role, c)],
            Rows::Group(_) => Vec::new(),
        },
        Shape::Term(f) => vec![
            (f.link, ColumnRole::StartYear),
            (f.link, ColumnRole::EndYear),
        ],
        Shape::Identify => vec![(TableRole::Person, ColumnRole::BirthYear)],
        _ => Vec::new(),
    }
}

/// Each year the question states as a threshold that a row of the compared column holds.
fn threshold_problems(
    fixture: &Fixture,
    conn: &Connection,
    family: &Family,
    task: &Task,
) -> Vec<String> {
    let columns = compared_columns(family);
    let Some(m) = phrasings::match_question(&task.question).filter(|_| !columns.is_empty()) else {
        return Vec::new();
    };
    let years: Vec<i64> = match family.shape {
        Shape::Identify => {
            let said = m.slot("clues").and_then(clues::parse).unwrap_or_default();
            said.iter()
                .filter_map(|c| match c {
                    Said::BornBefore(y) | Said::BornAfter(y) => Some(*y),
                    _ => None,
                })
                .collect()
        }
        _ => match m.slot("year").and_then(|y| y.parse().ok()) {
            Some(year) => vec![year],
            None => return vec!["no year in the question".into()],
        },
    };
    let layout = schema::layout(&fixture.world);
    let mut out = Vec::new();
    for (role, column) in columns {
        let (table, column) = (layout.table(role), &layout.table(role).column(column).name);
        for &year in &years {
            let sql = format!("SELECT 1 FROM {} WHERE {column} = {year}", table.name);
            if !run(conn, &sql).unwrap().is_empty() {
                out.push(format!(
                    "threshold {year} is a value of {}.{column}",
                    table.name
                ));
            }
        }
    }
    out
}

/// Whether the query's rows give the gold answer, uniquely.
fn answer_problems(family: &Family, gold: &Value, mut rows: Vec<Vec<String>>) -> Vec<String> {
    if let Value::String(answer) = gold {
        if rows.is_empty() || rows.iter().any(|r| &r[0] != answer) {
            return vec![format!("query gives {rows:?}, gold {answer}")];
        }
        // A comparison or an extreme has exactly one row with the best value.
        let order = match family.shape {
            Shape::Compare(f) => f.order,
            Shape::Extreme(f) => f.order,
            _ => return Vec::new(),
        };
        let values: Vec<i64> = rows.iter().map(|r| r[2].parse().unwrap()).collect();
        let best = match order {
            Order::Smallest => values.iter().min(),
            Order::Largest => values.iter().max(),
        };
        let n_best = values.iter().filter(|v| Some(*v) == best).count();
        return if n_best == 1 {
            Vec::new()
        } else {
            vec![format!("{n_best} rows tie: {rows:?}")]
        };
    }
    if let Value::Array(items) = gold {
        // A set answer: the query lists each item once, and there are enough to count.
        let mut got: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
        got.sort_unstable();
        let want: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
        let mut out = Vec::new();
        if got != want {
            out.push(format!("query gives {got:?}, gold {want:?}"));
        }
        // A name-all frontier question names two to four people, each hard to find; other
        // sets are counted over many and hold at least 5.
        let least = if family.is_frontier() { 2 } else { 5 };
        if want.len() < least || want.windows(2).any(|w| w[0] >= w[1]) {
            out.push(format!(
                "{want:?} is not a sorted set of at least {least} names"
            ));
        }
        return out;
    }
    let mut want: Vec<Vec<String>> = serde_json::from_value(gold["rows"].clone()).unwrap();
    let columns = gold["columns"].as_array().map_or(0, Vec::len);
    want.sort();
    rows.sort();
    let mut out = Vec::new();
    if want != rows {
        out.push(format!("query gives {rows:?}, gold {want:?}"));
    }
    let (lo, hi) = match family.shape {
        Shape::Table(t) => t.size,
        Shape::FrontierTable => (
            *super::frontier::FRONTIER_TABLE_SIZE.start(),
            *super::frontier::FRONTIER_TABLE_SIZE.end(),
        ),
        _ => (0, 0),
    };
    if !(lo..=hi).contains(&want.len()) || want.iter().any(|r| r.len() != columns) {
        out.push(format!(
            "{} rows of {columns} columns: {want:?}",
            want.len()
        ));
    }
    out
}

/// Whether the evidence urls are pages of the world whose recorded facts state every cell the
/// draft names and every value the query reads (all but a computed answer, such as a sum).
fn evidence_problems(
    fixture: &Fixture,
    family: &Family,
    task: &Task,
    cells: &[Cell],
    rows: &[Vec<String>],
) -> Vec<String> {
    let urls: Vec<String> = serde_json::from_str(&task.evidence).unwrap();
    let pages: Vec<&Page> = urls
        .iter()
        .filter_map(|u| fixture.pages.iter().find(|p| &p.url == u))
        .collect();
    let mut out = Vec::new();
    if urls.is_empty() || pages.len() != urls.len() {
        out.push(format!("evidence {urls:?} is not a set of pages"));
    }
    let facts = pages.iter().flat_map(|p| &p.facts);
    let stated: BTreeSet<Cell> = facts
        .clone()
        .map(|f| (f.table.clone(), f.row_id, f.column.clone()))
        .collect();
    for cell in cells {
        if !stated.contains(cell) {
            out.push(format!("no evidence page states {cell:?}"));
        }
    }
    let shown: BTreeSet<String> = facts.map(|f| f.shown.replace(',', "")).collect();
    let computed = usize::from(match family.shape {
        Shape::Count(f) => f.tally != Tally::Names,
        Shape::SumBefore(_) | Shape::CountBefore(_) => true,
        _ => false,
    });
    for value in rows.iter().flat_map(|r| r.iter().skip(computed)) {
        if !shown.contains(value) {
            out.push(format!("no evidence page shows {value:?}"));
        }
    }
    out
}

/// Whether the question maps back to its phrasing and slots, and whether its phrasing (the
/// question without its slot values) keeps the answer to itself. A comparison's answer must be
/// one of the names it compares.
fn question_problems(
    family: &Family,
    task: &Task,
    gold: &Value,
    slots: &[(&'static str, String)],
) -> Vec<String> {
    let prefix = format!("{}.{}.", family.kind.as_str(), family.name);
    let m = match phrasings::match_question(&task.question) {
        Some(m) if m.phrasing_id.starts_with(&prefix) => m,
        m => return vec![format!("question matches {m:?}")],
    };
    let mut out = Vec::new();
    for (name, value) in slots {
        if m.slot(name).is_some_and(|v| v != value) {
            out.push(format!("slot {name} reads {:?}, not {value}", m.slot(name)));
        }
    }
    let mut phrasing = task.question.clone();
    for (name, value) in &m.slots {
        phrasing = phrasing.replace(value.as_str(), &format!("{{{name}}}"));
    }
    let keys: Vec<String> = match gold {
        Value::String(answer) => vec![answer.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => serde_json::from_value::<Vec<Vec<String>>>(gold["rows"].clone())
            .unwrap()
            .into_iter()
            .map(|r| r[0].clone())
            .collect(),
    };
    let compared = ["a", "b", "c", "d"].map(|slot| m.slot(slot));
    for key in keys {
        let given = if matches!(family.shape, Shape::Compare(_)) {
            !compared.contains(&Some(key.as_str()))
        } else {
            phrasing.contains(&key)
        };
        if given {
            out.push(format!("question {:?} and answer {key:?}", task.question));
        }
    }
    out
}

/// The same task with a wrong answer and with evidence that is no page.
fn tampered(task: &Task) -> [Task; 2] {
    let answer = match serde_json::from_str(&task.answer).unwrap() {
        Value::String(a) => Value::String(format!("{a}0")),
        Value::Array(mut items) => {
            items.pop();
            Value::Array(items)
        }
        mut table => {
            table["rows"].as_array_mut().unwrap().pop();
            table
        }
    };
    let wrong_answer = Task {
        answer: answer.to_string(),
        ..task.clone()
    };
    let wrong_evidence = Task {
        evidence: r#"["/wiki/Nowhere"]"#.into(),
        ..task.clone()
    };
    [wrong_answer, wrong_evidence]
}

/// Builds up to [`CANDIDATES`] tasks of every family of `kind` in every fixture world, and
/// checks them and the tasks of that kind `build_tasks` picked; checks as well that a wrong
/// answer or wrong evidence would be caught. Every family must build at least one task.
fn check(kind: TaskKind) {
    let families: Vec<&'static Family> = FAMILIES.iter().filter(|f| f.kind == kind).collect();
    assert!(!families.is_empty(), "no family of kind {}", kind.as_str());
    for family in families {
        let mut built = 0;
        for fixture in fixtures() {
            let conn = database(&fixture.world);
            let mut builder = Builder::new(&fixture.world, &fixture.pages);
            // Few people allow a frontier question (one in twenty or so): try them all.
            let take = if family.is_frontier() {
                usize::MAX
            } else {
                CANDIDATES
            };
            for cand in builder.candidates(family).into_iter().take(take) {
                let Some(draft) = builder.draft(family, cand) else {
                    continue;
                };
                let (cells, slots) = (draft.body.cells.clone(), draft.body.slots.clone());
                let Some(task) = builder.finish(draft, built) else {
                    continue;
                };
                let support = Support {
                    cells: &cells,
                    slots: &slots,
                };
                let found = problems(fixture, &conn, family, &task, &support);
                assert!(found.is_empty(), "{task:#?}\n{found:#?}");
                for wrong in tampered(&task) {
                    let found = problems(fixture, &conn, family, &wrong, &support);
                    assert!(!found.is_empty(), "not caught: {wrong:#?}");
                }
                built += 1;
            }
        }
        assert!(built > 0, "{}.{} built no task", kind.as_str(), family.name);
    }
    let no_support = Support {
        cells: &[],
        slots: &[],
    };
    for fixture in fixtures() {
        let conn = database(&fixture.world);
        for task in fixture.tasks.iter().filter(|t| t.kind == kind) {
            let m = phrasings::match_question(&task.question).unwrap();
            let family = super::family::family(kind.as_str(), &m.template).unwrap();
            let found = problems(fixture, &conn, family, task, &no_support);
            assert!(found.is_empty(), "{task:#?}\n{found:#?}");
        }
    }
}

#[test]
fn lookup() {
    check(TaskKind::Lookup);
}

#[test]
fn multi_hop() {
    check(TaskKind::MultiHop);
}

#[test]
fn compare() {
    check(TaskKind::Compare);
}

#[test]
fn aggregate() {
    check(TaskKind::Aggregate);
}

#[test]
fn temporal() {
    check(TaskKind::Temporal);
}

#[test]
fn identify() {
    check(TaskKind::Identify);
}

#[test]
fn table() {
    check(TaskKind::Table);
}

#[test]
fn every_template_has_one_family() {
    let mut named = BTreeSet::new();
    for (kind, by_name) in phrasings::templates() {
        for name in by_name.keys() {
            assert!(
                super::family::family(kind, name).is_some(),
                "{kind}.{name} has no family"
            );
            named.insert((kind.as_str(), name.as_str()));
        }
    }
    let families: BTreeSet<(&str, &str)> =
        FAMILIES.iter().map(|f| (f.kind.as_str(), f.name)).collect();
    assert_eq!(families.len(), FAMILIES.len(), "a family is listed twice");
    assert_eq!(families, named);
}

/// A term overlapped by a twin (same holder, same keys, same years) has no single answer, so
/// it yields no draft; the generated worlds have no such twins, so they are made here.
#[test]
fn overlapping_terms_have_no_answer() {
    type Twin = fn(&mut World, usize);
    let cases: [(&str, Twin); 1] = [("seat_holder", |w, i| {
        let twin = w.tenures[i].clone();
        w.tenures.push(twin);
    })];
    let world = &fixtures()
        .iter()
        .find(|f| !f.world.tenures.is_empty())
        .unwrap()
        .world;
    for (name, twin) in cases {
        let family = super::family::family("temporal", name).unwrap();
        let drafts = |world: &World, x: i64| {
            Builder::new(world, &[])
                .draft(family, [x, 0, 0, 0])
                .is_some()
        };
        let x = (1..=40).find(|&x| drafts(world, x)).unwrap();
        let mut twinned = world.clone();
        twin(&mut twinned, usize::try_from(x - 1).unwrap());
        assert!(
            !drafts(&twinned, x),
            "{name}: term {x} and its twin both answer"
        );
    }
}

#[test]
fn answers_shown_in_their_questions_are_caught() {
    let check = |question: &str, answer: &str, expect: bool| {
        let got = super::answer_in_question(question, answer);
        assert_eq!(got, expect, "{answer:?} in {question:?}");
    };
    check("Which town hosted Grithy Cup?", "Grithy", true);
    check("Which town hosted the Grithy Cup?", "Grithy Vale", true);
    check("Which town hosted the GRITHY cup?", "Grithy", true);
    check("Who founded the guild in 1869?", "1869", true);
    check("Who founded the guild in 1869?", "186", false);
    check("Which town hosted the fair?", "Kest", false);
    check("Which town hosted the Vale fair?", "Grithy Vale", true);
    check("Which town hosted the Moor fair?", "Grithy Vale", false);
}

/// A value read through a reference whose header another column has too is headed by the
/// reference as well, so that no two headers of a table agree.
#[test]
fn repeated_headers_are_qualified_by_their_reference() {
    let check = |name: &str, expect: &[&str]| {
        let family = super::family::family("table", name).unwrap();
        let fixture = &fixtures()[0];
        let mut builder = Builder::new(&fixture.world, &fixture.pages);
        let draft = builder
            .candidates(family)
            .into_iter()
            .find_map(|cand| builder.draft(family, cand))
            .unwrap_or_else(|| panic!("{name} built no draft"));
        let super::Answer::Table { columns, .. } = &draft.body.answer else {
            panic!("{name} is not a table");
        };
        let region = fixture.world.theme.region.singular.clone();
        let expect: Vec<String> = expect
            .iter()
            .map(|h| {
                let h = h.replace("REGION", &region);
                let mut chars = h.chars();
                chars
                    .next()
                    .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
            })
            .collect();
        assert_eq!(columns[1..], expect[..], "{name}");
    };
    check(
        "settlements_after_region",
        &["REGION", "REGION population", "Founded", "Population"],
    );
    check(
        "people_born_before_birthplace_region",
        &["Born", "Birthplace", "Founded", "REGION", "Population"],
    );
}

/// No place or organisation is a handle on a frontier question: the clues about the birthplace
/// fit at least five settlements together, each clue about an organisation at least five
/// organisations, and the cheapest plan, narrowing one level up first, needs at least
/// [`FRONTIER_MIN_PLAN_CALLS`](crate::difficulty::FRONTIER_MIN_PLAN_CALLS) calls, and
/// [`FRONTIER_MIN_FIRST_CALLS`](crate::difficulty::FRONTIER_MIN_FIRST_CALLS) when it stops at
/// the first candidate that fits.
#[test]
fn frontier_questions_leave_no_handle_one_level_up() {
    let mut questions = 0;
    let mut sets = 0;
    let mut tables = 0;
    let mut with_places = 0;
    let mut costs = Vec::new();
    let mut firsts = Vec::new();
    for fixture in fixtures() {
        let builder = Builder::new(&fixture.world, &fixture.pages);
        // Natives and members lists name only founders and seat holders: the answer is neither.
        let world = &fixture.world;
        let notable: BTreeSet<&str> = world
            .organisations
            .iter()
            .map(|o| o.founder)
            .chain(world.tenures.iter().map(|t| t.person))
            .map(|id| world.people[usize::try_from(id - 1).unwrap()].name.as_str())
            .collect();
        for task in &fixture.tasks {
            if !crate::difficulty::is_frontier(&task.question) {
                assert_eq!(task.effort, None, "{}", task.question);
                continue;
            }
            // One name, two to four for a name-all question, 15 to 40 rows for a table.
            let answers: Vec<String> = match task.kind {
                TaskKind::Aggregate => serde_json::from_str(&task.answer).unwrap(),
                TaskKind::Table => {
                    let table: Value = serde_json::from_str(&task.answer).unwrap();
                    let rows = table["rows"].as_array().unwrap();
                    rows.iter()
                        .map(|r| r[0].as_str().unwrap().to_owned())
                        .collect()
                }
                _ => vec![serde_json::from_str(&task.answer).unwrap()],
            };
            let size = match task.kind {
                TaskKind::Aggregate => super::frontier::FRONTIER_SET_SIZE,
                TaskKind::Table => super::frontier::FRONTIER_TABLE_SIZE,
                _ => 1..=1,
            };
            assert!(size.contains(&answers.len()), "{}", task.answer);
            sets += usize::from(task.kind == TaskKind::Aggregate);
            tables += usize::from(task.kind == TaskKind::Table);
            // None is notable; a table's rows, at most half.
            let named = answers
                .iter()
                .filter(|a| notable.contains(a.as_str()))
                .count();
            let allowed = if task.kind == TaskKind::Table {
                answers.len() / 2
            } else {
                0
            };
            assert!(named <= allowed, "{named} notable: {}", task.answer);
            let m = phrasings::match_question(&task.question).unwrap();
            let hints = crate::blurred::parse(m.slot("clues").unwrap()).unwrap();
            let (places, orgs, calls, first) = builder.frontier_handles(&hints);
            // The effort stored with the task is this plan's, with the clues' own counts.
            let effort = task.effort.expect("a frontier task carries its effort");
            assert_eq!(
                (
                    effort.plan_calls as usize,
                    effort.plan_calls_first_fit as usize
                ),
                (calls, first),
                "{}",
                task.question
            );
            assert!(effort.candidates as usize >= crate::difficulty::FRONTIER_MIN_CANDIDATES);
            // Two clues leave fewer than one, and at least the answers.
            let two = effort.candidates_after_two.expect("two clues or more");
            assert!(
                (1..=effort.candidates).contains(&two),
                "{two}: {}",
                task.question
            );
            assert!(effort.near_misses as usize >= crate::difficulty::FRONTIER_MIN_NEAR_MISSES);
            assert!(
                places.is_none_or(|p| p >= 5),
                "{places:?}: {}",
                task.question
            );
            assert!(orgs.is_none_or(|o| o >= 5), "{orgs:?}: {}", task.question);
            assert!(
                (crate::difficulty::FRONTIER_MIN_PLAN_CALLS
                    ..=crate::difficulty::FRONTIER_MAX_PLAN_CALLS)
                    .contains(&calls),
                "{calls} calls: {}",
                task.question
            );
            questions += 1;
            with_places += usize::from(places.is_some());
            assert!(
                first >= crate::difficulty::FRONTIER_MIN_FIRST_CALLS,
                "{first} calls stopping at the first fit: {}",
                task.question
            );
            costs.push(calls);
            firsts.push(first);
        }
    }
    costs.sort_unstable();
    firsts.sort_unstable();
    eprintln!(
        "{questions} frontier questions ({sets} name-all, {tables} tables); cheapest plan least \
         {}, median {}, largest {} calls; stopping at the first fit least {}, median {}, \
         largest {}",
        costs[0],
        costs[costs.len() / 2],
        costs[costs.len() - 1],
        firsts[0],
        firsts[firsts.len() / 2],
        firsts[firsts.len() - 1]
    );
    // 13 in these fixtures since plans may glance at snippets (20 before).
    assert!(
        questions >= 12 && with_places >= 5 && sets >= 3,
        "{questions} {with_places} {sets}"
    );
}
