//! Building the tasks of one world from its typed model and its rendered pages.
//!
//! Every task template is a [`Family`](family::Family) value (`family.rs`): what its question is
//! about, where its answer lies in the world and the shape of that answer. The driver in
//! `draft.rs` turns a family's candidates (the ids a question is about) into [`Draft`]s, and a
//! candidate becomes a draft only when its answer is unique in the database: no ties in
//! comparisons and extremes, a year strictly inside one term for temporal questions, a row count
//! within the family's size for tables (12 to 40 rows, 30 to 95 for the wide ones). The draft
//! names the cells its answer rests on; the evidence is a small set of pages whose recorded
//! facts state all of them, chosen greedily and then pruned. Each task carries a SQL query over the world's own tables that recomputes its answer (see
//! [`crate::check`] for the convention). A question is kept only when it maps back to its
//! phrasing and slot values, so the blind baseline and the baseline agent read it exactly.

mod db;
mod draft;
mod family;
mod frontier;
mod identify;
#[cfg(test)]
mod tests;
mod threshold;

use std::cell::OnceCell;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};

use rand::RngExt;
use rand::seq::SliceRandom;
use serde_json::{Value, json};

use fabula_file::{Page, PageKind, Task, TaskKind, Tier};
use fabula_world::World;
use fabula_world::seed::{self, WorldRng};

use crate::difficulty::{self, all_shown};
use crate::phrasings;

use self::db::{Cell, Db};
use self::draft::{Body, Candidate};
use self::family::Family;

/// How many tasks of each kind a world asks for, in the order they are drawn: each world draws
/// its own number from the range, so the mix varies by world.
const TARGETS: &[(TaskKind, (usize, usize))] = &[
    (TaskKind::Lookup, (3, 7)),
    (TaskKind::MultiHop, (7, 12)),
    (TaskKind::Compare, (3, 7)),
    (TaskKind::Aggregate, (8, 13)),
    (TaskKind::Temporal, (4, 8)),
    (TaskKind::Identify, (5, 8)),
    (TaskKind::Table, (7, 12)),
];
/// Frontier tasks per other task (3 to 10: a share of 23% of the whole).
const FRONTIER_SHARE: (usize, usize) = (3, 10);
/// The rounds of frontier drafts over a world's people: each round draws other clues, and few
/// draws meet every bound of a frontier question.
const FRONTIER_ROUNDS: usize = 12;
/// The least share (in percent) of a world's tasks that one page answers: easy whatever the
/// search shows (`difficulty.rs`), with a margin over the 20% every world must have.
const ONE_PAGE_SHARE: usize = 22;
/// The fewest rows the table of a short name answer must have, so that guessing a row of it
/// at random is right at most one time in 20 (comparisons name their options and are exempt).
const MIN_GUESS_ROWS: usize = 20;
/// The fewest tasks a world must have; identify questions, aggregates, tables, multi-hop
/// questions and then lookups fill any gap.
const MIN_TASKS: usize = crate::MIN_TASKS;

/// A gold answer before it becomes JSON.
#[derive(Debug, Clone)]
enum Answer {
    Text(String),
    /// A set of names ("Name every ..."), sorted; scored by item F1.
    List(Vec<String>),
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
            Answer::List(items) => Value::from(items.clone()),
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
    stated_on: HashMap<Cell, Vec<usize>>,
    rng: WorldRng,
    nouns: Vec<(&'static str, String)>,
    /// What identify clues can say about each person, read from the world once.
    people: OnceCell<Vec<identify::Profile>>,
    /// What frontier clues can say about each person, read from the world once.
    frontier: OnceCell<frontier::People>,
    /// The people a frontier question was written about: one question each.
    frontier_asked: BTreeSet<i64>,
    /// The people a name-all frontier question or a frontier table names already.
    frontier_set_asked: BTreeSet<i64>,
    /// Whether a frontier question may be about a person asked about already.
    frontier_again: bool,
    /// Every row name with the size of its table ([`Db::name_table_sizes`]), read once.
    name_sizes: OnceCell<BTreeMap<String, usize>>,
}

impl<'a> Builder<'a> {
    fn new(world: &'a World, pages: &'a [Page]) -> Builder<'a> {
        let mut stated_on: HashMap<Cell, Vec<usize>> = HashMap::new();
        for (i, page) in pages.iter().enumerate() {
            for f in &page.facts {
                stated_on
                    .entry((f.table.clone(), f.row_id, f.column.clone()))
                    .or_default()
                    .push(i);
            }
        }
        let nouns = phrasings::theme_nouns(&world.theme);
        Builder {
            world,
            db: Db::new(world),
            pages,
            stated_on,
            rng: seed::rng(world.master_seed, world.id, "tasks"),
            nouns,
            people: OnceCell::new(),
            frontier: OnceCell::new(),
            frontier_asked: BTreeSet::new(),
            frontier_set_asked: BTreeSet::new(),
            frontier_again: false,
            name_sizes: OnceCell::new(),
        }
    }

