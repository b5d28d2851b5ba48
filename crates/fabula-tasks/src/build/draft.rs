//! The driver that turns a task family into candidates and a candidate into a draft.
//!
//! One function per shape of [`Shape`]; each reads its answer and the cells stating it from
//! the world ([`Db`](super::db::Db)) and writes the SQL query that recomputes it. A draft is
//! `None` when its answer would not be unique. The random draws (pairs for comparisons, the
//! year of a temporal question, the cut of a sum or a table) happen in a fixed order, so a world
//! always gets the same tasks.

use std::cmp::Reverse;
use std::collections::BTreeSet;

use rand::RngExt;
use rand::seq::SliceRandom;

use fabula_file::{ColumnRole, SqlType, TableRole};

use super::db::{Cell, Query, lit};
use super::family::{
    Census, Compare, Count, CountBefore, Extreme, Family, Follow, Group, Order, Pairs, Path, Rows,
    Shape, SumBefore, Table, Tally, Term, Winner,
};
use super::frontier::Asks;
use super::threshold;
use super::{Answer, Builder, Draft};

/// What a candidate is about: one id, or up to four for comparisons (unused places are 0).
pub(super) type Candidate = [i64; 4];

/// The slots that name a comparison's options, in order.
const OPTION_SLOTS: [&str; 4] = ["a", "b", "c", "d"];

/// The smallest count a counting question asks for: small counts are easy to guess.
const MIN_COUNT: usize = 5;

/// The fewest rows a total adds up: its answer is a large number, not a small count.
const MIN_SUMMED: usize = 3;

/// How many cuts (years) of one table family are tried: each gives a different table.
const CUTS: i64 = 4;

/// A draft's content: the slot values of its question, its answer, the cells the answer rests
/// on and the query that recomputes it.
pub(super) struct Body {
    pub(super) slots: Vec<(&'static str, String)>,
    pub(super) answer: Answer,
    pub(super) cells: Vec<Cell>,
    pub(super) sql: String,
}

impl Builder<'_> {
    /// Every candidate of a family in this world.
    pub(super) fn candidates(&mut self, family: &Family) -> Vec<Candidate> {
        let db = &self.db;
        let ids = |role| db.ids(role).into_iter().map(|id| [id, 0, 0, 0]).collect();
        match family.shape {
            Shape::Follow(f) => db
                .ids(f.subject)
                .into_iter()
                .filter(|&id| db.follow(f.subject, id, &f.path).is_some())
                .map(|id| [id, 0, 0, 0])
                .collect(),
            Shape::Winner(f) => ids(f.subject.target),
            Shape::Compare(f) => self.options(f.role, f.pairs, f.options),
            Shape::Count(f) if !db.has_table(f.role) => Vec::new(),
            Shape::Count(f) => ids(f.via.target),
            Shape::Extreme(Extreme { group, .. })
            | Shape::SumBefore(SumBefore { group, .. })
            | Shape::Table(Table {
                rows: Rows::Group(group),
                ..
            }) => self.group_candidates(group),
            Shape::Table(f) if !db.has_table(f.role) => Vec::new(),
            Shape::Table(_) | Shape::CountBefore(_) => {
                (1..=CUTS).map(|cut| [cut, 0, 0, 0]).collect()
            }
            Shape::Term(f) => ids(f.link),
            Shape::Census(f) => db
                .ids(f.subject)
                .into_iter()
                .filter(|&id| {
                    db.walk(f.subject, id, f.hops)
                        .is_some_and(|(s, _)| !self.censuses_of(s).is_empty())
                })
                .map(|id| [id, 0, 0, 0])
                .collect(),
            Shape::Identify if !self.can_identify() => Vec::new(),
            Shape::Identify => ids(TableRole::Person),
            Shape::Frontier | Shape::FrontierSet | Shape::FrontierTable if !self.can_frontier() => {
                Vec::new()
            }
            Shape::Frontier | Shape::FrontierSet | Shape::FrontierTable => ids(TableRole::Person),
        }
    }

