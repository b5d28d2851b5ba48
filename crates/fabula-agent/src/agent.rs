//! A rule-based baseline search agent that uses only the agent-facing REST API's two tools,
//! search and extract ([`Tools`]; over HTTP by default).
//!
//! The agent reads the question's named values with [`fabula_vocab::phrasings::match_question`]
//! (the phrasing bank is public, as a question parser would be), then follows its template's plan
//! from `templates/tasks/questions.toml`, parsed into steps by the `plan` module: search an
//! entity's name and open the page titled so, read or follow infobox rows (a row or sentence that
//! names an entity in plain text, not as a link, is followed by searching the name and opening
//! the result titled so, as an outside reader would), scan an organisation's
//! tables for the row whose years enclose a date, open every entity a page lists and compare what
//! they say, test an identify question's clues person by person (the `identify` module), read
//! a settlement's count off the report of one census.
//! Templates without a plan are answered with an empty string. It never sees gold answers,
//! evidence or SQL.

mod frontier;
mod identify;
mod lists;
mod plan;
mod read;

use std::cell::RefCell;
use std::collections::BTreeMap;

use fabula_score::{PredictionRecord, TaskRecord};
use fabula_vocab::english::without_article;
use fabula_vocab::phrasings::{QuestionMatch, match_question};
use serde_json::Value;

use crate::http::{ClientConfig, HttpClient};
use crate::tools::Tools;
use crate::{Error, Result};
use plan::{Extreme, Label, PathLabel, Side, Step};
use read::Read;

/// How the baseline agent searches and reads.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    pub client: ClientConfig,
    /// Results asked for per search.
    pub top_k: usize,
    /// Characters per extract window.
    pub max_chars: usize,
}

impl Default for AgentConfig {
    fn default() -> AgentConfig {
        AgentConfig {
            client: ClientConfig::default(),
            top_k: 10,
            max_chars: 100_000,
        }
    }
}

/// Runs the baseline agent on every task against the server at `addr` (`host:port`) and returns
/// one prediction per task, in task order. Only a broken connection is an error.
pub fn run_baseline(
    addr: &str,
    tasks: &[TaskRecord],
    config: &AgentConfig,
) -> Result<Vec<PredictionRecord>> {
    let client = HttpClient::new(addr, config.client.clone());
    run_baseline_with(&client, tasks, config)
}

/// Runs the baseline agent on every task with the given tools (the REST API's, or a caller's
/// in-process ones) and returns one prediction per task, in task order. `config.client` is not
/// used. Only an error other than a refused call ([`Error::Status`]) stops the run.
pub fn run_baseline_with(
    tools: &dyn Tools,
    tasks: &[TaskRecord],
    config: &AgentConfig,
) -> Result<Vec<PredictionRecord>> {
    tasks
        .iter()
        .map(|task| Ok(prediction(task, answer_task(tools, config, task)?)))
        .collect()
}

/// A task's prediction: the answer as a JSON string.
pub(crate) fn prediction(task: &TaskRecord, answer: String) -> PredictionRecord {
    PredictionRecord {
        task_id: task.id.clone(),
        answer: Value::String(answer),
    }
}

/// [`run_baseline`], with the tool calls (searches and pages read) each task took.
pub fn run_baseline_counted(
    addr: &str,
    tasks: &[TaskRecord],
    config: &AgentConfig,
) -> Result<Vec<(PredictionRecord, usize)>> {
    let client = HttpClient::new(addr, config.client.clone());
    tasks
        .iter()
        .map(|task| {
            let before = client.calls();
            let record = prediction(task, answer_task(&client, config, task)?);
            Ok((record, client.calls() - before))
        })
        .collect()
}

