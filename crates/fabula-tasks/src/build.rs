//! Building the tasks of one world from its typed model and its rendered pages.
//!
//! Every task starts as a candidate (a template and the ids it is about). A candidate becomes a
//! [`Draft`] only when its answer is unique in the database: no ties in comparisons and
//! extremes, a year strictly inside one term for temporal questions, a row count of 5 to 40 for
//! tables. The draft names the cells its answer rests on; the evidence is a small set of pages
//! whose recorded facts state all of them, chosen greedily and then pruned. Each task carries a
//! SQL query over the world's own tables that recomputes its answer (see [`crate::check`] for the
//! convention). A question is kept only when it maps back to its phrasing and slot values, so the
//! blind baseline and the baseline agent read it exactly.

use std::collections::{BTreeMap, BTreeSet};

use rand::RngExt;
use rand::seq::SliceRandom;
use serde_json::{Value, json};

use fabula_world::records::{PageRecord, TaskRecord};
use fabula_world::schema::{self, Layout, TableRole};
use fabula_world::seed::{self, WorldRng};
use fabula_world::{World, model};

use crate::phrasings;

/// How many short-answer tasks of each kind a world gets, in the order they are drawn.
const SHORT_TARGETS: &[(&str, usize)] = &[
    ("lookup", 6),
    ("multi_hop", 5),
    ("compare", 4),
    ("aggregate", 3),
    ("temporal", 4),
];
/// The fewest short-answer tasks a world must have; lookups fill any gap.
const MIN_SHORT: usize = 22;
/// The most table tasks a world gets.
const MAX_TABLES: usize = 4;
/// The smallest and largest table, in rows.
const TABLE_ROWS: (usize, usize) = (5, 40);

/// One domain cell: (table, row id, column).
type Cell = (String, i64, String);

/// A gold answer before it becomes JSON.
#[derive(Debug, Clone)]
enum Answer {
    Text(String),
    Table {
        columns: Vec<String>,
        metrics: Vec<&'static str>,
        rows: Vec<Vec<String>>,
    },
}

impl Answer {
    fn to_json(&self) -> Value {
        match self {
            Answer::Text(text) => Value::String(text.clone()),
            Answer::Table {
                columns,
                metrics,
                rows,
            } => {
                let metrics: serde_json::Map<String, Value> = columns
                    .iter()
                    .zip(metrics)
                    .map(|(c, m)| (c.clone(), Value::String((*m).to_string())))
                    .collect();
                json!({"columns": columns, "key": [columns[0]], "rows": rows, "metrics": metrics})
            }
        }
    }
}