    /// Turns a candidate into a draft, or `None` when its answer would not be unique.
    pub(super) fn draft(&mut self, family: &'static Family, cand: Candidate) -> Option<Draft> {
        let x = cand[0];
        let body = match &family.shape {
            Shape::Follow(f) => self.follow(f, x),
            Shape::Winner(f) => self.winner(f, x),
            Shape::Compare(f) => self.compare(f, &cand[..f.options]),
            Shape::Count(f) => self.count(f, x),
            Shape::CountBefore(f) => self.count_before(f),
            Shape::Identify => self.identify(x),
            Shape::Frontier => self.frontier(x, Asks::One),
            Shape::FrontierSet => self.frontier(x, Asks::All),
            Shape::FrontierTable => self.frontier(x, Asks::Table),
            Shape::Extreme(f) => self.extreme(f, x),
            Shape::SumBefore(f) => self.sum_before(f, x),
            Shape::Term(f) => self.term(f, x),
            Shape::Census(f) => self.census(f, x),
            Shape::Table(f) => self.table(f, x),
        }?;
        Some(Draft { family, body })
    }

    /// The candidates of a group: one per row of the parent table or per listed value.
    fn group_candidates(&self, group: Group) -> Vec<Candidate> {
        let n = match group {
            Group::Parent { hop, .. } => self.db.ids(hop.target).len(),
            Group::Value { column } => self.theme_values(column).len(),
        };
        (1..=n as i64).map(|id| [id, 0, 0, 0]).collect()
    }

    /// The values the theme lists for a text column.
    fn theme_values(&self, column: ColumnRole) -> &[String] {
        let theme = &self.world.theme;
        match column {
            ColumnRole::Category => &theme.organisation.categories,
            ColumnRole::Occupation => &theme.person.occupations,
            _ => &[],
        }
    }

