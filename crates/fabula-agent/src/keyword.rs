//! A generic keyword agent: the search agent a user writes without reading fabula's templates or
//! site layout, run as a floor under the difficulty ladder (the goal: at most 10% on the
//! hard tier).
//!
//! It searches the question and reads the top pages, then searches each name the question
//! contains and reads the top pages of those searches it has not read yet, at most
//! [`MAX_CALLS`] calls in all. It answers the candidate of the answer's type (a year, a number or
//! a name, told from the question's wording) that the pages it read support best: every
//! occurrence counts, more on a page that ranked higher and in a line that shares more words
//! with the question. It never answers a name the question contains, except that a question
//! offering options ("A or B") is answered with one of them. It does not attempt tables.
//! Nothing here knows a template, a page title pattern or an infobox label.

use std::collections::BTreeMap;

use fabula_score::{PredictionRecord, TaskKind, TaskRecord};

use crate::agent::AgentConfig;
use crate::http::HttpClient;
use crate::{Error, Result};

/// The most searches and page reads one task may use.
pub const MAX_CALLS: usize = 12;
/// Pages read from the results of searching the whole question.
const READ_FIRST: usize = 4;
/// Pages read from the results of searching one name of the question.
const READ_PER_NAME: usize = 2;
/// Words too common to tie a line to the question.
const STOP_WORDS: &[&str] = &[
    "what", "which", "when", "where", "whose", "that", "this", "with", "from", "there", "their",
    "they", "have", "were", "was", "the", "and", "for", "how", "many", "much", "who", "did",
    "does", "into", "year", "name", "give", "been", "than", "these", "every", "each",
];

/// The type of value a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Year,
    Number,
    Name,
}

/// Runs the keyword agent on every task against the server at `addr` and returns one prediction
/// per task, in task order; table tasks get an empty answer. Only a broken connection is an
/// error.
pub fn run_keyword(
    addr: &str,
    tasks: &[TaskRecord],
    config: &AgentConfig,
) -> Result<Vec<PredictionRecord>> {
    let client = HttpClient::new(addr, config.client.clone());
    tasks
        .iter()
        .map(|task| {
            let answer = if task.kind == TaskKind::Table {
                String::new()
            } else {
                answer_task(&client, config, task)?
            };
            Ok(crate::agent::prediction(task, answer))
        })
        .collect()
}

/// Answers one task; a server error status ends the attempt with what was read so far.
fn answer_task(client: &HttpClient, config: &AgentConfig, task: &TaskRecord) -> Result<String> {
    let Ok(world) = task.world.parse::<u32>() else {
        return Ok(String::new());
    };
    let mut reader = Reader {
        client,
        config,
        world,
        calls: 0,
        read: Vec::new(),
    };
    match reader.gather(&task.question) {
        Ok(()) | Err(Error::Status { .. }) => {}
        Err(e) => return Err(e),
    }
    Ok(best(&task.question, &reader.read).unwrap_or_default())
}

/// The pages one task has read: (rank in its search, Markdown).
struct Reader<'a> {
    client: &'a HttpClient,
    config: &'a AgentConfig,
    world: u32,
    calls: usize,
    read: Vec<(usize, String, String)>,
}

impl Reader<'_> {
    /// Searches the question, then each of its names, reading the top pages of each search.
    fn gather(&mut self, question: &str) -> Result<()> {
        self.search_and_read(question, READ_FIRST)?;
        for name in names(question) {
            self.search_and_read(&name, READ_PER_NAME)?;
        }
        Ok(())
    }

    /// Searches `query` and reads up to `n` of its results not read yet, within the budget.
    fn search_and_read(&mut self, query: &str, n: usize) -> Result<()> {
        if self.calls >= MAX_CALLS {
            return Ok(());
        }
        self.calls += 1;
        let hits = self.client.search(self.world, query, self.config.top_k)?;
        let mut taken = 0;
        for (rank, hit) in hits.iter().enumerate() {
            if taken == n || self.calls >= MAX_CALLS {
                break;
            }
            if self.read.iter().any(|(_, url, _)| *url == hit.url) {
                continue;
            }
            self.calls += 1;
            let (_, content) =
                self.client
                    .extract_all(self.world, &hit.url, self.config.max_chars)?;
            self.read.push((rank, hit.url.clone(), content));
            taken += 1;
        }
        Ok(())
    }
}

/// What the question asks for, from its wording.
fn want(question: &str) -> Want {
    let q = question.to_lowercase();
    if q.contains("what year")
        || q.contains("which year")
        || q.starts_with("when ")
        || q.contains(" when ")
    {
        Want::Year
    } else if q.contains("how many") || q.contains("population") || q.contains("how much") {
        Want::Number
    } else {
        Want::Name
    }
}