/// A task whose answer, cells and query are known, before its question is phrased.
struct Draft {
    kind: &'static str,
    template: &'static str,
    /// The slot values of the question (entity names, years, ...).
    slots: Vec<(&'static str, String)>,
    answer: Answer,
    cells: Vec<Cell>,
    sql: String,
}

/// What a candidate is about: up to three ids or numbers, read per template.
type Candidate = [i64; 3];

/// Quotes a SQL string literal.
/// The alias a table gets in lookup queries: its role's initial letter.
fn alias(role: TableRole) -> char {
    role.as_str().chars().next().unwrap_or('t')
}

fn lit(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn cap(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The state of building one world's tasks.
struct Builder<'a> {
    world: &'a World,
    layout: Layout,
    pages: &'a [PageRecord],
    /// Cell -> indices of the pages that state it.
    stated_on: BTreeMap<Cell, Vec<usize>>,
    rng: WorldRng,
    nouns: Vec<(&'static str, String)>,
}

impl<'a> Builder<'a> {
    fn new(world: &'a World, pages: &'a [PageRecord]) -> Builder<'a> {
        let mut stated_on: BTreeMap<Cell, Vec<usize>> = BTreeMap::new();
        for (i, page) in pages.iter().enumerate() {
            for f in &page.facts {
                stated_on
                    .entry((f.table.clone(), f.row_id, f.column.clone()))
                    .or_default()
                    .push(i);
            }
        }
        let t = &world.theme;
        let nouns = vec![
            ("person_noun", t.person.singular.clone()),
            ("people_noun", t.person.plural.clone()),
            ("org_noun", t.organisation.singular.clone()),
            ("orgs_noun", t.organisation.plural.clone()),
            ("settlement_noun", t.settlement.singular.clone()),
            ("settlements_noun", t.settlement.plural.clone()),
            ("region_noun", t.region.singular.clone()),
            ("regions_noun", t.region.plural.clone()),
            ("work_noun", t.work.singular.clone()),
            ("works_noun", t.work.plural.clone()),
            ("event_noun", t.event.singular.clone()),
            ("alliance_noun", t.alliance.singular.clone()),
            ("verb", t.work.verb.clone().unwrap_or_default()),
        ];
        Builder {
            world,
            layout: schema::layout(world),
            pages,
            stated_on,
            rng: seed::rng(world.master_seed, world.id, "tasks"),
            nouns,
        }
    }

    /// The table name of a role.
    fn t(&self, role: TableRole) -> &str {
        &self.layout.table(role).name
    }

    /// The column name of a column role.
    fn c(&self, role: TableRole, column_role: &str) -> &str {
        &self.layout.table(role).column(column_role).name
    }

    /// The first extra column of an entity table and its label, if the theme has one.
    fn extra(&self, role: TableRole) -> Option<(String, String)> {
        self.layout
            .table(role)
            .columns
            .iter()
            .find(|c| c.role == "extra")
            .map(|c| (c.name.clone(), c.label.clone()))
    }

    fn cell(&self, role: TableRole, row: i64, column_role: &str) -> Cell {
        (
            self.t(role).to_string(),
            row,
            self.c(role, column_role).to_string(),
        )
    }

    fn extra_cell(&self, role: TableRole, row: i64) -> Cell {
        let (column, _) = self.extra(role).expect("extra column");
        (self.t(role).to_string(), row, column)
    }

    /// Every candidate of a template in this world.
    fn candidates(&mut self, kind: &str, template: &str) -> Vec<Candidate> {
        let w = self.world;
        let ids = |n: usize| (1..=n as i64).map(|id| [id, 0, 0]).collect::<Vec<_>>();
        match (kind, template) {
            ("lookup", "person_birth_year" | "person_birthplace") => ids(w.people.len()),
            ("lookup", "person_death_year") => w
                .people
                .iter()
                .filter(|p| p.death_year.is_some())
                .map(|p| [p.id, 0, 0])
                .collect(),
            ("lookup", "org_founded" | "org_founder" | "org_home") => ids(w.organisations.len()),
            ("lookup", "settlement_founded" | "settlement_population") => ids(w.settlements.len()),
            ("lookup", "work_year") | ("multi_hop", "work_maker_founder" | "work_maker_home") => {
                ids(w.works.len())
            }
            ("lookup", "event_host")
            | ("multi_hop", "event_host_region" | "event_winner_founder") => ids(w.events.len()),
            ("lookup", "alliance_seat") | ("multi_hop", "alliance_seat_region") => {
                ids(w.alliances.len())
            }
            ("multi_hop", _) => ids(w.organisations.len()),
            ("compare", "settlement_older" | "settlement_larger") => {
                self.pairs(w.settlements.len(), |_, _| true)
            }
            ("compare", "org_older" | "org_more_members") => {
                self.pairs(w.organisations.len(), |_, _| true)
            }
            ("compare", "person_older") => {
                // Near-namesakes first: people of one family share a surname.
                let family = |id: i64| {
                    w.person(id)
                        .name
                        .rsplit(' ')
                        .next()
                        .unwrap_or_default()
                        .to_string()
                };
                let mut same = self.pairs(w.people.len(), |a, b| family(a) == family(b));
                same.extend(self.pairs(w.people.len(), |_, _| true).into_iter().take(4));
                same
            }
            (
                "aggregate",
                "region_largest_settlement"
                | "region_oldest_settlement"
                | "region_population_before",
            )
            | ("table", "settlements_in_region") => ids(w.regions.len()),
            ("aggregate", "category_oldest_org") => ids(w.theme.organisation.categories.len()),
            ("aggregate", "most_populous_region")
            | ("table", "settlements_before" | "orgs_after") => vec![[0, 0, 0]],
            ("table", "works_after") if w.groups.works => vec![[0, 0, 0]],
            ("table", "people_by_occupation") => ids(w.theme.person.occupations.len()),
            ("temporal", "seat_holder") => ids(w.tenures.len()),
            ("temporal", "alliance_member_of") => ids(w.alliance_memberships.len()),
            _ => Vec::new(),
        }
    }

    /// Up to 24 random pairs of distinct ids that satisfy `keep`.
    fn pairs(&mut self, n: usize, keep: impl Fn(i64, i64) -> bool) -> Vec<Candidate> {
        let mut all: Vec<Candidate> = Vec::new();
        for a in 1..=n as i64 {
            for b in a + 1..=n as i64 {
                if keep(a, b) {
                    all.push([a, b, 0]);
                }
            }
        }
        all.shuffle(&mut self.rng);
        all.truncate(24);
        for pair in &mut all {
            if self.rng.random_bool(0.5) {
                pair.swap(0, 1);
            }
        }
        all
    }

    /// A lookup of one value column of a named entity: `SELECT col FROM t WHERE name = ...`.
    #[allow(
        clippy::too_many_arguments,
        reason = "each argument names one part of the lookup"
    )]
    fn value_lookup(
        &self,
        role: TableRole,
        id: i64,
        slot: &'static str,
        name: &str,
        column_role: &str,
        answer: String,
        d: impl Fn(Vec<(&'static str, String)>, String, Vec<Cell>, String) -> Option<Draft>,
    ) -> Option<Draft> {
        let sql = format!(
            "SELECT {} FROM {} WHERE name = {}",
            self.c(role, column_role),
            self.t(role),
            lit(name)
        );
        d(
            vec![(slot, name.to_string())],
            answer,
            vec![self.cell(role, id, column_role)],
            sql,
        )
    }

    /// A lookup of the entity a reference column of a named entity points at, joining the two
    /// tables under their initial letters (`o` for organisations, `s` for settlements, ...).
    #[allow(
        clippy::too_many_arguments,
        reason = "each argument names one part of the lookup"
    )]
    fn reference_lookup(
        &self,
        role: TableRole,
        id: i64,
        slot: &'static str,
        name: &str,
        column_role: &str,
        target: TableRole,
        answer: String,
        d: impl Fn(Vec<(&'static str, String)>, String, Vec<Cell>, String) -> Option<Draft>,
    ) -> Option<Draft> {
        let (a, b) = (alias(role), alias(target));
        let sql = format!(
            "SELECT {b}.name FROM {} {a} JOIN {} {b} ON {b}.id = {a}.{} WHERE {a}.name = {}",
            self.t(role),
            self.t(target),
            self.c(role, column_role),
            lit(name)
        );
        d(
            vec![(slot, name.to_string())],
            answer,
            vec![self.cell(role, id, column_role)],
            sql,
        )
    }

    /// Turns a candidate into a draft, or `None` when its answer would not be unique.
    fn draft(
        &mut self,
        kind: &'static str,
        template: &'static str,
        cand: Candidate,
    ) -> Option<Draft> {
        let w = self.world;
        let (r, s, p, o) = (
            TableRole::Region,
            TableRole::Settlement,
            TableRole::Person,
            TableRole::Organisation,
        );
        let [x, y, _] = cand;
        let d =
            |slots: Vec<(&'static str, String)>, answer: String, cells: Vec<Cell>, sql: String| {
                Some(Draft {
                    kind,
                    template,
                    slots,
                    answer: Answer::Text(answer),
                    cells,
                    sql,
                })
            };
        let (pt, st, ot, rt) = (
            self.t(p).to_string(),
            self.t(s).to_string(),
            self.t(o).to_string(),
            self.t(r).to_string(),
        );
        match (kind, template) {
            ("lookup", "person_birth_year") => {
                let person = w.person(x);
                let answer = person.birth_year.to_string();
                self.value_lookup(p, x, "person", &person.name, "birth_year", answer, d)
            }
            ("lookup", "person_birthplace") => {
                let person = w.person(x);
                let answer = w.settlement(person.birthplace).name.clone();
                self.reference_lookup(p, x, "person", &person.name, "birthplace", s, answer, d)
            }
            ("lookup", "person_death_year") => {
                let person = w.person(x);
                let answer = person.death_year?.to_string();
                self.value_lookup(p, x, "person", &person.name, "death_year", answer, d)
            }
            ("lookup", "org_founded") => {
                let org = w.organisation(x);
                let answer = org.founded.to_string();
                self.value_lookup(o, x, "org", &org.name, "founded", answer, d)
            }
            ("lookup", "org_founder") => {
                let org = w.organisation(x);
                let answer = w.person(org.founder).name.clone();
                self.reference_lookup(o, x, "org", &org.name, "founder", p, answer, d)
            }
            ("lookup", "org_home") => {
                let org = w.organisation(x);
                let answer = w.settlement(org.home).name.clone();
                self.reference_lookup(o, x, "org", &org.name, "home", s, answer, d)
            }
            ("lookup", "settlement_founded" | "settlement_population") => {
                let settlement = w.settlement(x);
                let (column, value) = if template == "settlement_founded" {
                    ("founded", settlement.founded)
                } else {
                    ("population", settlement.population)
                };
                let answer = value.to_string();
                self.value_lookup(s, x, "settlement", &settlement.name, column, answer, d)
            }
            ("lookup", "work_year") => {
                let work = w.work(x);
                let answer = work.year.to_string();
                self.value_lookup(TableRole::Work, x, "work", &work.name, "year", answer, d)
            }
            ("lookup", "event_host") => {
                let event = w.event(x);
                let answer = w.settlement(event.host).name.clone();
                self.reference_lookup(
                    TableRole::Event,
                    x,
                    "event",
                    &event.name,
                    "host",
                    s,
                    answer,
                    d,
                )
            }
            ("lookup", "alliance_seat") => {
                let alliance = w.alliance(x);
                let answer = w.settlement(alliance.seat).name.clone();
                self.reference_lookup(
                    TableRole::Alliance,
                    x,
                    "alliance",
                    &alliance.name,
                    "home",
                    s,
                    answer,
                    d,
                )
            }
            ("multi_hop", "founder_birthplace" | "founder_birth_year" | "founder_birth_region") => {
                let org = w.organisation(x);
                let founder = w.person(org.founder);
                let mut cells = vec![self.cell(o, x, "founder")];
                let head = format!(
                    "FROM {ot} o JOIN {pt} p ON p.id = o.{} ",
                    self.c(o, "founder")
                );
                let filter = format!("WHERE o.name = {}", lit(&org.name));
                let (answer, sql) = match template {
                    "founder_birth_year" => {
                        cells.push(self.cell(p, founder.id, "birth_year"));
                        (
                            founder.birth_year.to_string(),
                            format!("SELECT p.{} {head}{filter}", self.c(p, "birth_year")),
                        )
                    }
                    "founder_birthplace" => {
                        cells.push(self.cell(p, founder.id, "birthplace"));
                        let sql = format!(
                            "SELECT s.name {head}JOIN {st} s ON s.id = p.{} {filter}",
                            self.c(p, "birthplace")
                        );
                        (w.settlement(founder.birthplace).name.clone(), sql)
                    }
                    _ => {
                        cells.push(self.cell(p, founder.id, "birthplace"));
                        cells.push(self.cell(s, founder.birthplace, "region"));
                        let sql = format!(
                            "SELECT r.name {head}JOIN {st} s ON s.id = p.{} JOIN {rt} r ON r.id = s.{} {filter}",
                            self.c(p, "birthplace"),
                            self.c(s, "region")
                        );
                        (
                            w.region(w.settlement(founder.birthplace).region)
                                .name
                                .clone(),
                            sql,
                        )
                    }
                };
                d(vec![("org", org.name.clone())], answer, cells, sql)
            }
            ("multi_hop", "home_population" | "home_region") => {
                let org = w.organisation(x);
                let home = w.settlement(org.home);
                let head = format!("FROM {ot} o JOIN {st} s ON s.id = o.{} ", self.c(o, "home"));
                let filter = format!("WHERE o.name = {}", lit(&org.name));
                let mut cells = vec![self.cell(o, x, "home")];
                let (answer, sql) = if template == "home_population" {
                    cells.push(self.cell(s, home.id, "population"));
                    (
                        home.population.to_string(),
                        format!("SELECT s.{} {head}{filter}", self.c(s, "population")),
                    )
                } else {
                    cells.push(self.cell(s, home.id, "region"));
                    let sql = format!(
                        "SELECT r.name {head}JOIN {rt} r ON r.id = s.{} {filter}",
                        self.c(s, "region")
                    );
                    (w.region(home.region).name.clone(), sql)
                };
                d(vec![("org", org.name.clone())], answer, cells, sql)
            }
            ("multi_hop", "work_maker_founder" | "work_maker_home") => {
                let wr = TableRole::Work;
                let work = w.work(x);
                let org = w.organisation(work.organisation);
                let head = format!(
                    "FROM {} x JOIN {ot} o ON o.id = x.{} ",
                    self.t(wr),
                    self.c(wr, "organisation")
                );
                let filter = format!("WHERE x.name = {}", lit(&work.name));
                let mut cells = vec![self.cell(wr, x, "organisation")];
                let (answer, sql) = if template == "work_maker_founder" {
                    cells.push(self.cell(o, org.id, "founder"));
                    let sql = format!(
                        "SELECT p.name {head}JOIN {pt} p ON p.id = o.{} {filter}",
                        self.c(o, "founder")
                    );
                    (w.person(org.founder).name.clone(), sql)
                } else {
                    cells.push(self.cell(o, org.id, "home"));
                    let sql = format!(
                        "SELECT s.name {head}JOIN {st} s ON s.id = o.{} {filter}",
                        self.c(o, "home")
                    );
                    (w.settlement(org.home).name.clone(), sql)
                };
                d(vec![("work", work.name.clone())], answer, cells, sql)
            }
            ("multi_hop", "event_host_region") => {
                let er = TableRole::Event;
                let event = w.event(x);
                let host = w.settlement(event.host);
                let sql = format!(
                    "SELECT r.name FROM {} e JOIN {st} s ON s.id = e.{} JOIN {rt} r ON r.id = s.{} WHERE e.name = {}",
                    self.t(er),
                    self.c(er, "host"),
                    self.c(s, "region"),
                    lit(&event.name)
                );
                let cells = vec![self.cell(er, x, "host"), self.cell(s, host.id, "region")];
                d(
                    vec![("event", event.name.clone())],
                    w.region(host.region).name.clone(),
                    cells,
                    sql,
                )
            }
            ("multi_hop", "event_winner_founder") => {
                let (er, xr) = (TableRole::Event, TableRole::Participation);
                let event = w.event(x);
                let winners: Vec<&model::Participation> = w
                    .participations
                    .iter()
                    .filter(|q| q.event == x && q.result == 1)
                    .collect();
                let [winner] = winners.as_slice() else {
                    return None;
                };
                let org = w.organisation(winner.organisation);
                let sql = format!(
                    "SELECT p.name FROM {xt} x JOIN {et} e ON e.id = x.{xe} JOIN {ot} o ON o.id = x.{xo} \
                     JOIN {pt} p ON p.id = o.{of} WHERE e.name = {name} AND x.{res} = 1",
                    xt = self.t(xr),
                    et = self.t(er),
                    xe = self.c(xr, "event"),
                    xo = self.c(xr, "organisation"),
                    of = self.c(o, "founder"),
                    name = lit(&event.name),
                    res = self.c(xr, "result"),
                );
                let cells = vec![
                    self.cell(xr, winner.id, "organisation"),
                    self.cell(xr, winner.id, "result"),
                    self.cell(o, org.id, "founder"),
                ];
                d(
                    vec![("event", event.name.clone())],
                    w.person(org.founder).name.clone(),
                    cells,
                    sql,
                )
            }
            ("multi_hop", "alliance_seat_region") => {
                let ar = TableRole::Alliance;
                let alliance = w.alliance(x);
                let seat = w.settlement(alliance.seat);
                let sql = format!(
                    "SELECT r.name FROM {} a JOIN {st} s ON s.id = a.{} JOIN {rt} r ON r.id = s.{} WHERE a.name = {}",
                    self.t(ar),
                    self.c(ar, "home"),
                    self.c(s, "region"),
                    lit(&alliance.name)
                );
                let cells = vec![self.cell(ar, x, "home"), self.cell(s, seat.id, "region")];
                d(
                    vec![("alliance", alliance.name.clone())],
                    w.region(seat.region).name.clone(),
                    cells,
                    sql,
                )
            }
            ("compare", _) => {
                let (role, column, earliest) = match template {
                    "settlement_older" => (s, "founded", true),
                    "settlement_larger" => (s, "population", false),
                    "person_older" => (p, "birth_year", true),
                    "org_older" => (o, "founded", true),
                    _ => (o, "member_count", false),
                };
                let value = |id: i64| match (role, column) {
                    (TableRole::Settlement, "founded") => w.settlement(id).founded,
                    (TableRole::Settlement, _) => w.settlement(id).population,
                    (TableRole::Person, _) => w.person(id).birth_year,
                    (_, "founded") => w.organisation(id).founded,
                    _ => w.organisation(id).member_count,
                };
                let name = |id: i64| -> String {
                    match role {
                        TableRole::Settlement => w.settlement(id).name.clone(),
                        TableRole::Person => w.person(id).name.clone(),
                        _ => w.organisation(id).name.clone(),
                    }
                };
                let (va, vb) = (value(x), value(y));
                if va == vb {
                    return None;
                }
                let winner = if (va < vb) == earliest { x } else { y };
                let order = if earliest { "" } else { " DESC" };
                let col = self.c(role, column).to_string();
                let sql = format!(
                    "SELECT FIRST_VALUE(name) OVER (ORDER BY {col}{order}) AS answer, name, {col} FROM {} WHERE name IN ({}, {})",
                    self.t(role),
                    lit(&name(x)),
                    lit(&name(y))
                );
                let cells = vec![
                    self.cell(role, x, "name"),
                    self.cell(role, x, column),
                    self.cell(role, y, "name"),
                    self.cell(role, y, column),
                ];
                d(
                    vec![("a", name(x)), ("b", name(y))],
                    name(winner),
                    cells,
                    sql,
                )
            }
            (
                "aggregate",
                "region_largest_settlement"
                | "region_oldest_settlement"
                | "region_population_before",
            ) => {
                let region = w.region(x);
                let mut members: Vec<&model::Settlement> =
                    w.settlements.iter().filter(|q| q.region == x).collect();
                if members.len() < 2 {
                    return None;
                }
                let (sreg, sfounded, spop) = (
                    self.c(s, "region").to_string(),
                    self.c(s, "founded").to_string(),
                    self.c(s, "population").to_string(),
                );
                let from = format!(
                    "FROM {st} s JOIN {rt} r ON r.id = s.{sreg} WHERE r.name = {}",
                    lit(&region.name)
                );
                let mut slots = vec![("region", region.name.clone())];
                let (answer, sql, support): (String, String, &str) = match template {
                    "region_largest_settlement" | "region_oldest_settlement" => {
                        let largest = template == "region_largest_settlement";
                        let key =
                            |q: &model::Settlement| if largest { -q.population } else { q.founded };
                        members.sort_by_key(|q| key(q));
                        if key(members[0]) == key(members[1]) {
                            return None;
                        }
                        let (col, order) = if largest {
                            (&spop, " DESC")
                        } else {
                            (&sfounded, "")
                        };
                        let sql = format!(
                            "SELECT FIRST_VALUE(s.name) OVER (ORDER BY s.{col}{order}) AS answer, s.name, s.{col} {from}"
                        );
                        (
                            members[0].name.clone(),
                            sql,
                            if largest { "population" } else { "founded" },
                        )
                    }
                    _ => {
                        members.sort_by_key(|q| q.founded);
                        // Keep the k oldest, k >= 2, where a year separates them from the rest.
                        let ks: Vec<usize> = (2..=members.len())
                            .filter(|&k| {
                                k == members.len() || members[k - 1].founded < members[k].founded
                            })
                            .collect();
                        let k = *ks.get(self.rng.random_range(0..ks.len().max(1)))?;
                        let year = members[k - 1].founded + 1;
                        members.truncate(k);
                        let total: i64 = members.iter().map(|q| q.population).sum();
                        slots.push(("year", year.to_string()));
                        let sql = format!(
                            "SELECT SUM(s.{spop}) OVER () AS answer, s.name, s.{spop}, s.{sfounded} {from} AND s.{sfounded} < {year}"
                        );
                        (total.to_string(), sql, "population")
                    }
                };
                let mut cells = Vec::new();
                for q in &members {
                    cells.push(self.cell(s, q.id, "name"));
                    cells.push(self.cell(s, q.id, support));
                    cells.push(self.cell(s, q.id, "region"));
                    if template == "region_population_before" {
                        cells.push(self.cell(s, q.id, "founded"));
                    }
                }
                d(slots, answer, cells, sql)
            }
            ("aggregate", "category_oldest_org") => {
                let category = w
                    .theme
                    .organisation
                    .categories
                    .get(usize::try_from(x - 1).ok()?)?
                    .clone();
                let mut members: Vec<&model::Organisation> = w
                    .organisations
                    .iter()
                    .filter(|q| q.category == category)
                    .collect();
                members.sort_by_key(|q| q.founded);
                if members.len() < 2 || members[0].founded == members[1].founded {
                    return None;
                }
                let col = self.c(o, "founded").to_string();
                let sql = format!(
                    "SELECT FIRST_VALUE(name) OVER (ORDER BY {col}) AS answer, name, {col} FROM {ot} WHERE {} = {}",
                    self.c(o, "category"),
                    lit(&category)
                );
                let mut cells = Vec::new();
                for q in &members {
                    cells.push(self.cell(o, q.id, "name"));
                    cells.push(self.cell(o, q.id, "founded"));
                    cells.push(self.cell(o, q.id, "category"));
                }
                d(
                    vec![("category", category.clone())],
                    members[0].name.clone(),
                    cells,
                    sql,
                )
            }
            ("aggregate", "most_populous_region") => {
                let mut regions: Vec<&model::Region> = w.regions.iter().collect();
                regions.sort_by_key(|q| -q.population);
                if regions.len() < 2 || regions[0].population == regions[1].population {
                    return None;
                }
                let col = self.c(r, "population").to_string();
                let sql = format!(
                    "SELECT FIRST_VALUE(name) OVER (ORDER BY {col} DESC) AS answer, name, {col} FROM {rt}"
                );
                let mut cells = Vec::new();
                for q in &regions {
                    cells.push(self.cell(r, q.id, "name"));
                    cells.push(self.cell(r, q.id, "population"));
                }
                d(
                    vec![("world", w.name.clone())],
                    regions[0].name.clone(),
                    cells,
                    sql,
                )
            }
            ("temporal", "seat_holder") => {
                let tr = TableRole::Tenure;
                let tenure = w.tenures.get(usize::try_from(x - 1).ok()?)?;
                let year = self.inside_year(tenure.start, tenure.end)?;
                let clash = w.tenures.iter().any(|q| {
                    q.id != tenure.id
                        && q.organisation == tenure.organisation
                        && q.seat == tenure.seat
                        && q.start <= year
                        && q.end.is_none_or(|e| e >= year)
                });
                if clash {
                    return None;
                }
                let org = w.organisation(tenure.organisation);
                let (start, end) = (
                    self.c(tr, "start_year").to_string(),
                    self.c(tr, "end_year").to_string(),
                );
                let sql = format!(
                    "SELECT p.name FROM {tt} t JOIN {ot} o ON o.id = t.{to} JOIN {pt} p ON p.id = t.{tp} \
                     WHERE o.name = {org} AND t.{seat} = {seat_value} AND t.{start} <= {year} \
                     AND (t.{end} IS NULL OR t.{end} >= {year})",
                    tt = self.t(tr),
                    to = self.c(tr, "organisation"),
                    tp = self.c(tr, "person"),
                    org = lit(&org.name),
                    seat = self.c(tr, "seat"),
                    seat_value = lit(&tenure.seat),
                );
                let mut cells = vec![
                    self.cell(tr, x, "person"),
                    self.cell(tr, x, "seat"),
                    self.cell(tr, x, "start_year"),
                ];
                if tenure.end.is_some() {
                    cells.push(self.cell(tr, x, "end_year"));
                }
                let slots = vec![
                    ("seat", tenure.seat.clone()),
                    ("org", org.name.clone()),
                    ("year", year.to_string()),
                ];
                d(slots, w.person(tenure.person).name.clone(), cells, sql)
            }
            ("temporal", "alliance_member_of") => {
                let (mr, ar) = (TableRole::AllianceMembership, TableRole::Alliance);
                let m = w.alliance_memberships.get(usize::try_from(x - 1).ok()?)?;
                let year = self.inside_year(m.start, m.end)?;
                let clash = w.alliance_memberships.iter().any(|q| {
                    q.id != m.id
                        && q.organisation == m.organisation
                        && q.start <= year
                        && q.end.is_none_or(|e| e >= year)
                });
                if clash {
                    return None;
                }
                let org = w.organisation(m.organisation);
                let (start, end) = (
                    self.c(mr, "start_year").to_string(),
                    self.c(mr, "end_year").to_string(),
                );
                let sql = format!(
                    "SELECT a.name FROM {mt} m JOIN {ot} o ON o.id = m.{mo} JOIN {at} a ON a.id = m.{ma} \
                     WHERE o.name = {org} AND m.{start} <= {year} AND (m.{end} IS NULL OR m.{end} >= {year})",
                    mt = self.t(mr),
                    mo = self.c(mr, "organisation"),
                    at = self.t(ar),
                    ma = self.c(mr, "alliance"),
                    org = lit(&org.name),
                );
                let mut cells = vec![self.cell(mr, x, "alliance"), self.cell(mr, x, "start_year")];
                if m.end.is_some() {
                    cells.push(self.cell(mr, x, "end_year"));
                }
                let slots = vec![("org", org.name.clone()), ("year", year.to_string())];
                d(slots, w.alliance(m.alliance).name.clone(), cells, sql)
            }
            ("table", _) => self.table_draft(template, x),
            _ => None,
        }
    }

    /// A year strictly inside a term (never its first or last year, never after the present).
    fn inside_year(&mut self, start: i64, end: Option<i64>) -> Option<i64> {
        let last = end.map_or(self.world.present_year, |e| e - 1);
        (start < last).then(|| self.rng.random_range(start + 1..=last))
    }

    /// Picks how many of `sorted` (ordered by a year) to keep so that a year separates the kept
    /// ones from the rest: a count in the table row range, or `None`.
    fn cut(&mut self, years: &[i64]) -> Option<usize> {
        let (lo, hi) = TABLE_ROWS;
        let ks: Vec<usize> = (lo..=hi.min(years.len()))
            .filter(|&k| k == years.len() || years[k - 1] != years[k])
            .collect();
        if ks.is_empty() {
            return None;
        }
        Some(ks[self.rng.random_range(0..ks.len())])
    }

    fn table_draft(&mut self, template: &'static str, x: i64) -> Option<Draft> {
        let w = self.world;
        let (r, s, p, o) = (
            TableRole::Region,
            TableRole::Settlement,
            TableRole::Person,
            TableRole::Organisation,
        );
        let (st, rt, pt, ot) = (
            self.t(s).to_string(),
            self.t(r).to_string(),
            self.t(p).to_string(),
            self.t(o).to_string(),
        );
        let theme = &w.theme;
        let table = |columns: Vec<String>, metrics: Vec<&'static str>, rows: Vec<Vec<String>>| {
            Answer::Table {
                columns,
                metrics,
                rows,
            }
        };
        let mut cells = Vec::new();
        let mut rows = Vec::new();
        let (slots, answer, sql) = match template {
            "settlements_in_region" => {
                let region = w.region(x);
                let (extra_col, extra_label) = self.extra(s)?;
                let mut members: Vec<&model::Settlement> =
                    w.settlements.iter().filter(|q| q.region == x).collect();
                if !(TABLE_ROWS.0..=TABLE_ROWS.1).contains(&members.len()) {
                    return None;
                }
                members.sort_by(|a, b| a.name.cmp(&b.name));
                for q in &members {
                    rows.push(vec![
                        q.name.clone(),
                        q.founded.to_string(),
                        q.population.to_string(),
                        q.extras[0].to_string(),
                    ]);
                    for column in ["name", "founded", "population"] {
                        cells.push(self.cell(s, q.id, column));
                    }
                    cells.push(self.extra_cell(s, q.id));
                }
                let sql = format!(
                    "SELECT s.name, s.{}, s.{}, s.{extra_col} FROM {st} s JOIN {rt} r ON r.id = s.{} WHERE r.name = {} ORDER BY s.name",
                    self.c(s, "founded"),
                    self.c(s, "population"),
                    self.c(s, "region"),
                    lit(&region.name)
                );
                let columns = vec![
                    cap(&theme.settlement.singular),
                    "Founded".into(),
                    "Population".into(),
                    cap(&extra_label),
                ];
                let slots = vec![
                    ("region", region.name.clone()),
                    ("extra", extra_label.clone()),
                ];
                (
                    slots,
                    table(columns, vec!["exact", "number", "number", "number"], rows),
                    sql,
                )
            }
            "settlements_before" => {
                let mut members: Vec<&model::Settlement> = w.settlements.iter().collect();
                members.sort_by_key(|q| q.founded);
                let years: Vec<i64> = members.iter().map(|q| q.founded).collect();
                let k = self.cut(&years)?;
                let year = years[k - 1] + 1;
                members.truncate(k);
                members.sort_by(|a, b| a.name.cmp(&b.name));
                for q in &members {
                    let region = w.region(q.region).name.clone();
                    rows.push(vec![
                        q.name.clone(),
                        region,
                        q.founded.to_string(),
                        q.population.to_string(),
                    ]);
                    for column in ["name", "region", "founded", "population"] {
                        cells.push(self.cell(s, q.id, column));
                    }
                }
                let founded = self.c(s, "founded").to_string();
                let sql = format!(
                    "SELECT s.name, r.name, s.{founded}, s.{} FROM {st} s JOIN {rt} r ON r.id = s.{} WHERE s.{founded} < {year} ORDER BY s.name",
                    self.c(s, "population"),
                    self.c(s, "region"),
                );
                let columns = vec![
                    cap(&theme.settlement.singular),
                    cap(&theme.region.singular),
                    "Founded".into(),
                    "Population".into(),
                ];
                let slots = vec![("world", w.name.clone()), ("year", year.to_string())];
                (
                    slots,
                    table(columns, vec!["exact", "exact", "number", "number"], rows),
                    sql,
                )
            }
            "orgs_after" => {
                let mut members: Vec<&model::Organisation> = w.organisations.iter().collect();
                members.sort_by_key(|q| -q.founded);
                let years: Vec<i64> = members.iter().map(|q| q.founded).collect();
                let k = self.cut(&years)?;
                let year = if k == years.len() {
                    years[k - 1] - 1
                } else {
                    years[k]
                };
                members.truncate(k);
                members.sort_by(|a, b| a.name.cmp(&b.name));
                for q in &members {
                    let founder = w.person(q.founder).name.clone();
                    let home = w.settlement(q.home).name.clone();
                    rows.push(vec![q.name.clone(), founder, q.founded.to_string(), home]);
                    for column in ["name", "founder", "founded", "home"] {
                        cells.push(self.cell(o, q.id, column));
                    }
                }
                let founded = self.c(o, "founded").to_string();
                let sql = format!(
                    "SELECT o.name, p.name, o.{founded}, s.name FROM {ot} o JOIN {pt} p ON p.id = o.{} JOIN {st} s ON s.id = o.{} \
                     WHERE o.{founded} > {year} ORDER BY o.name",
                    self.c(o, "founder"),
                    self.c(o, "home"),
                );
                let columns = vec![
                    cap(&theme.organisation.singular),
                    "Founder".into(),
                    "Founded".into(),
                    format!("Home {}", theme.settlement.singular),
                ];
                let slots = vec![("year", year.to_string())];
                (
                    slots,
                    table(columns, vec!["exact", "exact", "number", "exact"], rows),
                    sql,
                )
            }
            "people_by_occupation" => {
                let occupation = theme
                    .person
                    .occupations
                    .get(usize::try_from(x - 1).ok()?)?
                    .clone();
                let mut members: Vec<&model::Person> = w
                    .people
                    .iter()
                    .filter(|q| q.occupation == occupation)
                    .collect();
                if !(TABLE_ROWS.0..=TABLE_ROWS.1).contains(&members.len()) {
                    return None;
                }
                members.sort_by(|a, b| a.name.cmp(&b.name));
                for q in &members {
                    let place = w.settlement(q.birthplace);
                    rows.push(vec![
                        q.name.clone(),
                        q.birth_year.to_string(),
                        place.name.clone(),
                        w.region(place.region).name.clone(),
                    ]);
                    for column in ["name", "birth_year", "birthplace"] {
                        cells.push(self.cell(p, q.id, column));
                    }
                    cells.push(self.cell(s, place.id, "region"));
                }
                let sql = format!(
                    "SELECT p.name, p.{}, s.name, r.name FROM {pt} p JOIN {st} s ON s.id = p.{} JOIN {rt} r ON r.id = s.{} \
                     WHERE p.{} = {} ORDER BY p.name",
                    self.c(p, "birth_year"),
                    self.c(p, "birthplace"),
                    self.c(s, "region"),
                    self.c(p, "occupation"),
                    lit(&occupation)
                );
                let columns = vec![
                    cap(&theme.person.singular),
                    "Born".into(),
                    "Birthplace".into(),
                    cap(&theme.region.singular),
                ];
                let slots = vec![("occupation", occupation.clone())];
                (
                    slots,
                    table(columns, vec!["exact", "number", "exact", "exact"], rows),
                    sql,
                )
            }
            "works_after" => {
                let wr = TableRole::Work;
                let (extra_col, extra_label) = self.extra(wr)?;
                let mut members: Vec<&model::Work> = w.works.iter().collect();
                members.sort_by_key(|q| -q.year);
                let years: Vec<i64> = members.iter().map(|q| q.year).collect();
                let k = self.cut(&years)?;
                let year = if k == years.len() {
                    years[k - 1] - 1
                } else {
                    years[k]
                };
                members.truncate(k);
                members.sort_by(|a, b| a.name.cmp(&b.name));
                for q in &members {
                    let org = w.organisation(q.organisation).name.clone();
                    rows.push(vec![
                        q.name.clone(),
                        org,
                        q.year.to_string(),
                        q.extras[0].to_string(),
                    ]);
                    for column in ["name", "organisation", "year"] {
                        cells.push(self.cell(wr, q.id, column));
                    }
                    cells.push(self.extra_cell(wr, q.id));
                }
                let year_col = self.c(wr, "year").to_string();
                let sql = format!(
                    "SELECT x.name, o.name, x.{year_col}, x.{extra_col} FROM {} x JOIN {ot} o ON o.id = x.{} WHERE x.{year_col} > {year} ORDER BY x.name",
                    self.t(wr),
                    self.c(wr, "organisation"),
                );
                let verb = theme.work.verb.clone().unwrap_or_default();
                let columns = vec![
                    cap(&theme.work.singular),
                    cap(&theme.organisation.singular),
                    cap(&verb),
                    cap(&extra_label),
                ];
                let slots = vec![("year", year.to_string()), ("extra", extra_label.clone())];
                (
                    slots,
                    table(columns, vec!["exact", "exact", "number", "number"], rows),
                    sql,
                )
            }
            _ => return None,
        };
        Some(Draft {
            kind: "table",
            template,
            slots,
            answer,
            cells,
            sql,
        })
    }

    /// A small set of pages that together state every cell, or `None` when some cell is stated
    /// nowhere. Greedy cover (most new cells first; entity articles before lists, then page
    /// order), then pages made redundant by later picks are dropped.
    fn evidence(&self, cells: &[Cell]) -> Option<Vec<usize>> {
        let needed: BTreeSet<&Cell> = cells.iter().collect();
        // Page -> indices of the needed cells it states.
        let mut page_cells: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, cell) in needed.iter().enumerate() {
            for &page in self.stated_on.get(*cell)? {
                page_cells.entry(page).or_default().push(i);
            }
        }
        let rank = |page: usize| match self.pages[page].kind.as_str() {
            "entity" => 0,
            "list" => 1,
            "category" => 2,
            "history" => 3,
            _ => 4,
        };
        let mut covered = vec![false; needed.len()];
        let mut left = needed.len();
        let mut chosen: Vec<usize> = Vec::new();
        while left > 0 {
            let (gain, page) = page_cells
                .iter()
                .filter(|(p, _)| !chosen.contains(p))
                .map(|(&p, cs)| (cs.iter().filter(|&&c| !covered[c]).count(), p))
                .max_by(|(na, pa), (nb, pb)| {
                    na.cmp(nb).then(rank(*pb).cmp(&rank(*pa))).then(pb.cmp(pa))
                })?;
            if gain == 0 {
                return None;
            }
            for &c in &page_cells[&page] {
                if !covered[c] {
                    covered[c] = true;
                    left -= 1;
                }
            }
            chosen.push(page);
        }
        // Drop any page whose cells the other chosen pages state as well.
        let mut times = vec![0usize; needed.len()];
        for p in &chosen {
            for &c in &page_cells[p] {
                times[c] += 1;
            }
        }
        let mut kept = Vec::new();
        for p in chosen {
            if page_cells[&p].iter().all(|&c| times[c] >= 2) {
                for &c in &page_cells[&p] {
                    times[c] -= 1;
                }
            } else {
                kept.push(p);
            }
        }
        Some(kept)
    }

