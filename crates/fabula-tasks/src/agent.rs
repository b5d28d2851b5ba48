//! A rule-based baseline search agent that uses only the agent-facing REST API.
//!
//! The agent reads the question's named values with [`crate::phrasings::match_question`] (the
//! phrasing bank is public, as a question parser would be), then follows its template's plan
//! from `templates/tasks/questions.toml`: search an entity's name and open the page titled so,
//! read or follow infobox rows, scan an organisation's tables for the row whose years enclose a
//! date, open every entity a page lists and compare what they say. Templates without a plan are
//! answered with an empty string. It never sees gold answers, evidence or SQL.

use std::collections::BTreeSet;

use fabula_score::{PredictionRecord, TaskRecord};
use serde_json::Value;

use crate::http::{ClientConfig, HttpClient};
use crate::phrasings::{QuestionMatch, match_question, template};
use crate::{Error, Result};

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

/// A Markdown table: header cells and rows of cells.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MdTable {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Every pipe table of a Markdown page, in order.
pub fn md_tables(markdown: &str) -> Vec<MdTable> {
    let mut tables = Vec::new();
    let mut current: Option<MdTable> = None;
    for line in markdown.lines() {
        let line = line.trim();
        if !(line.starts_with('|') && line.ends_with('|') && line.len() >= 2) {
            if let Some(t) = current.take() {
                tables.push(t);
            }
            continue;
        }
        let cells: Vec<String> = line[1..line.len() - 1]
            .split('|')
            .map(|c| c.trim().to_string())
            .collect();
        match current.as_mut() {
            None => {
                current = Some(MdTable {
                    header: cells,
                    rows: Vec::new(),
                })
            }
            Some(_)
                if cells
                    .iter()
                    .all(|c| !c.is_empty() && c.chars().all(|ch| ch == '-' || ch == ':')) => {}
            Some(t) => t.rows.push(cells),
        }
    }
    tables.extend(current);
    tables
}

