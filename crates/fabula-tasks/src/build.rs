//! Building the tasks of one world from its typed model and its rendered pages.
//!
//! Every task template is a [`Family`](family::Family) value (`family.rs`): what its question is
//! about, where its answer lies in the world and the shape of that answer. The driver in
//! `draft.rs` turns a family's candidates (the ids a question is about) into [`Draft`]s, and a
//! candidate becomes a draft only when its answer is unique in the database: no ties in
//! comparisons and extremes, a year strictly inside one term for temporal questions, a row count
//! of 5 to 40 for tables. The draft names the cells its answer rests on; the evidence is a small
//! set of pages whose recorded facts state all of them, chosen greedily and then pruned. Each
//! task carries a SQL query over the world's own tables that recomputes its answer (see
//! [`crate::check`] for the convention). A question is kept only when it maps back to its
//! phrasing and slot values, so the blind baseline and the baseline agent read it exactly.

mod db;
mod draft;
mod family;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use rand::RngExt;
use rand::seq::SliceRandom;
use serde_json::{Value, json};

use fabula_file::{Page, PageKind, Task, TaskKind};
use fabula_world::World;
use fabula_world::seed::{self, WorldRng};

use crate::phrasings;

use self::db::{Cell, Db};
use self::draft::{Body, Candidate};
use self::family::Family;

/// How many short-answer tasks of each kind a world gets, in the order they are drawn.
const SHORT_TARGETS: &[(TaskKind, usize)] = &[
    (TaskKind::Lookup, 6),
    (TaskKind::MultiHop, 5),
    (TaskKind::Compare, 4),
    (TaskKind::Aggregate, 3),
    (TaskKind::Temporal, 4),
];
/// The fewest short-answer tasks a world must have; lookups fill any gap.
const MIN_SHORT: usize = 22;
/// The most table tasks a world gets.
const MAX_TABLES: usize = 4;

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
    family: &'static Family,
    body: Body,
}

/// The state of building one world's tasks.
struct Builder<'a> {
    world: &'a World,
    db: Db,
    pages: &'a [Page],
    /// Cell -> indices of the pages that state it.
    stated_on: BTreeMap<Cell, Vec<usize>>,
    rng: WorldRng,
    nouns: Vec<(&'static str, String)>,
}

impl<'a> Builder<'a> {
    fn new(world: &'a World, pages: &'a [Page]) -> Builder<'a> {
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
            db: Db::new(world),
            pages,
            stated_on,
            rng: seed::rng(world.master_seed, world.id, "tasks"),
            nouns,
        }
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
        let rank = |page: usize| match self.pages[page].kind {
            PageKind::Entity => 0,
            PageKind::List => 1,
            PageKind::Category => 2,
            PageKind::History => 3,
            PageKind::News => 4,
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
    fn finish(&mut self, draft: Draft, n: usize) -> Option<Task> {
        let Draft { family, body } = draft;
        let evidence = self.evidence(&body.cells)?;
        let template = phrasings::template(family.kind.as_str(), family.name);
        let index = self.rng.random_range(0..template.phrasings.len());
        let mut values: Vec<(&str, String)> = body.slots.clone();
        values.extend(self.nouns.iter().cloned());
        values.push(("world", self.world.name.clone()));
        let question = phrasings::fill(&template.phrasings[index], &values);
        let matched = phrasings::match_question(&question)?;
        if matched.phrasing_id != format!("{}.{}.{index}", family.kind.as_str(), family.name) {
            return None;
        }
        for (name, value) in &body.slots {
            if matched.slot(name).is_some_and(|v| v != value) {
                return None;
            }
        }
        let urls: Vec<&str> = evidence
            .iter()
            .map(|&i| self.pages[i].url.as_str())
            .collect();
        Some(Task {
            id: format!("w{:05}-t{n:03}", self.world.id),
            kind: family.kind,
            question,
            answer: body.answer.to_json().to_string(),
            evidence: serde_json::to_string(&urls).expect("serialisable"),
            hops: template.hops,
            sql: body.sql,
        })
    }

    /// Draws up to `target` tasks of one kind, cycling over its templates so each gets a turn.
    fn draw_kind(
        &mut self,
        kind: TaskKind,
        target: usize,
        tasks: &mut Vec<Task>,
        seen: &mut BTreeSet<String>,
    ) -> usize {
        let families: Vec<&'static Family> = phrasings::templates()[kind.as_str()]
            .keys()
            .filter_map(|name| family::family(kind.as_str(), name))
            .collect();
        let mut pools: Vec<(&'static Family, Vec<Candidate>)> = families
            .into_iter()
            .map(|f| (f, self.candidates(f)))
            .filter(|(_, c)| !c.is_empty())
            .collect();
        pools.shuffle(&mut self.rng);
        let mut made = 0;
        while made < target && pools.iter().any(|(_, c)| !c.is_empty()) {
            for (family, pool) in &mut pools {
                if made >= target {
                    break;
                }
                if pool.is_empty() {
                    continue;
                }
                let pick = self.rng.random_range(0..pool.len());
                let cand = pool.swap_remove(pick);
                let Some(draft) = self.draft(family, cand) else {
                    continue;
                };
                let Some(task) = self.finish(draft, tasks.len()) else {
                    continue;
                };
                // One question per template and subject: no two tasks ask the same thing.
                if !seen.insert(format!("{}.{}:{}", kind.as_str(), family.name, task.sql)) {
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
pub fn build_tasks(world: &World, pages: &[Page]) -> Vec<Task> {
    let mut b = Builder::new(world, pages);
    let mut tasks = Vec::new();
    let mut seen = BTreeSet::new();
    let mut short = 0;
    for &(kind, target) in SHORT_TARGETS {
        short += b.draw_kind(kind, target, &mut tasks, &mut seen);
    }
    for kind in [TaskKind::Lookup, TaskKind::MultiHop] {
        if short < MIN_SHORT {
            short += b.draw_kind(kind, MIN_SHORT - short, &mut tasks, &mut seen);
        }
    }
    b.draw_kind(TaskKind::Table, MAX_TABLES, &mut tasks, &mut seen);
    tasks
}