    /// Phrases a draft and attaches its evidence; `None` when it cannot be evidenced or its
    /// question would not map back to its phrasing and slots.
    fn finish(&mut self, draft: Draft, n: usize) -> Option<TaskRecord> {
        let evidence = self.evidence(&draft.cells)?;
        let template = phrasings::template(draft.kind, draft.template);
        let index = self.rng.random_range(0..template.phrasings.len());
        let mut values: Vec<(&str, String)> = draft.slots.clone();
        values.extend(self.nouns.iter().cloned());
        values.push(("world", self.world.name.clone()));
        let question = phrasings::fill(&template.phrasings[index], &values);
        let matched = phrasings::match_question(&question)?;
        if matched.phrasing_id != format!("{}.{}.{index}", draft.kind, draft.template) {
            return None;
        }
        for (name, value) in &draft.slots {
            if matched.slot(name).is_some_and(|v| v != value) {
                return None;
            }
        }
        let urls: Vec<&str> = evidence
            .iter()
            .map(|&i| self.pages[i].url.as_str())
            .collect();
        Some(TaskRecord {
            id: format!("w{:05}-t{n:03}", self.world.id),
            kind: draft.kind.to_string(),
            question,
            answer: draft.answer.to_json().to_string(),
            evidence: serde_json::to_string(&urls).expect("serialisable"),
            hops: template.hops,
            sql: draft.sql,
        })
    }