/// Answers one task; a step that finds nothing or a server error status ends the attempt with
/// no answer.
fn answer_task(tools: &dyn Tools, config: &AgentConfig, task: &TaskRecord) -> Result<String> {
    let Some(question) = match_question(&task.question) else {
        return Ok(String::new());
    };
    let Ok(world) = task.world.parse::<u32>() else {
        return Ok(String::new());
    };
    let steps = plan::plan(&question.kind, &question.template);
    if steps.is_empty() {
        return Ok(String::new());
    }
    let mut run = Run {
        tools,
        config,
        world,
        question,
        page: None,
        reads: Vec::new(),
        answer: None,
        cache: RefCell::new(BTreeMap::new()),
        found: RefCell::new(BTreeMap::new()),
    };
    for (i, step) in steps.iter().enumerate() {
        if let Some(columns) = lists::needed_columns(step, &steps[i + 1..]) {
            match run.complete_list(&columns) {
                Ok(()) | Err(Error::Status { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        match run.step(step) {
            Ok(true) => {}
            Ok(false) | Err(Error::Status { .. }) => return Ok(String::new()),
            Err(e) => return Err(e),
        }
    }
    Ok(run.answer.unwrap_or_default())
}

/// One open page.
struct Page {
    title: String,
    content: String,
}

/// What one run of a plan has read.
struct Run<'a> {
    tools: &'a dyn Tools,
    config: &'a AgentConfig,
    world: u32,
    question: QuestionMatch,
    page: Option<Page>,
    reads: Vec<Read>,
    answer: Option<String>,
    /// The pages this run has read, by url: (title, Markdown). One task's pages, so bounded by
    /// what one plan reads.
    cache: RefCell<BTreeMap<String, (String, String)>>,
    /// The names this run has searched to follow a plain mention, and the url of the result
    /// titled so (none when no result was).
    found: RefCell<BTreeMap<String, Option<String>>>,
}

impl Run<'_> {
    /// Runs one step; `Ok(false)` stops the plan without an answer.
    fn step(&mut self, step: &Step) -> Result<bool> {
        match step {
            Step::Open { slot } => match self.question.slot(slot).map(str::to_owned) {
                Some(name) => self.open_name(&name),
                None => Ok(false),
            },
            Step::OpenTitle { title } => self.open_name(&self.fill_slots(title)),
            Step::Follow(label) => {
                let url = match self.infobox_cell(label) {
                    Some(cell) => self.cell_url(&cell)?,
                    None => None,
                };
                self.open_found(url)
            }
            Step::Read(label) => Ok(self.read(label)),
            Step::Pick(extreme) => Ok(self.answer_with(read::pick(&self.reads, *extreme))),
            Step::People => self.open_found(self.content().and_then(read::people_url)),
            Step::Winner => self.open_found(self.content().and_then(read::winner_url)),
            Step::During { year, filter } => Ok(self.during(year, filter.as_deref())),
            Step::Column {
                name,
                extreme,
                filter,
            } => Ok(self.column(name, *extreme, filter.as_deref())),
            Step::Each(labels) => self.each(labels),
            Step::Rows { side, column } => Ok(self.rows(*side, column)),
            Step::Table { header } => Ok(self.table(header)),
            Step::SumBefore { year } => Ok(self.sum_before(year)),
            Step::CountEach { heading } => self.count_each(heading),
            Step::CountRows {
                side,
                column,
                heading,
            } => self.count_rows(*side, column, heading),
            Step::Identify => self.identify(),
            Step::Frontier { all } => self.frontier(*all),
            Step::FrontierEach { labels } => self.frontier_each(labels),
            Step::EachRow {
                side,
                column,
                labels,
            } => self.each_row(*side, column, labels),
            Step::EachUnder { heading, label } => self.each_under(heading, label),
            Step::EachMatch {
                slot,
                column,
                labels,
            } => self.each_match(slot, column, labels),
            Step::CountBefore { year } => Ok(self.count_before(year)),
            Step::Total => Ok(self.answer_with(Some(read::total(&self.reads).to_string()))),
            Step::Names { before } => Ok(self.names(before.as_deref())),
            Step::Census { year } => self.census(year),
        }
    }

    /// Opens the report of the census of the slot's year and answers the count it lists for
    /// the open page's subject.
    fn census(&mut self, year: &str) -> Result<bool> {
        let (Some(year), subject) = (self.number_slot(year), self.subject()) else {
            return Ok(false);
        };
        let title = format!("Census of {year}");
        let hits = self.tools.search(self.world, &title, self.config.top_k)?;
        let prefix = format!("{title}:");
        let hit = hits.iter().find(|h| h.title.starts_with(&prefix));
        if !self.open_found(hit.map(|h| h.url.clone()))? {
            return Ok(false);
        }
        let answer = self.content().and_then(|c| read::listed_count(c, &subject));
        Ok(self.answer_with(answer))
    }

    /// The open page's Markdown.
    fn content(&self) -> Option<&str> {
        self.page.as_ref().map(|p| p.content.as_str())
    }

    /// The open page's title, empty when none is open.
    fn subject(&self) -> String {
        self.page
            .as_ref()
            .map(|p| p.title.clone())
            .unwrap_or_default()
    }

    /// A slot of the question read as a number.
    fn number_slot(&self, slot: &str) -> Option<i64> {
        self.question.slot(slot).and_then(read::number)
    }

    /// Sets the answer; whether there is one.
    fn answer_with(&mut self, answer: Option<String>) -> bool {
        self.answer = answer;
        self.answer.is_some()
    }

    /// Opens a page; a list that goes on over further pages ("Next page: ...") is read to its
    /// end, its pages one after another.
    fn open_url(&mut self, url: &str) -> Result<()> {
        let (title, mut content) = self.extract(url)?;
        let mut next = read::next_page_url(&content);
        // A list never has more than a few dozen pages; the bound guards against a loop.
        for _ in 0..100 {
            let Some(url) = next else { break };
            let (_, more) = self.extract(&url)?;
            next = read::next_page_url(&more);
            content.push('\n');
            content.push_str(&more);
        }
        self.page = Some(Page { title, content });
        Ok(())
    }

    /// Reads a whole page, once per run.
    fn extract(&self, url: &str) -> Result<(String, String)> {
        if let Some(page) = self.cache.borrow().get(url) {
            return Ok(page.clone());
        }
        let page = self
            .tools
            .extract_all(self.world, url, self.config.max_chars)?;
        self.cache.borrow_mut().insert(url.to_owned(), page.clone());
        Ok(page)
    }

    /// Opens a url when one was found.
    fn open_found(&mut self, url: Option<String>) -> Result<bool> {
        let Some(url) = url else { return Ok(false) };
        self.open_url(&url)?;
        Ok(true)
    }

    /// The page a cell names: its link's target or, for an entity named in plain text, the
    /// search result titled exactly so (searched once per run); none when no result is.
    fn cell_url(&self, cell: &str) -> Result<Option<String>> {
        if let Some(url) = read::link_url(cell) {
            return Ok(Some(url));
        }
        let name = read::cell_value(cell);
        if let Some(url) = self.found.borrow().get(&name) {
            return Ok(url.clone());
        }
        let hits = self.tools.search(self.world, &name, self.config.top_k)?;
        let url = hits.into_iter().find(|h| h.title == name).map(|h| h.url);
        self.found.borrow_mut().insert(name, url.clone());
        Ok(url)
    }

    /// Searches a name and opens the hit titled exactly so, else the top hit.
    fn open_name(&mut self, name: &str) -> Result<bool> {
        let hits = self.tools.search(self.world, name, self.config.top_k)?;
        let hit = hits.iter().find(|h| h.title == name).or(hits.first());
        self.open_found(hit.map(|h| h.url.clone()))
    }

    /// Fills `{slot}` placeholders from the question. A noun slot the phrasing lacks is made
    /// from the same noun with an article (`{a_org_noun}`) or in the other number (see
    /// [`other_number`]) when the phrasing has that.
    fn fill_slots(&self, text: &str) -> String {
        let mut slots = self.question.slots.clone();
        let bare: Vec<(String, String)> = slots
            .iter()
            .filter_map(|(name, value)| {
                let noun = name.strip_prefix("a_")?;
                Some((noun.to_owned(), without_article(value).to_owned()))
            })
            .collect();
        slots.extend(bare);
        let others: Vec<(String, String)> = slots
            .iter()
            .filter_map(|(name, value)| other_number(name, value))
            .collect();
        slots.extend(others);
        let mut filled = text.to_owned();
        for (name, value) in &slots {
            filled = filled.replace(&format!("{{{name}}}"), value);
        }
        filled
    }

    /// The open page's infobox cell for a label, its slots filled, read off its prose where the
    /// infobox leaves it out, or else off the subject's own site (its "Official website" link)
    /// where the page links one. A site that cannot be read gives no value.
    fn infobox_cell(&self, label: &Label) -> Option<String> {
        let text = self.fill_slots(&label.text).to_lowercase();
        let content = self.content()?;
        read::infobox_cell(content, &text, label.prefix).or_else(|| {
            let url = read::own_site_url(content)?;
            let (_, site) = self.extract(&url).ok()?;
            read::infobox_cell(&site, &text, label.prefix)
        })
    }

    fn read(&mut self, label: &Label) -> bool {
        let Some(cell) = self.infobox_cell(label) else {
            return false;
        };
        let value = read::cell_value(&cell);
        self.reads.push(Read {
            subject: self.subject(),
            values: vec![value.clone()],
        });
        self.answer = Some(value);
        true
    }

    fn during(&mut self, year: &str, filter: Option<&str>) -> bool {
        let Some(year) = self.number_slot(year) else {
            return false;
        };
        let filter = filter.and_then(|f| self.question.slot(f));
        let answer = self.content().and_then(|c| read::during(c, year, filter));
        self.answer_with(answer)
    }

    fn column(&mut self, name: &str, extreme: Extreme, filter: Option<&str>) -> bool {
        let filter = filter.and_then(|f| self.question.slot(f));
        let answer = self
            .content()
            .and_then(|c| read::column_extreme(c, name, extreme, filter));
        self.answer_with(answer)
    }

    /// Reads the rows around the question's year; whether anything has been read so far.
    fn rows(&mut self, side: Side, column: &str) -> bool {
        let Some(year) = self.number_slot("year") else {
            return false;
        };
        let Some(content) = self.content() else {
            return false;
        };
        let reads = read::rows_around(content, column, side, year);
        self.reads.extend(reads);
        !self.reads.is_empty()
    }

    /// Opens every entity the page lists and reads the labels on each; whether anything has
    /// been read so far.
    fn each(&mut self, labels: &[Label]) -> Result<bool> {
        let Some(content) = self.content() else {
            return Ok(false);
        };
        for url in read::listed_urls(content) {
            self.open_url(&url)?;
            let values = labels
                .iter()
                .map(|l| {
                    self.infobox_cell(l)
                        .map(|c| read::cell_value(&c))
                        .unwrap_or_default()
                })
                .collect();
            self.reads.push(Read {
                subject: self.subject(),
                values,
            });
        }
        Ok(!self.reads.is_empty())
    }

    /// Opens every entity the page lists and answers the total of their rows under `heading`.
    fn count_each(&mut self, heading: &str) -> Result<bool> {
        let Some(content) = self.content() else {
            return Ok(false);
        };
        let urls = read::listed_urls(content);
        self.count_under(urls, heading)
    }

    /// Opens the entity of every row whose `column` lies before or after the question's year
    /// and answers the total of their rows under `heading`.
    fn count_rows(&mut self, side: Side, column: &str, heading: &str) -> Result<bool> {
        let (Some(year), Some(content)) = (self.number_slot("year"), self.content()) else {
            return Ok(false);
        };
        let urls = read::row_urls(content, &self.fill_slots(column), side, year);
        self.count_under(urls, heading)
    }

    /// Opens each url and answers the total number of rows under `heading` (slots filled) on
    /// those pages.
    fn count_under(&mut self, urls: Vec<String>, heading: &str) -> Result<bool> {
        let heading = self.fill_slots(heading);
        let mut total = 0;
        for url in urls {
            self.open_url(&url)?;
            total += self
                .content()
                .map_or(0, |c| read::section_rows(c, &heading));
        }
        Ok(self.answer_with(Some(total.to_string())))
    }

    /// Opens every entity the page lists, then every entity listed under `heading` on each, and
    /// reads `label` on those; whether anything has been read so far.
    fn each_under(&mut self, heading: &str, label: &Label) -> Result<bool> {
        let heading = self.fill_slots(heading);
        let Some(content) = self.content() else {
            return Ok(false);
        };
        for url in read::listed_urls(content) {
            self.open_url(&url)?;
            let inner = self
                .content()
                .map_or_else(Vec::new, |c| read::section_urls(c, &heading));
            for url in inner {
                self.open_url(&url)?;
                let value = self.infobox_cell(label).map(|c| read::cell_value(&c));
                self.reads.push(Read {
                    subject: self.subject(),
                    values: vec![value.unwrap_or_default()],
                });
            }
        }
        Ok(!self.reads.is_empty())
    }

    /// Opens the entity of every row whose `column` lies before or after the question's year
    /// and reads the labels on it (following a link first where a label says so); whether
    /// anything has been read so far.
    fn each_row(&mut self, side: Side, column: &str, labels: &[PathLabel]) -> Result<bool> {
        let Some(year) = self.number_slot("year") else {
            return Ok(false);
        };
        let Some(content) = self.content() else {
            return Ok(false);
        };
        let urls = read::row_urls(content, &self.fill_slots(column), side, year);
        self.read_each(urls, labels)
    }

    /// Opens the entity of every row whose `column` is the slot's value and reads the labels
    /// on it; whether anything has been read so far.
    fn each_match(&mut self, slot: &str, column: &str, labels: &[PathLabel]) -> Result<bool> {
        let (Some(value), Some(content)) = (self.question.slot(slot), self.content()) else {
            return Ok(false);
        };
        let urls = read::matching_row_urls(content, &self.fill_slots(column), value);
        self.read_each(urls, labels)
    }

    /// Opens each url and reads the labels on it (following a link first where a label says
    /// so); whether anything has been read so far.
    fn read_each(&mut self, urls: Vec<String>, labels: &[PathLabel]) -> Result<bool> {
        for url in urls {
            self.open_url(&url)?;
            let mut values = Vec::new();
            for (via, label) in labels {
                values.push(self.read_via(via, label)?.unwrap_or_default());
            }
            self.reads.push(Read {
                subject: self.subject(),
                values,
            });
        }
        Ok(!self.reads.is_empty())
    }

    /// The value of `label` on the open page or, with `via`, on the page reached by following
    /// the links of the `via` rows in turn from the open page (opened without leaving it).
    fn read_via(&self, via: &[Label], label: &Label) -> Result<Option<String>> {
        let Some((first, rest)) = via.split_first() else {
            return Ok(self.infobox_cell(label).map(|c| read::cell_value(&c)));
        };
        let first = match self.infobox_cell(first) {
            Some(cell) => self.cell_url(&cell)?,
            None => None,
        };
        let Some(mut url) = first else {
            return Ok(None);
        };
        for hop in rest {
            let next = match self.linked_cell(&url, hop)? {
                Some(cell) => self.cell_url(&cell)?,
                None => None,
            };
            match next {
                Some(next) => url = next,
                None => return Ok(None),
            }
        }
        let cell = self.linked_cell(&url, label)?;
        Ok(cell.map(|c| read::cell_value(&c)))
    }

    /// The infobox cell (or prose statement) for `label` on the page at `url`.
    fn linked_cell(&self, url: &str, label: &Label) -> Result<Option<String>> {
        let (_, linked) = self.extract(url)?;
        let text = self.fill_slots(&label.text).to_lowercase();
        Ok(read::infobox_cell(&linked, &text, label.prefix))
    }

    fn count_before(&mut self, year: &str) -> bool {
        let Some(year) = self.number_slot(year) else {
            return false;
        };
        self.answer_with(Some(read::count_before(&self.reads, year).to_string()))
    }

    /// Answers the subjects read, one per line; with a year slot, only those whose first value
    /// lies before it.
    fn names(&mut self, before: Option<&str>) -> bool {
        let year = match before {
            Some(slot) => match self.number_slot(slot) {
                Some(year) => Some(year),
                None => return false,
            },
            None => None,
        };
        let names = read::names(&self.reads, year);
        self.answer_with((!names.is_empty()).then(|| names.join("\n")))
    }

    fn table(&mut self, header: &[String]) -> bool {
        let header: Vec<String> = header
            .iter()
            .map(|h| upper_first(&self.fill_slots(h)))
            .collect();
        if self.reads.is_empty() || header.iter().any(|h| h.contains('{')) {
            return false;
        }
        self.answer = Some(read::answer_table(&header, &self.reads));
        true
    }

    fn sum_before(&mut self, year: &str) -> bool {
        let Some(year) = self.number_slot(year) else {
            return false;
        };
        self.answer = Some(read::sum_before(&self.reads, year).to_string());
        true
    }
}

/// Upper-cases the first character, as table headers are written.
fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// The slot of a theme noun's other number and its value there: `settlements_noun` from
/// `settlement_noun` and back, `people_noun` from `person_noun` and back.
fn other_number(slot: &str, value: &str) -> Option<(String, String)> {
    let stem = slot.strip_suffix("_noun")?;
    Some(match stem {
        "person" => ("people_noun".to_owned(), plural(value)),
        "people" => ("person_noun".to_owned(), singular(value)),
        _ => match stem.strip_suffix('s') {
            Some(one) => (format!("{one}_noun"), singular(value)),
            None => (format!("{stem}s_noun"), plural(value)),
        },
    })
}

/// The singular of a theme noun's plural: "colonies" becomes "colony", "reaches" "reach",
/// "consortia" "consortium".
fn singular(noun: &str) -> String {
    if let Some(stem) = noun.strip_suffix("ia") {
        format!("{stem}ium")
    } else if let Some(stem) = noun.strip_suffix("ies") {
        format!("{stem}y")
    } else if ["ches", "shes", "xes", "sses"]
        .iter()
        .any(|end| noun.ends_with(end))
    {
        noun[..noun.len() - 2].to_owned()
    } else {
        noun.strip_suffix('s').unwrap_or(noun).to_owned()
    }
}

/// The English plural of a theme noun: "colony" becomes "colonies", "reach" becomes "reaches",
/// "consortium" (Latin) becomes "consortia".
fn plural(noun: &str) -> String {
    let consonant_y = noun.ends_with('y')
        && !noun.ends_with("ay")
        && !noun.ends_with("ey")
        && !noun.ends_with("oy");
    if let Some(stem) = noun.strip_suffix("ium") {
        format!("{stem}ia")
    } else if consonant_y {
        format!("{}ies", &noun[..noun.len() - 1])
    } else if ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end)) {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(noun: &str, expect: &str) {
        assert_eq!(plural(noun), expect);
    }

    #[test]
    fn plurals_of_theme_nouns() {
        check("colony", "colonies");
        check("reach", "reaches");
        check("campus town", "campus towns");
        check("day", "days");
        check("box", "boxes");
        check("consortium", "consortia");
        check("symposium", "symposia");
    }

    #[test]
    fn singulars_undo_plurals() {
        for noun in [
            "colony",
            "reach",
            "campus town",
            "day",
            "box",
            "marsh",
            "pass",
            "consortium",
        ] {
            assert_eq!(singular(&plural(noun)), noun);
        }
    }

    #[test]
    fn noun_slots_give_their_other_number() {
        let check = |slot: &str, value: &str, expect: Option<(&str, &str)>| {
            let got = other_number(slot, value);
            let got = got.as_ref().map(|(s, v)| (s.as_str(), v.as_str()));
            assert_eq!(got, expect, "{slot}");
        };
        check("person_noun", "citizen", Some(("people_noun", "citizens")));
        check("people_noun", "citizens", Some(("person_noun", "citizen")));
        check(
            "settlements_noun",
            "cities",
            Some(("settlement_noun", "city")),
        );
        check(
            "org_noun",
            "barge company",
            Some(("orgs_noun", "barge companies")),
        );
        check("region", "Kest", None);
        assert_eq!(without_article("an institute"), "institute");
        assert_eq!(without_article("a trading house"), "trading house");
        assert_eq!(without_article("guild"), "guild");
    }
}