/// The names a question contains: runs of capitalised words (joined by "of", "the" or "and"),
/// leaving out the question's first word.
fn names(question: &str) -> Vec<String> {
    let words: Vec<&str> = question.split_whitespace().collect();
    let mut found = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    let flush = |run: &mut Vec<&str>, found: &mut Vec<String>| {
        while run.last().is_some_and(|w| is_connector(w)) {
            run.pop();
        }
        if !run.is_empty() {
            let name = run.join(" ");
            if !found.contains(&name) {
                found.push(name);
            }
        }
        run.clear();
    };
    for (i, raw) in words.iter().enumerate() {
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let capital = word.chars().next().is_some_and(char::is_uppercase);
        if (i > 0 && capital) || (!run.is_empty() && is_connector(word)) {
            run.push(word);
        } else {
            flush(&mut run, &mut found);
        }
        if raw.ends_with([',', '?', ';', ':', '.']) {
            flush(&mut run, &mut found);
        }
    }
    flush(&mut run, &mut found);
    found
}

fn is_connector(word: &str) -> bool {
    matches!(word, "of" | "the" | "and")
}

/// The question's content words, lower-cased.
fn keywords(question: &str) -> Vec<String> {
    question
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 4 && !STOP_WORDS.contains(&w.as_str()))
        .collect()
}

/// The candidate the read pages support best, if any.
fn best(question: &str, read: &[(usize, String, String)]) -> Option<String> {
    let want = want(question);
    let keywords = keywords(question);
    let named = names(question);
    let options: Vec<&String> = if question.contains(" or ") {
        named.iter().collect()
    } else {
        Vec::new()
    };
    let lower_question = question.to_lowercase();
    let mut score: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let mut seen = 0;
    for (rank, _, content) in read {
        let weight = 1.0 / (1.0 + *rank as f64);
        for line in content.lines() {
            let lower = line.to_lowercase();
            let overlap = keywords
                .iter()
                .filter(|k| lower.contains(k.as_str()))
                .count();
            for candidate in candidates(line, want) {
                let allowed = if options.is_empty() {
                    !lower_question.contains(&candidate.to_lowercase())
                } else {
                    options.iter().any(|o| **o == candidate)
                };
                if !allowed {
                    continue;
                }
                seen += 1;
                let entry = score.entry(candidate).or_insert((0.0, seen));
                entry.0 += weight * (1.0 + overlap as f64);
            }
        }
    }
    score
        .into_iter()
        .max_by(|a, b| a.1.0.total_cmp(&b.1.0).then(b.1.1.cmp(&a.1.1)))
        .map(|(candidate, _)| candidate)
}

/// The values of the wanted type on one line: link texts for names, numbers otherwise (a year
/// has 3 or 4 digits and no separator; a count is any other number).
fn candidates(line: &str, want: Want) -> Vec<String> {
    match want {
        Want::Name => link_texts(line),
        Want::Year | Want::Number => line
            .split(|c: char| !(c.is_ascii_digit() || c == ','))
            .map(|t| t.trim_matches(','))
            .filter(|t| !t.is_empty())
            .filter(|t| match want {
                // A plain four-digit number reads as a year, not a count.
                Want::Number => t.contains(',') || t.len() != 4,
                _ => !t.contains(',') && (3..=4).contains(&t.len()),
            })
            .map(|t| t.replace(',', ""))
            .collect(),
    }
}

/// The texts of the Markdown links on a line.
fn link_texts(line: &str) -> Vec<String> {
    let mut texts = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find("](") else {
            break;
        };
        texts.push(after[..close].to_string());
        rest = &after[close + 2..];
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wanted_type_comes_from_the_wording() {
        assert_eq!(want("In what year was Ama Orr born?"), Want::Year);
        assert_eq!(want("When was Kest founded?"), Want::Year);
        assert_eq!(
            want("It was born in a town. When was that town founded?"),
            Want::Year
        );
        assert_eq!(want("How many people were born in Lind?"), Want::Number);
        assert_eq!(
            want("What population did the 1710 census record for Kest?"),
            Want::Number
        );
        assert_eq!(want("Who founded the House of Lai?"), Want::Name);
    }

    #[test]
    fn names_are_runs_of_capitalised_words() {
        assert_eq!(
            names("Which guild, House of Lai or Vess Hall, is older?"),
            ["House of Lai", "Vess Hall"]
        );
        assert_eq!(
            names("In which town was the founder of Vrethzae and the Echoes born?"),
            ["Vrethzae and the Echoes"]
        );
        assert!(names("Who founded it?").is_empty());
    }

    #[test]
    fn the_best_supported_candidate_of_the_wanted_type_wins() {
        let page = |rank, text: &str| (rank, format!("u{rank}"), text.to_string());
        let read = [
            page(
                0,
                "Kest lies in [Upper Vess](u). Founded in 1650.\nIt has 12,000 people.",
            ),
            page(
                1,
                "The founder, [Amo Tal](u), was born in [Orrwick](u) in 1702.",
            ),
            page(2, "[Upper Vess](u) again."),
        ];
        assert_eq!(
            best("In which region does Kest lie?", &read).as_deref(),
            Some("Upper Vess")
        );
        assert_eq!(
            best("When was Kest founded?", &read).as_deref(),
            Some("1650")
        );
        assert_eq!(
            best("How many people live in Kest?", &read).as_deref(),
            Some("12000")
        );
        assert_eq!(
            best("Who is older, Amo Tal or Kel Orr?", &read).as_deref(),
            Some("Amo Tal")
        );
        assert_eq!(best("Who founded Orrwick?", &[]), None);
    }
}