    /// Draws up to `target` tasks of one kind, cycling over its templates so each gets a turn.
    fn draw_kind(
        &mut self,
        kind: &'static str,
        target: usize,
        tasks: &mut Vec<TaskRecord>,
        seen: &mut BTreeSet<String>,
    ) -> usize {
        let names: Vec<&'static str> = phrasings::templates()[kind]
            .keys()
            .map(String::as_str)
            .collect();
        let mut pools: Vec<(&'static str, Vec<Candidate>)> = names
            .into_iter()
            .map(|name| (name, self.candidates(kind, name)))
            .filter(|(_, c)| !c.is_empty())
            .collect();
        pools.shuffle(&mut self.rng);
        let mut made = 0;
        while made < target && pools.iter().any(|(_, c)| !c.is_empty()) {
            for (name, pool) in &mut pools {
                if made >= target {
                    break;
                }
                let name = *name;
                if pool.is_empty() {
                    continue;
                }
                let pick = self.rng.random_range(0..pool.len());
                let cand = pool.swap_remove(pick);
                let Some(draft) = self.draft(kind, name, cand) else {
                    continue;
                };
                let Some(task) = self.finish(draft, tasks.len()) else {
                    continue;
                };
                // One question per template and subject: no two tasks ask the same thing.
                if !seen.insert(format!("{kind}.{name}:{}", task.sql)) {
                    continue;
                }
                tasks.push(task);
                made += 1;
            }
        }
        made
    }
}

/// Builds the tasks of a world from its pages: at least 22 short-answer tasks over the five
/// short kinds and 3 or 4 table tasks, deterministic for a given world.
pub fn build_tasks(world: &World, pages: &[PageRecord]) -> Vec<TaskRecord> {
    let mut b = Builder::new(world, pages);
    let mut tasks = Vec::new();
    let mut seen = BTreeSet::new();
    let mut short = 0;
    for &(kind, target) in SHORT_TARGETS {
        short += b.draw_kind(kind, target, &mut tasks, &mut seen);
    }
    for kind in ["lookup", "multi_hop"] {
        if short < MIN_SHORT {
            short += b.draw_kind(kind, MIN_SHORT - short, &mut tasks, &mut seen);
        }
    }
    b.draw_kind("table", MAX_TABLES, &mut tasks, &mut seen);
    tasks
}