/// The infobox: the first two-column table whose second header cell is empty.
pub fn infobox(markdown: &str) -> Vec<(String, String)> {
    md_tables(markdown)
        .into_iter()
        .find(|t| t.header.len() == 2 && t.header[1].is_empty())
        .map(|t| {
            t.rows
                .into_iter()
                .filter(|r| r.len() == 2)
                .map(|r| (r[0].clone(), r[1].clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// The text and target of a cell that is one Markdown link.
pub fn link(cell: &str) -> Option<(String, String)> {
    let rest = cell.trim().strip_prefix('[')?;
    let (text, rest) = rest.split_once("](")?;
    let url = rest.strip_suffix(')')?;
    Some((text.to_string(), url.to_string()))
}

/// A cell's text: a link's text, else the cell; thousands separators dropped from numbers.
pub fn cell_value(cell: &str) -> String {
    let text = link(cell).map_or_else(|| cell.trim().to_string(), |(t, _)| t);
    let plain = text.replace(',', "");
    if !plain.is_empty() && plain.chars().all(|c| c.is_ascii_digit()) {
        plain
    } else {
        text
    }
}

fn number(text: &str) -> Option<i64> {
    text.replace(',', "").trim().parse().ok()
}

/// One open page.
struct Page {
    title: String,
    content: String,
}

/// What one run of a plan has read.
struct Run<'a> {
    client: &'a HttpClient,
    config: &'a AgentConfig,
    world: u32,
    question: QuestionMatch,
    page: Option<Page>,
    /// (subject, values read on its page).
    reads: Vec<(String, Vec<String>)>,
    answer: Option<String>,
}

impl Run<'_> {
    fn open_url(&mut self, url: &str) -> Result<()> {
        let (title, content) = self
            .client
            .extract_all(self.world, url, self.config.max_chars)?;
        self.page = Some(Page { title, content });
        Ok(())
    }

    /// Searches a name and opens the hit titled exactly so, else the top hit.
    fn open_name(&mut self, name: &str) -> Result<bool> {
        let hits = self.client.search(self.world, name, self.config.top_k)?;
        let Some(hit) = hits.iter().find(|h| h.title == name).or(hits.first()) else {
            return Ok(false);
        };
        let url = hit.url.clone();
        self.open_url(&url)?;
        Ok(true)
    }

    /// Fills `{slot}` placeholders from the question. A plural noun slot the phrasing lacks
    /// (`{settlements_noun}`) is made from its singular (`{settlement_noun}`).
    fn fill_slots(&self, text: &str) -> String {
        let mut filled = text.to_string();
        for (name, value) in &self.question.slots {
            filled = filled.replace(&format!("{{{name}}}"), value);
            if let Some(stem) = name.strip_suffix("_noun") {
                filled = filled.replace(&format!("{{{stem}s_noun}}"), &plural(value));
            }
        }
        filled
    }

    /// A label with its slots filled, lower-cased, and whether it matches by prefix.
    fn label(&self, raw: &str) -> (String, bool) {
        let label = self.fill_slots(raw);
        match label.strip_suffix('*') {
            Some(prefix) => (prefix.to_lowercase(), true),
            None => (label.to_lowercase(), false),
        }
    }

    fn infobox_cell(&self, raw: &str) -> Option<String> {
        let (label, prefix) = self.label(raw);
        let page = self.page.as_ref()?;
        infobox(&page.content).into_iter().find_map(|(k, v)| {
            let k = k.to_lowercase();
            let hit = if prefix {
                k.starts_with(&label)
            } else {
                k == label
            };
            hit.then_some(v)
        })
    }

    /// Runs one step; `Ok(false)` stops the plan without an answer.
    fn step(&mut self, step: &str) -> Result<bool> {
        let (verb, arg) = step.split_once(' ').unwrap_or((step, ""));
        match verb {
            "open" => {
                let Some(name) = self.question.slot(arg).map(str::to_string) else {
                    return Ok(false);
                };
                self.open_name(&name)
            }
            "follow" => {
                let Some((_, url)) = self.infobox_cell(arg).and_then(|c| link(&c)) else {
                    return Ok(false);
                };
                self.open_url(&url)?;
                Ok(true)
            }
            "read" => {
                let Some(cell) = self.infobox_cell(arg) else {
                    return Ok(false);
                };
                let value = cell_value(&cell);
                let subject = self
                    .page
                    .as_ref()
                    .map(|p| p.title.clone())
                    .unwrap_or_default();
                self.reads.push((subject, vec![value.clone()]));
                self.answer = Some(value);
                Ok(true)
            }
            "pick" => {
                let numbered = self
                    .reads
                    .iter()
                    .filter_map(|(s, v)| Some((number(v.first()?)?, s.clone())));
                let best = if arg == "min" {
                    numbered.min_by_key(|(n, _)| *n)
                } else {
                    numbered.max_by_key(|(n, _)| *n)
                };
                self.answer = best.map(|(_, s)| s);
                Ok(self.answer.is_some())
            }
            "people" => {
                let Some(page) = &self.page else {
                    return Ok(false);
                };
                let target = page
                    .content
                    .split("](")
                    .zip(page.content.split("](").skip(1))
                    .find_map(|(before, after)| {
                        let text = before.rsplit('[').next()?;
                        text.starts_with("People of")
                            .then(|| after.split(')').next().unwrap_or_default().to_string())
                    });
                let Some(url) = target else { return Ok(false) };
                self.open_url(&url)?;
                Ok(true)
            }
            "during" => Ok(self.during(arg)),
            "open_title" => {
                let title = self.fill_slots(arg);
                self.open_name(&title)
            }
            "column" => Ok(self.column(arg)),
            "winner" => {
                let Some(page) = &self.page else {
                    return Ok(false);
                };
                let url = md_tables(&page.content)
                    .into_iter()
                    .flat_map(|t| t.rows)
                    .find_map(|row| {
                        (row.len() == 2 && row[0] == "1")
                            .then(|| link(&row[1]).map(|(_, u)| u))
                            .flatten()
                    });
                let Some(url) = url else { return Ok(false) };
                self.open_url(&url)?;
                Ok(true)
            }
            "each" => self.each(arg),
            "rows" => Ok(self.rows(arg)),
            "table" => {
                let header: Vec<String> = arg
                    .split('|')
                    .map(|h| upper_first(&self.fill_slots(h.trim())))
                    .collect();
                if self.reads.is_empty() || header.iter().any(|h| h.contains('{')) {
                    return Ok(false);
                }
                let mut table = format!(
                    "| {} |\n|{}\n",
                    header.join(" | "),
                    "---|".repeat(header.len())
                );
                for (subject, values) in &self.reads {
                    let cells: Vec<&str> = std::iter::once(subject.as_str())
                        .chain(values.iter().map(String::as_str))
                        .collect();
                    table.push_str(&format!("| {} |\n", cells.join(" | ")));
                }
                self.answer = Some(table);
                Ok(true)
            }
            "sum" => {
                let Some(year) = self.question.slot("year").and_then(number) else {
                    return Ok(false);
                };
                let total: i64 = self
                    .reads
                    .iter()
                    .filter(|(_, v)| v.first().and_then(|f| number(f)).is_some_and(|f| f < year))
                    .filter_map(|(_, v)| number(v.get(1)?))
                    .sum();
                self.answer = Some(total.to_string());
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Answers the first link of the table row whose from-to years enclose the question's year
    /// (and that holds the filter slot's value, when the step names one).
    fn during(&mut self, arg: &str) -> bool {
        let mut args = arg.split_whitespace();
        let Some(year) = args
            .next()
            .and_then(|s| self.question.slot(s))
            .and_then(number)
        else {
            return false;
        };
        let filter = args
            .next()
            .and_then(|s| self.question.slot(s))
            .map(str::to_string);
        let Some(page) = &self.page else { return false };
        for table in md_tables(&page.content) {
            let col = |name: &str| table.header.iter().position(|h| h == name);
            let (Some(from), Some(to)) = (col("From"), col("To")) else {
                continue;
            };
            for row in &table.rows {
                let start = row.get(from).and_then(|c| number(c));
                let end = row.get(to).map(|c| number(c).unwrap_or(i64::MAX));
                let (Some(start), Some(end)) = (start, end) else {
                    continue;
                };
                if !(start <= year && year <= end) {
                    continue;
                }
                if filter.as_ref().is_some_and(|f| !row.iter().any(|c| c == f)) {
                    continue;
                }
                if let Some((text, _)) = row.iter().find_map(|c| link(c)) {
                    self.answer = Some(text);
                    return true;
                }
            }
        }
        false
    }

    /// Answers the first cell of the row with the smallest or largest value in a named column,
    /// among the rows that hold the filter slot's value when the step names one.
    fn column(&mut self, arg: &str) -> bool {
        let mut args = arg.split_whitespace();
        let (Some(name), Some(order)) = (args.next(), args.next()) else {
            return false;
        };
        let filter = args
            .next()
            .and_then(|s| self.question.slot(s))
            .map(str::to_string);
        let Some(page) = &self.page else { return false };
        let mut best: Option<(i64, String)> = None;
        for table in md_tables(&page.content) {
            let Some(col) = table.header.iter().position(|h| h == name) else {
                continue;
            };
            for row in &table.rows {
                if filter.as_ref().is_some_and(|f| !row.iter().any(|c| c == f)) {
                    continue;
                }
                let (Some(value), Some(first)) =
                    (row.get(col).and_then(|c| number(c)), row.first())
                else {
                    continue;
                };
                let better = best.as_ref().is_none_or(|(b, _)| {
                    if order == "min" {
                        value < *b
                    } else {
                        value > *b
                    }
                });
                if better {
                    best = Some((value, cell_value(first)));
                }
            }
        }
        self.answer = best.map(|(_, name)| name);
        self.answer.is_some()
    }

    /// Reads the rows of the current page's tables whose named column is before or after the
    /// question's year: `rows before Founded` keeps each row's first cell as the subject and the
    /// other cells, in order, as its values.
    fn rows(&mut self, arg: &str) -> bool {
        let mut args = arg.split_whitespace();
        let (Some(order), Some(name)) = (args.next(), args.next()) else {
            return false;
        };
        let Some(year) = self.question.slot("year").and_then(number) else {
            return false;
        };
        let Some(page) = &self.page else { return false };
        let mut reads = Vec::new();
        for table in md_tables(&page.content) {
            let Some(col) = table.header.iter().position(|h| h == name) else {
                continue;
            };
            for row in &table.rows {
                let Some(value) = row.get(col).and_then(|c| number(c)) else {
                    continue;
                };
                let keep = if order == "before" {
                    value < year
                } else {
                    value > year
                };
                if keep && let Some((first, rest)) = row.split_first() {
                    reads.push((
                        cell_value(first),
                        rest.iter().map(|c| cell_value(c)).collect(),
                    ));
                }
            }
        }
        self.reads.extend(reads);
        !self.reads.is_empty()
    }

    /// Opens every entity linked from the current page's tables (not its infobox) and reads
    /// the named infobox rows of each.
    fn each(&mut self, labels: &str) -> Result<bool> {
        let Some(page) = &self.page else {
            return Ok(false);
        };
        let mut urls = Vec::new();
        let mut seen = BTreeSet::new();
        for table in md_tables(&page.content)
            .into_iter()
            .filter(|t| !(t.header.len() == 2 && t.header[1].is_empty()))
        {
            for row in &table.rows {
                if let Some((_, url)) = row.first().and_then(|c| link(c))
                    && seen.insert(url.clone())
                {
                    urls.push(url);
                }
            }
        }
        for url in urls {
            self.open_url(&url)?;
            // Labels are separated by `|` when one holds spaces ("Orbital period (days)").
            let list: Vec<&str> = if labels.contains('|') {
                labels.split('|').map(str::trim).collect()
            } else {
                labels.split_whitespace().collect()
            };
            let values: Vec<String> = list
                .into_iter()
                .map(|l| {
                    self.infobox_cell(l)
                        .map(|c| cell_value(&c))
                        .unwrap_or_default()
                })
                .collect();
            let subject = self
                .page
                .as_ref()
                .map(|p| p.title.clone())
                .unwrap_or_default();
            self.reads.push((subject, values));
        }
        Ok(!self.reads.is_empty())
    }
}

/// Answers one task; a server error status ends the attempt with no answer.
fn answer_task(client: &HttpClient, config: &AgentConfig, task: &TaskRecord) -> Result<String> {
    let Some(question) = match_question(&task.question) else {
        return Ok(String::new());
    };
    let Ok(world) = task.world.parse::<u32>() else {
        return Ok(String::new());
    };
    let plan = template(&question.kind, &question.template).agent.clone();
    if plan.is_empty() {
        return Ok(String::new());
    }
    let mut run = Run {
        client,
        config,
        world,
        question,
        page: None,
        reads: Vec::new(),
        answer: None,
    };
    for step in &plan {
        match run.step(step) {
            Ok(true) => {}
            Ok(false) => return Ok(String::new()),
            Err(Error::Status { .. }) => return Ok(String::new()),
            Err(e) => return Err(e),
        }
    }
    Ok(run.answer.unwrap_or_default())
}

/// Runs the baseline agent on every task against the server at `addr` (`host:port`) and returns
/// one prediction per task, in task order. Only a broken connection is an error.
pub fn run_baseline(
    addr: &str,
    tasks: &[TaskRecord],
    config: &AgentConfig,
) -> Result<Vec<PredictionRecord>> {
    let client = HttpClient::new(addr, config.client.clone());
    tasks
        .iter()
        .map(|task| {
            Ok(PredictionRecord {
                task_id: task.id.clone(),
                answer: Value::String(answer_task(&client, config, task)?),
            })
        })
        .collect()
}

/// Upper-cases the first character, as table headers are written.
fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// The English plural of a theme noun: "colony" becomes "colonies", "reach" becomes "reaches".
fn plural(noun: &str) -> String {
    let consonant_y = noun.ends_with('y')
        && !noun.ends_with("ay")
        && !noun.ends_with("ey")
        && !noun.ends_with("oy");
    if consonant_y {
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

    const PAGE: &str = "# Vess Hall\n\nVess Hall is a guild.\n\n| Vess Hall | |\n|---|---|\n| Founder | [Amo Tal](https://w/wiki/Amo_Tal) |\n| Members | 1,204 |\n\n## Office holders\n\n| Seat | Holder | From | To |\n|---|---|---|---|\n| Warden | [Ila Orr](https://w/wiki/Ila_Orr) | 1700 | 1712 |\n";

    #[test]
    fn plurals_of_theme_nouns() {
        assert_eq!(plural("colony"), "colonies");
        assert_eq!(plural("reach"), "reaches");
        assert_eq!(plural("campus town"), "campus towns");
        assert_eq!(plural("day"), "days");
    }

    #[test]
    fn reads_infoboxes_and_tables() {
        let boxed = infobox(PAGE);
        assert_eq!(
            boxed[0],
            (
                "Founder".to_string(),
                "[Amo Tal](https://w/wiki/Amo_Tal)".to_string()
            )
        );
        assert_eq!(cell_value(&boxed[1].1), "1204");
        assert_eq!(
            link(&boxed[0].1),
            Some(("Amo Tal".to_string(), "https://w/wiki/Amo_Tal".to_string()))
        );
        let tables = md_tables(PAGE);
        assert_eq!(tables.len(), 2);
        assert_eq!(tables[1].rows[0][2], "1700");
    }
}