    /// Whether a short answer names a row of a table so small that a random row of it is
    /// right more often than one time in [`MIN_GUESS_ROWS`].
    fn easy_guess(&self, answer: &str) -> bool {
        let sizes = self.name_sizes.get_or_init(|| self.db.name_table_sizes());
        sizes.get(answer).is_some_and(|n| *n < MIN_GUESS_ROWS)
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
        let rank = |page: usize| -> u8 {
            match self.pages[page].kind {
                PageKind::Entity => 0,
                PageKind::List => 1,
                PageKind::Category => 2,
                PageKind::History => 3,
                PageKind::News => 4,
            }
        };
        let mut covered = vec![false; needed.len()];
        let new_cells = |page: usize, covered: &[bool]| {
            page_cells[&page].iter().filter(|&&c| !covered[c]).count()
        };
        // Pages by (new cells, best rank, first page), the new cells as last counted: a page
        // only loses new cells as others are chosen, so the top is the best once its count
        // is current (a lazy greedy, choosing what a full scan would).
        let mut queue: BinaryHeap<(usize, Reverse<u8>, Reverse<usize>)> = page_cells
            .keys()
            .map(|&p| (new_cells(p, &covered), Reverse(rank(p)), Reverse(p)))
            .collect();
        let mut left = needed.len();
        let mut chosen: Vec<usize> = Vec::new();
        while left > 0 {
            let (gain, page) = loop {
                let (counted, rank, Reverse(page)) = queue.pop()?;
                let now = new_cells(page, &covered);
                if now == counted {
                    break (now, page);
                }
                queue.push((now, rank, Reverse(page)));
            };
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
        if evidence.len() < family.min_pages() {
            return None;
        }
        let template = phrasings::template(family.kind.as_str(), family.name);
        let index = self.rng.random_range(0..template.phrasings.len());
        let mut values: Vec<(&str, String)> = body.slots.clone();
        values.extend(self.nouns.iter().cloned());
        values.push(("world", self.world.name.clone()));
        let question = phrasings::fill(&template.phrasings[index], &values);
        match &body.answer {
            Answer::Text(answer)
                if family.kind != TaskKind::Compare
                    && (answer_in_question(&question, answer) || self.easy_guess(answer)) =>
            {
                return None;
            }
            Answer::List(items) if items.iter().any(|a| answer_in_question(&question, a)) => {
                return None;
            }
            _ => {}
        }
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
        let mut task = Task {
            id: format!("w{:05}-t{n:03}", self.world.id),
            kind: family.kind,
            question,
            answer: body.answer.to_json().to_string(),
            evidence: serde_json::to_string(&urls).expect("serialisable"),
            hops: template.hops,
            sql: body.sql,
            tier: Tier::Easy,
            effort: None,
        };
        // The tier without search; the dataset generator measures it again with the world's
        // index, which only makes it easier (the answer may show in the question's results).
        task.tier = difficulty::measure_known(&task, None, family.is_frontier()).tier();
        Some(task)
    }

    /// Draws up to `target` tasks of one kind, cycling over its templates so each gets a turn.
    fn draw_kind(
        &mut self,
        kind: TaskKind,
        target: usize,
        tasks: &mut Vec<Task>,
        seen: &mut BTreeSet<String>,
    ) -> usize {
        let mut families: Vec<&'static Family> = phrasings::templates()[kind.as_str()]
            .keys()
            .filter_map(|name| family::family(kind.as_str(), name))
            .filter(|f| !f.is_frontier())
            .collect();
        // WideSearch-scale tables get two turns a round, so they are most of a world's tables.
        let wide: Vec<&'static Family> = families.iter().copied().filter(|f| f.is_wide()).collect();
        families.extend(wide);
        self.draw_families(families, target, tasks, seen)
    }

    /// Draws up to `target` frontier tasks.
    fn draw_frontier(
        &mut self,
        target: usize,
        tasks: &mut Vec<Task>,
        seen: &mut BTreeSet<String>,
    ) -> usize {
        let families = [
            family::family(TaskKind::Identify.as_str(), family::FRONTIER),
            family::family(TaskKind::Aggregate.as_str(), family::FRONTIER_SET),
            family::family(TaskKind::Table.as_str(), family::FRONTIER_TABLE),
        ];
        // A person the clues drawn for them could not single out may be singled out by other
        // draws: further rounds try everyone not yet asked about again.
        let mut made = 0;
        for round in 0..FRONTIER_ROUNDS {
            if made >= target {
                break;
            }
            // The last round may ask about a person again, with other clues, where the world
            // has too few people to reach its share otherwise.
            self.frontier_again = round + 1 == FRONTIER_ROUNDS;
            let families = families.into_iter().flatten().collect();
            made += self.draw_families(families, target - made, tasks, seen);
        }
        made
    }

    /// Draws up to `target` tasks of some families, cycling over them so each gets a turn.
    fn draw_families(
        &mut self,
        families: Vec<&'static Family>,
        target: usize,
        tasks: &mut Vec<Task>,
        seen: &mut BTreeSet<String>,
    ) -> usize {
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
                let kind = family.kind.as_str();
                if !seen.insert(format!("{kind}.{}:{}", family.name, task.sql)) {
                    continue;
                }
                tasks.push(task);
                made += 1;
            }
        }
        made
    }
}