    /// The rows of group candidate `x`, in id order, and the slot that names the group.
    fn members(
        &self,
        role: TableRole,
        group: Group,
        x: i64,
    ) -> Option<(Vec<i64>, (&'static str, String))> {
        let db = &self.db;
        let ids = db.ids(role).into_iter();
        Some(match group {
            Group::Parent { hop, slot } => (
                ids.filter(|&id| db.int(role, id, hop.column) == Some(x))
                    .collect(),
                (slot, db.name(hop.target, x)),
            ),
            Group::Value { column } => {
                let value = self
                    .theme_values(column)
                    .get(usize::try_from(x - 1).ok()?)?;
                let members = ids
                    .filter(|&id| db.text(role, id, column).as_ref() == Some(value))
                    .collect();
                (members, (column.as_str(), value.clone()))
            }
        })
    }

    /// Comparison candidates: up to 24 random sets of `options` distinct rows, each in random
    /// order; pairs follow `pairs`.
    fn options(&mut self, role: TableRole, pairs: Pairs, options: usize) -> Vec<Candidate> {
        if options == 2 {
            return self.pairs(role, pairs);
        }
        let mut ids = self.db.ids(role);
        if ids.len() < options {
            return Vec::new();
        }
        (0..24)
            .map(|_| {
                ids.shuffle(&mut self.rng);
                let mut cand = [0; 4];
                cand[..options].copy_from_slice(&ids[..options]);
                cand
            })
            .collect()
    }

    /// Comparison candidates: random pairs of distinct rows.
    fn pairs(&mut self, role: TableRole, pairs: Pairs) -> Vec<Candidate> {
        let n = self.db.ids(role).len();
        match pairs {
            Pairs::Any => self.random_pairs(n, |_, _| true),
            Pairs::NamesakesFirst => {
                // People of one family share a surname.
                let surnames: Vec<String> = (1..=n as i64)
                    .map(|id| {
                        let name = self.db.name(role, id);
                        name.rsplit(' ').next().unwrap_or_default().to_string()
                    })
                    .collect();
                let surname = |id: i64| &surnames[usize::try_from(id - 1).unwrap_or_default()];
                let mut same = self.random_pairs(n, |a, b| surname(a) == surname(b));
                same.extend(self.random_pairs(n, |_, _| true).into_iter().take(4));
                same
            }
        }
    }

    /// Up to 24 random pairs of distinct ids that satisfy `keep`, each in random order.
    fn random_pairs(&mut self, n: usize, keep: impl Fn(i64, i64) -> bool) -> Vec<Candidate> {
        let mut all: Vec<Candidate> = Vec::new();
        for a in 1..=n as i64 {
            for b in a + 1..=n as i64 {
                if keep(a, b) {
                    all.push([a, b, 0, 0]);
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

    /// Reads the value at the end of the path from row `x`.
    fn follow(&self, f: &Follow, x: i64) -> Option<Body> {
        let db = &self.db;
        let (answer, cells) = db.follow(f.subject, x, &f.path)?;
        let mut query = Query::new(db, f.subject);
        query.join_path(f.subject, &f.path);
        let name = db.name(f.subject, x);
        let sql = format!(
            "SELECT {} {} WHERE {} = {}",
            query.col(f.path.end(f.subject), f.path.column),
            query.from(),
            query.col(f.subject, ColumnRole::Name),
            lit(&name)
        );
        Some(Body {
            slots: vec![(f.slot, name)],
            answer: Answer::Text(answer),
            cells,
            sql,
        })
    }

    /// Follows the path from the one winning link row of row `x`.
    fn winner(&self, f: &Winner, x: i64) -> Option<Body> {
        let db = &self.db;
        let winners: Vec<i64> = db
            .ids(f.link)
            .into_iter()
            .filter(|&q| db.int(f.link, q, f.subject.column) == Some(x))
            .filter(|&q| db.int(f.link, q, f.result) == Some(1))
            .collect();
        let [winner] = winners[..] else {
            return None;
        };
        let (answer, mut cells) = db.follow(f.link, winner, &f.path)?;
        cells.push(db.cell(f.link, winner, f.result));
        let mut query = Query::new(db, f.link);
        query.join(f.link, f.subject);
        query.join_path(f.link, &f.path);
        let name = db.name(f.subject.target, x);
        let sql = format!(
            "SELECT {} {} WHERE {} = {} AND {} = 1",
            query.col(f.path.end(f.link), f.path.column),
            query.from(),
            query.col(f.subject.target, ColumnRole::Name),
            lit(&name),
            query.col(f.link, f.result),
        );
        Some(Body {
            slots: vec![(f.slot, name)],
            answer: Answer::Text(answer),
            cells,
            sql,
        })
    }

    /// Names the option with the smallest (largest) value; `None` when another option ties
    /// with it.
    fn compare(&self, f: &Compare, options: &[i64]) -> Option<Body> {
        let db = &self.db;
        let mut ranked: Vec<(i64, i64)> = options
            .iter()
            .map(|&id| Some((db.int(f.role, id, f.column)?, id)))
            .collect::<Option<_>>()?;
        match f.order {
            Order::Smallest => ranked.sort_unstable(),
            Order::Largest => ranked.sort_unstable_by_key(|&(v, id)| (Reverse(v), id)),
        }
        if ranked[0].0 == ranked[1].0 {
            return None;
        }
        let names: Vec<String> = options.iter().map(|&id| db.name(f.role, id)).collect();
        let query = Query::new(db, f.role);
        let listed: Vec<String> = names.iter().map(|n| lit(n)).collect();
        let sql = format!(
            "{} WHERE {} IN ({})",
            first_value(&query, f.role, f.column, f.order),
            query.col(f.role, ColumnRole::Name),
            listed.join(", ")
        );
        let cells = options
            .iter()
            .flat_map(|&id| [ColumnRole::Name, f.column].map(|c| db.cell(f.role, id, c)))
            .collect();
        Some(Body {
            answer: Answer::Text(db.name(f.role, ranked[0].1)),
            slots: OPTION_SLOTS.into_iter().zip(names).collect(),
            cells,
            sql,
        })
    }

    /// Gathers the rows of `f.role` that reach row `x` of `f.via.target` (and, with a year
    /// column, lie before a year drawn so that some rows are left out) and answers their
    /// number, the total of a column over them or their names; `None` for fewer than
    /// [`MIN_COUNT`] rows counted or named, or [`MIN_SUMMED`] added up.
    fn count(&mut self, f: &Count, x: i64) -> Option<Body> {
        let mut members = self.reaching(f, x);
        let mut cut = None;
        if let Some(column) = f.before {
            let db = &self.db;
            let year_of = |id: i64| db.int(f.role, id, column).unwrap_or_default();
            members.sort_by_key(|(id, _)| year_of(*id));
            let years: Vec<i64> = members.iter().map(|(id, _)| year_of(*id)).collect();
            let taken = db.values(f.role, column);
            let range = (MIN_COUNT, members.len().saturating_sub(1));
            let (k, year) = self.cut(&years, range, &taken, false)?;
            cut = Some((column, year));
            members.truncate(k);
            let db = &self.db;
            for (id, cells) in &mut members {
                cells.push(db.cell(f.role, *id, column));
            }
        }
        let fewest = match f.tally {
            Tally::Total(_) => MIN_SUMMED,
            Tally::Names => MIN_COUNT,
        };
        if members.len() < fewest {
            return None;
        }
        let db = &self.db;
        let answer = match f.tally {
            Tally::Total(column) => {
                let mut sum = 0;
                for (id, cells) in &mut members {
                    sum += db.int(f.role, *id, column)?;
                    cells.push(db.cell(f.role, *id, column));
                }
                Answer::Text(sum.to_string())
            }
            Tally::Names => {
                let mut names: Vec<String> =
                    members.iter().map(|(id, _)| db.name(f.role, *id)).collect();
                names.sort();
                Answer::List(names)
            }
        };
        let mut query = Query::new(db, f.role);
        query.join_hops(f.role, f.steps());
        let name = db.name(f.via.target, x);
        let mut conditions = vec![format!(
            "{} = {}",
            query.col(f.via.target, ColumnRole::Name),
            lit(&name)
        )];
        let mut slots = vec![(f.slot, name)];
        if let Some((column, year)) = cut {
            conditions.push(format!("{} < {year}", query.col(f.role, column)));
            slots.push(("year", year.to_string()));
        }
        let own_name = query.col(f.role, ColumnRole::Name);
        let select = match f.tally {
            Tally::Total(column) => {
                let col = query.col(f.role, column);
                format!("SUM({col}) OVER () AS answer, {own_name}, {col}")
            }
            Tally::Names => own_name,
        };
        let sql = format!(
            "SELECT {select} {}{}",
            query.from(),
            where_clause(&conditions)
        );
        Some(Body {
            slots,
            answer,
            cells: members.into_iter().flat_map(|(_, cells)| cells).collect(),
            sql,
        })
    }

    /// Counts the rows of `f.role` whose path leads to a row founded (or otherwise dated)
    /// before a year cut among the end rows: at least 4 of those qualify and some do not, and
    /// at least [`MIN_COUNT`] rows are counted.
    fn count_before(&mut self, f: &CountBefore) -> Option<Body> {
        let end = f.hops.last().map_or(f.role, |h| h.target);
        let years: Vec<i64> = {
            let db = &self.db;
            let mut years: Vec<i64> = db
                .ids(end)
                .into_iter()
                .map(|id| db.int(end, id, f.column).unwrap_or_default())
                .collect();
            years.sort_unstable();
            years
        };
        let taken = self.db.values(end, f.column);
        let (_, year) = self.cut(&years, (4, years.len().saturating_sub(1)), &taken, false)?;
        let db = &self.db;
        let year_of = |id: i64| db.int(end, id, f.column).unwrap_or_default();
        let mut cells = Vec::new();
        let mut counted = 0;
        let mut dated = Vec::new();
        for id in db.ids(f.role) {
            let Some((at, path)) = db.walk(f.role, id, f.hops) else {
                continue;
            };
            if year_of(at) < year {
                counted += 1;
                cells.push(db.cell(f.role, id, ColumnRole::Name));
                cells.extend(path);
                if !dated.contains(&at) {
                    dated.push(at);
                    cells.push(db.cell(end, at, f.column));
                }
            }
        }
        if counted < MIN_COUNT {
            return None;
        }
        let mut query = Query::new(db, f.role);
        query.join_hops(f.role, f.hops);
        let dated_col = query.col(end, f.column);
        let sql = format!(
            "SELECT COUNT(*) OVER () AS answer, {}, {dated_col} {}{}",
            query.col(f.role, ColumnRole::Name),
            query.from(),
            where_clause(&[format!("{dated_col} < {year}")])
        );
        Some(Body {
            slots: vec![("year", year.to_string())],
            answer: Answer::Text(counted.to_string()),
            cells,
            sql,
        })
    }

    /// The rows of `f.role` that reach row `x` of `f.via.target`, in id order, each with the
    /// cells that state it: its name and every reference followed.
    fn reaching(&self, f: &Count, x: i64) -> Vec<(i64, Vec<Cell>)> {
        let db = &self.db;
        let reach = |id: i64| {
            let (mut role, mut at) = (f.role, id);
            let mut cells = vec![db.cell(f.role, id, ColumnRole::Name)];
            for hop in f.steps() {
                cells.push(db.cell(role, at, hop.column));
                at = db.int(role, at, hop.column)?;
                role = hop.target;
            }
            (at == x).then_some(cells)
        };
        db.ids(f.role)
            .into_iter()
            .filter_map(|id| Some((id, reach(id)?)))
            .collect()
    }

    /// Names the row of group `x` with the smallest (largest) value; `None` on a tie.
    fn extreme(&self, f: &Extreme, x: i64) -> Option<Body> {
        let db = &self.db;
        let (mut members, slot) = self.members(f.role, f.group, x)?;
        let key = |id: i64| db.int(f.role, id, f.column);
        match f.order {
            Order::Smallest => members.sort_by_key(|&id| key(id)),
            Order::Largest => members.sort_by_key(|&id| Reverse(key(id))),
        }
        if members.len() < 2 || key(members[0]) == key(members[1]) {
            return None;
        }
        let mut query = Query::new(db, f.role);
        group_join(&mut query, f.role, f.group);
        let condition = group_condition(&query, f.role, f.group, &slot.1);
        let sql = format!(
            "{}{}",
            first_value(&query, f.role, f.column, f.order),
            where_clause(condition.as_slice())
        );
        let mut cells = Vec::new();
        for &id in &members {
            let columns = [ColumnRole::Name, f.column]
                .into_iter()
                .chain(group_column(f.group));
            cells.extend(columns.map(|c| db.cell(f.role, id, c)));
        }
        Some(Body {
            answer: Answer::Text(db.name(f.role, members[0])),
            slots: vec![slot],
            cells,
            sql,
        })
    }

    /// Adds up the values of the oldest rows of group `x`, cut at a random year.
    fn sum_before(&mut self, f: &SumBefore, x: i64) -> Option<Body> {
        let (mut members, slot) = self.members(f.role, f.group, x)?;
        if members.len() < 2 {
            return None;
        }
        let db = &self.db;
        let year_of = |id: i64| db.int(f.role, id, f.year).unwrap_or_default();
        members.sort_by_key(|&id| year_of(id));
        // Keep the k oldest, k >= 2, where a year separates them from the rest.
        let years: Vec<i64> = members.iter().map(|&id| year_of(id)).collect();
        let taken = db.values(f.role, f.year);
        let (k, year) = self.cut(&years, (2, members.len()), &taken, false)?;
        members.truncate(k);
        let db = &self.db;
        let total: i64 = members
            .iter()
            .map(|&id| db.int(f.role, id, f.column).unwrap_or_default())
            .sum();
        let mut query = Query::new(db, f.role);
        group_join(&mut query, f.role, f.group);
        let (name, c, y) = (
            query.col(f.role, ColumnRole::Name),
            query.col(f.role, f.column),
            query.col(f.role, f.year),
        );
        let mut conditions: Vec<String> = group_condition(&query, f.role, f.group, &slot.1)
            .into_iter()
            .collect();
        conditions.push(format!("{y} < {year}"));
        let sql = format!(
            "SELECT SUM({c}) OVER () AS answer, {name}, {c}, {y} {}{}",
            query.from(),
            where_clause(&conditions)
        );
        let mut cells = Vec::new();
        for &id in &members {
            let columns = [ColumnRole::Name, f.column]
                .into_iter()
                .chain(group_column(f.group));
            cells.extend(columns.chain([f.year]).map(|c| db.cell(f.role, id, c)));
        }
        Some(Body {
            answer: Answer::Text(total.to_string()),
            slots: vec![slot, ("year", year.to_string())],
            cells,
            sql,
        })
    }

    /// A year strictly inside a term (never its first or last year, never after the present)
    /// in which no term of the `link` table starts or ends: the query compares both columns
    /// with it, and a threshold lies on no value of its column.
    fn inside_year(&mut self, link: TableRole, start: i64, end: Option<i64>) -> Option<i64> {
        let last = end.map_or(self.world.present_year, |e| e - 1);
        let mut taken = self.db.values(link, ColumnRole::StartYear);
        taken.extend(self.db.values(link, ColumnRole::EndYear));
        let free: Vec<i64> = (start + 1..=last).filter(|y| !taken.contains(y)).collect();
        if free.is_empty() {
            return None;
        }
        Some(free[self.rng.random_range(0..free.len())])
    }

    /// Names what term `x` points at in a random year inside it; `None` when a twin term
    /// covers that year too.
    fn term(&mut self, f: &Term, x: i64) -> Option<Body> {
        let start = self.db.int(f.link, x, ColumnRole::StartYear)?;
        let end = self.db.int(f.link, x, ColumnRole::EndYear);
        let year = self.inside_year(f.link, start, end)?;
        if self.has_twin(f, x, year) {
            return None;
        }
        let db = &self.db;
        let owner_name = db.name(f.subject.target, db.int(f.link, x, f.subject.column)?);
        let mut query = Query::new(db, f.link);
        query.join(f.link, f.subject);
        query.join(f.link, f.answer);
        let mut conditions = vec![format!(
            "{} = {}",
            query.col(f.subject.target, ColumnRole::Name),
            lit(&owner_name)
        )];
        let mut slots = Vec::new();
        let mut cells = vec![db.cell(f.link, x, f.answer.column)];
        for &key in f.keys {
            let value = db.text(f.link, x, key).unwrap_or_default();
            conditions.push(format!("{} = {}", query.col(f.link, key), lit(&value)));
            cells.push(db.cell(f.link, x, key));
            slots.push((key.as_str(), value));
        }
        let (s, e) = (
            query.col(f.link, ColumnRole::StartYear),
            query.col(f.link, ColumnRole::EndYear),
        );
        conditions.push(format!("{s} <= {year}"));
        conditions.push(format!("({e} IS NULL OR {e} >= {year})"));
        cells.push(db.cell(f.link, x, ColumnRole::StartYear));
        if end.is_some() {
            cells.push(db.cell(f.link, x, ColumnRole::EndYear));
        }
        slots.extend([(f.slot, owner_name), ("year", year.to_string())]);
        let answer = db.name(f.answer.target, db.int(f.link, x, f.answer.column)?);
        let sql = format!(
            "SELECT {} {}{}",
            query.col(f.answer.target, ColumnRole::Name),
            query.from(),
            where_clause(&conditions)
        );
        Some(Body {
            slots,
            answer: Answer::Text(answer),
            cells,
            sql,
        })
    }

    /// Whether another term of the same subject, alike in the keys, also covers `year`.
    fn has_twin(&self, f: &Term, x: i64, year: i64) -> bool {
        let db = &self.db;
        let alike =
            |q: i64, column: ColumnRole| db.text(f.link, q, column) == db.text(f.link, x, column);
        let covers = |q: i64| {
            db.int(f.link, q, ColumnRole::StartYear)
                .is_some_and(|s| s <= year)
                && db
                    .int(f.link, q, ColumnRole::EndYear)
                    .is_none_or(|e| e >= year)
        };
        db.ids(f.link).into_iter().any(|q| {
            q != x && alike(q, f.subject.column) && f.keys.iter().all(|&k| alike(q, k)) && covers(q)
        })
    }

    /// The census rows of settlement `s`, in id order (oldest census first).
    fn censuses_of(&self, s: i64) -> Vec<i64> {
        let (db, c) = (&self.db, TableRole::Census);
        db.ids(c)
            .into_iter()
            .filter(|&id| db.int(c, id, ColumnRole::Settlement) == Some(s))
            .collect()
    }

    /// The count of a random census of the settlement reached from row `x`.
    fn census(&mut self, f: &Census, x: i64) -> Option<Body> {
        let (place, mut cells) = self.db.walk(f.subject, x, f.hops)?;
        let rows = self.censuses_of(place);
        let row = *rows.get(self.rng.random_range(0..rows.len().max(1)))?;
        let (db, c) = (&self.db, TableRole::Census);
        let year = db.int(c, row, ColumnRole::Year)?;
        let answer = db.int(c, row, ColumnRole::Population)?;
        cells.extend(
            [
                ColumnRole::Settlement,
                ColumnRole::Year,
                ColumnRole::Population,
            ]
            .map(|column| db.cell(c, row, column)),
        );
        let name = db.name(f.subject, x);
        Some(Body {
            slots: vec![(f.slot, name.clone()), ("year", year.to_string())],
            answer: Answer::Text(answer.to_string()),
            cells,
            sql: self.census_sql(f, &name, year),
        })
    }

    /// `SELECT c.population FROM subject t0 JOIN ... tn JOIN censuses c ON c.settlement = tn.id
    /// WHERE t0.name = ... AND c.year = ...`; [`Query`] joins only from a base to what it
    /// references, and a census references its settlement from the other side.
    fn census_sql(&self, f: &Census, name: &str, year: i64) -> String {
        let db = &self.db;
        let c = TableRole::Census;
        let mut from = format!("FROM {} t0", db.table(f.subject).name);
        let mut role = f.subject;
        for (i, hop) in f.hops.iter().enumerate() {
            from.push_str(&format!(
                " JOIN {} t{} ON t{}.id = t{i}.{}",
                db.table(hop.target).name,
                i + 1,
                i + 1,
                db.column(role, hop.column).name
            ));
            role = hop.target;
        }
        let last = f.hops.len();
        format!(
            "SELECT c.{} {from} JOIN {} c ON c.{} = t{last}.id WHERE t0.{} = {} AND c.{} = {year}",
            db.column(c, ColumnRole::Population).name,
            db.table(c).name,
            db.column(c, ColumnRole::Settlement).name,
            db.column(f.subject, ColumnRole::Name).name,
            lit(name),
            db.column(c, ColumnRole::Year).name,
        )
    }

    /// Picks how many of `years` (sorted, latest first for a cut `after`) to keep, in
    /// `lo..=hi`, so that a year no row of the compared column holds (`taken`: every value it
    /// has in the world) separates the kept ones from the rest; returns that count and the
    /// year, the free one nearest the kept rows ([`threshold::between`]), or `None`.
    fn cut(
        &mut self,
        years: &[i64],
        (lo, hi): (usize, usize),
        taken: &BTreeSet<i64>,
        after: bool,
    ) -> Option<(usize, i64)> {
        let cuts: Vec<(usize, i64)> = (lo.max(1)..=hi.min(years.len()))
            .filter_map(|k| {
                let year = threshold::between(taken, years[k - 1], years.get(k).copied(), after)?;
                Some((k, year))
            })
            .collect();
        if cuts.is_empty() {
            return None;
        }
        Some(cuts[self.rng.random_range(0..cuts.len())])
    }

    /// The rows a table lists, in id order, and the slot its rows turn on: the group, or the
    /// year of a cut.
    fn listing(&mut self, f: &Table, x: i64) -> Option<(Vec<i64>, (&'static str, String))> {
        let (column, after) = match f.rows {
            Rows::Group(group) => {
                let (members, slot) = self.members(f.role, group, x)?;
                let (lo, hi) = f.size;
                return (lo..=hi)
                    .contains(&members.len())
                    .then_some((members, slot));
            }
            Rows::Before(column) => (column, false),
            Rows::After(column) => (column, true),
        };
        let db = &self.db;
        let year_of = |id: i64| db.int(f.role, id, column).unwrap_or_default();
        let mut members = db.ids(f.role);
        if after {
            members.sort_by_key(|&id| Reverse(year_of(id)));
        } else {
            members.sort_by_key(|&id| year_of(id));
        }
        let years: Vec<i64> = members.iter().map(|&id| year_of(id)).collect();
        let taken = db.values(f.role, column);
        let (k, year) = self.cut(&years, f.size, &taken, after)?;
        members.truncate(k);
        Some((members, ("year", year.to_string())))
    }

    /// Lists the rows of the table, one column per path, sorted by name.
    fn table(&mut self, f: &Table, x: i64) -> Option<Body> {
        if !f
            .columns
            .iter()
            .all(|p| self.db.has(p.end(f.role), p.column))
        {
            return None;
        }
        let (mut members, slot) = self.listing(f, x)?;
        let db = &self.db;
        members.sort_by_cached_key(|&id| db.name(f.role, id));
        let mut rows = Vec::new();
        let mut cells = Vec::new();
        for &id in &members {
            let mut row = Vec::new();
            for path in f.columns {
                let (value, stated) = db.follow(f.role, id, path)?;
                row.push(value);
                cells.extend(stated);
            }
            rows.push(row);
        }
        let (columns, metrics) = self.headers(f)?;
        let mut known = vec![slot.clone(), ("world", self.world.name.clone())];
        if let Some(extra) = f.columns.iter().find(|p| p.column == ColumnRole::Extra) {
            let end = extra.end(f.role);
            known.push(("extra", db.column(end, ColumnRole::Extra).label.clone()));
        }
        let slots = f
            .slots
            .iter()
            .map(|&name| {
                let found = known.iter().find(|(n, _)| *n == name);
                (name, found.map(|(_, v)| v.clone()).unwrap_or_default())
            })
            .collect();
        Some(Body {
            slots,
            answer: Answer::Table {
                columns,
                metrics,
                rows,
            },
            cells,
            sql: self.table_sql(f, &slot.1),
        })
    }

    /// The query of a table task; `value` is the group's name or the year of the cut.
    fn table_sql(&self, f: &Table, value: &str) -> String {
        let mut query = Query::new(&self.db, f.role);
        for path in f.columns {
            query.join_path(f.role, path);
        }
        let condition = match f.rows {
            Rows::Group(group) => {
                group_join(&mut query, f.role, group);
                group_condition(&query, f.role, group, value).unwrap_or_default()
            }
            Rows::Before(column) => format!("{} < {value}", query.col(f.role, column)),
            Rows::After(column) => format!("{} > {value}", query.col(f.role, column)),
        };
        let select: Vec<String> = f
            .columns
            .iter()
            .map(|p| query.col(p.end(f.role), p.column))
            .collect();
        format!(
            "SELECT {} {} WHERE {condition} ORDER BY {}",
            select.join(", "),
            query.from(),
            query.col(f.role, ColumnRole::Name)
        )
    }

    /// The headers and metrics of a table's columns. A value read through references whose
    /// header another column has too is headed by the reference as well ("Province
    /// population" beside a town's own "Population"); `None` if two headers still agree.
    fn headers(&self, f: &Table) -> Option<(Vec<String>, Vec<&'static str>)> {
        self.headers_of(f.role, f.columns)
    }

    /// The headers and metrics of the columns `paths` of rows of `role`.
    pub(super) fn headers_of(
        &self,
        role: TableRole,
        paths: &[Path],
    ) -> Option<(Vec<String>, Vec<&'static str>)> {
        let (mut columns, metrics): (Vec<String>, Vec<&'static str>) =
            paths.iter().map(|p| self.header(role, p)).unzip();
        let plain = columns.clone();
        for (header, path) in columns.iter_mut().zip(paths) {
            let shared = plain.iter().filter(|h| *h == header).count() > 1;
            if shared && let Some((last, before)) = path.hops.split_last() {
                let from = before.last().map_or(role, |h| h.target);
                let reference = cap(&self.db.column(from, last.column).label);
                *header = format!("{reference} {}", header.to_lowercase());
            }
        }
        let distinct: BTreeSet<&String> = columns.iter().collect();
        (distinct.len() == columns.len()).then_some((columns, metrics))
    }

    /// The header and metric of a table column: the row's own name is headed by the table's
    /// singular, any other value by the label of the cell that states it.
    fn header(&self, role: TableRole, path: &Path) -> (String, &'static str) {
        let db = &self.db;
        if path.is_own_name() {
            return (cap(&db.table(role).singular), "exact");
        }
        let end = path.end(role);
        let (labelled, column) = match path.hops.split_last() {
            Some((last, before)) if path.column == ColumnRole::Name => {
                (before.last().map_or(role, |h| h.target), last.column)
            }
            _ => (end, path.column),
        };
        let label = cap(&db.column(labelled, column).label);
        let number = path.column != ColumnRole::Name
            && db.column(end, path.column).sql_type == SqlType::Integer;
        (label, if number { "number" } else { "exact" })
    }
}

/// `SELECT FIRST_VALUE(name) OVER (ORDER BY column) AS answer, name, column FROM ...`.
fn first_value(query: &Query<'_>, role: TableRole, column: ColumnRole, order: Order) -> String {
    let (n, c) = (query.col(role, ColumnRole::Name), query.col(role, column));
    let desc = match order {
        Order::Smallest => "",
        Order::Largest => " DESC",
    };
    format!(
        "SELECT FIRST_VALUE({n}) OVER (ORDER BY {c}{desc}) AS answer, {n}, {c} {}",
        query.from()
    )
}

/// Joins the table that names a group, if it needs one.
fn group_join(query: &mut Query<'_>, role: TableRole, group: Group) {
    if let Group::Parent { hop, .. } = group {
        query.join(role, hop);
    }
}

/// The condition that selects a group's rows, given the group's name.
fn group_condition(
    query: &Query<'_>,
    role: TableRole,
    group: Group,
    value: &str,
) -> Option<String> {
    match group {
        Group::Parent { hop, .. } => Some(format!(
            "{} = {}",
            query.col(hop.target, ColumnRole::Name),
            lit(value)
        )),
        Group::Value { column } => Some(format!("{} = {}", query.col(role, column), lit(value))),
    }
}

/// The column of a member that places it in its group.
fn group_column(group: Group) -> Option<ColumnRole> {
    match group {
        Group::Parent { hop, .. } => Some(hop.column),
        Group::Value { column } => Some(column),
    }
}

/// ` WHERE a AND b`, or nothing without conditions.
fn where_clause(conditions: &[String]) -> String {
    if conditions.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", conditions.join(" AND "))
    }
}

fn cap(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