/// Builds the tasks of a world from its pages: a mix of every kind drawn per world (see
/// `TARGETS`), at least `MIN_TASKS` in all when the world allows, deterministic for a
/// given world.
pub fn build_tasks(world: &World, pages: &[Page]) -> Vec<Task> {
    let mut b = Builder::new(world, pages);
    let mut tasks = Vec::new();
    let mut seen = BTreeSet::new();
    let targets: Vec<(TaskKind, usize)> = TARGETS
        .iter()
        .map(|&(kind, (lo, hi))| (kind, b.rng.random_range(lo..=hi)))
        .collect();
    // A kind that fell short of its target has tried every candidate it has; drawing it
    // again to fill a gap would only redo that work.
    let mut exhausted = BTreeSet::new();
    for (kind, target) in targets {
        if b.draw_kind(kind, target, &mut tasks, &mut seen) < target {
            exhausted.insert(kind);
        }
    }
    // The frontier tier: at least a fifth of a world's tasks where the world allows.
    let frontier = (tasks.len().max(MIN_TASKS) * FRONTIER_SHARE.0).div_ceil(FRONTIER_SHARE.1);
    b.draw_frontier(frontier, &mut tasks, &mut seen);
    for kind in [
        TaskKind::Identify,
        TaskKind::Aggregate,
        TaskKind::Table,
        TaskKind::MultiHop,
        TaskKind::Lookup,
    ] {
        if tasks.len() < MIN_TASKS && !exhausted.contains(&kind) {
            let gap = MIN_TASKS - tasks.len();
            b.draw_kind(kind, gap, &mut tasks, &mut seen);
        }
    }
    // The easy tier: lookups and latest-of-a-history questions top up the one-page share.
    for kind in [TaskKind::Lookup, TaskKind::Temporal] {
        // x more one-page tasks reach the share p when (k + x) / (n + x) >= p.
        let one_page = tasks.iter().filter(|t| evidence_pages(t) <= 1).count();
        let gap = (tasks.len() * ONE_PAGE_SHARE)
            .saturating_sub(one_page * 100)
            .div_ceil(100 - ONE_PAGE_SHARE);
        if gap > 0 {
            b.draw_kind(kind, gap, &mut tasks, &mut seen);
        }
    }
    // The frontier's effort, as the plan that kept each question prices it.
    for task in &mut tasks {
        if difficulty::is_frontier(&task.question) {
            task.effort = b.frontier_effort(&task.question);
        }
    }
    tasks
}

/// The pages a task's evidence lists.
fn evidence_pages(task: &Task) -> usize {
    serde_json::from_str::<Vec<String>>(&task.evidence).map_or(0, |pages| pages.len())
}

/// Whether a short answer shows in its own question, as `fabula audit` measures it
/// ([`all_shown`]): the whole answer, or a word of a name answer ("Which town hosted Grithy
/// Cup?" answered by "Grithy").
fn answer_in_question(question: &str, answer: &str) -> bool {
    let shown = |value: &str| all_shown(&[value.to_owned()], question);
    if shown(answer) {
        return true;
    }
    let is_name = answer.chars().any(char::is_alphabetic);
    is_name
        && answer
            .split_whitespace()
            .filter(|w| w.chars().count() >= 4 && w.chars().next().is_some_and(char::is_uppercase))
            .any(shown)
}
