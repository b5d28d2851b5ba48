//! Prompts for the world model: the Qwen3 chat template (thinking disabled) around messages
//! rendered from the minijinja templates in `templates/prompts/`.

use std::sync::OnceLock;

use minijinja::Environment;
use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Serde, Value};
use serde::Serialize;

use fabula_file::{Hiding, Page};

use crate::action::{Action, Controls};
use crate::error::Result;
use crate::parse::SearchSection;

use crate::view::WorldView;

const SYSTEM_TEMPLATE: &str = include_str!("../../../templates/prompts/lwm_system.jinja");
const SEARCH_TEMPLATE: &str = include_str!("../../../templates/prompts/lwm_search.jinja");
const EXTRACT_TEMPLATE: &str = include_str!("../../../templates/prompts/lwm_extract.jinja");

/// How much page text goes into prompts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptConfig {
    /// Characters of each page's plain text shown as a search hit's excerpt.
    pub max_excerpt_chars: usize,
    /// Characters of the page's Markdown shown to the extractor prompt.
    pub max_body_chars: usize,
}

impl Default for PromptConfig {
    /// 300 characters per search excerpt and 4,000 per extracted page.
    fn default() -> PromptConfig {
        PromptConfig {
            max_excerpt_chars: 300,
            max_body_chars: 4000,
        }
    }
}

/// Wraps a system and a user message in Qwen3's chat template and opens the assistant turn with
/// an empty thinking block, which is how Qwen3 disables thinking.
pub fn chat_prompt(system: &str, user: &str) -> String {
    format!(
        "<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n\
         <|im_start|>assistant\n<think>\n\n</think>\n\n"
    )
}

fn environment() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        let syntax = SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .expect("the default delimiters are valid");
        env.set_syntax(syntax);
        // The templates are compiled into the crate, so a failure here is a bug caught by tests.
        env.add_template("lwm_system.jinja", SYSTEM_TEMPLATE)
            .expect("lwm_system.jinja parses");
        env.add_template("lwm_search.jinja", SEARCH_TEMPLATE)
            .expect("lwm_search.jinja parses");
        env.add_template("lwm_extract.jinja", EXTRACT_TEMPLATE)
            .expect("lwm_extract.jinja parses");
        env
    })
}

/// The world model's system message for one world.
pub fn system_prompt(world_id: &str) -> Result<String> {
    let template = environment().get_template("lwm_system.jinja")?;
    Ok(template.render(minijinja::context! { world_id })?)
}

/// [`system_prompt`] with a closing paragraph on the Simulation Instruction that ends each turn
/// of a task's trajectory ([`crate::SimulationInstruction`]).
pub fn task_system_prompt(world_id: &str) -> Result<String> {
    let template = environment().get_template("lwm_system.jinja")?;
    Ok(template.render(minijinja::context! { world_id, simulation_instruction => true })?)
}

#[derive(Serialize)]
struct FactRecord<'a> {
    kind: &'a str,
    shown: &'a str,
}

#[derive(Serialize)]
struct HitRecord<'a> {
    rank: usize,
    url: &'a str,
    title: &'a str,
    kind: &'a str,
    date: &'a str,
    facts: Vec<FactRecord<'a>>,
    hidden: Vec<&'a str>,
    excerpt: String,
}

#[derive(Serialize)]
struct SectionRecord<'a> {
    query: &'a str,
    hits: Vec<HitRecord<'a>>,
}

/// The facts of a page as compact records, without repeats.
fn fact_records(page: &Page) -> Vec<FactRecord<'_>> {
    let mut records: Vec<FactRecord<'_>> = Vec::new();
    for fact in &page.facts {
        if records.iter().any(|r| r.shown == fact.shown) {
            continue;
        }
        records.push(FactRecord {
            kind: fact.value_kind.as_str(),
            shown: &fact.shown,
        });
    }
    records
}

/// The fact values that `hiding` keeps out of snippets.
fn hidden_values(page: &Page, hiding: Hiding) -> Vec<&str> {
    let mut hidden: Vec<&str> = Vec::new();
    for fact in &page.facts {
        let hides = match hiding {
            Hiding::None => false,
            Hiding::Partial => fact.value_kind.is_hidden_by_partial(),
            Hiding::Strict => fact.shown != page.title,
        };
        if hides && !hidden.contains(&fact.shown.as_str()) {
            hidden.push(&fact.shown);
        }
    }
    hidden
}

fn hiding_rule(hiding: Hiding) -> &'static str {
    match hiding {
        Hiding::None => "Snippets may quote any passage of the page.",
        Hiding::Partial => {
            "Snippets must not show any number, year, date or related entity name, nor any word \
             with a digit: write … in their place."
        }
        Hiding::Strict => "Snippets give only a generic one-line description of the page.",
    }
}

/// The first `max_chars` characters of `text`, with `…` appended when cut.
fn cut(text: &str, max_chars: usize) -> String {
    let mut out: String = text.chars().take(max_chars).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// Markdown reduced to one line of plain text: link targets and markup characters dropped.
fn plain_line(markdown: &str) -> String {
    let mut text = String::new();
    let mut rest = markdown;
    while let Some(idx) = rest.find("](") {
        text.push_str(&rest[..idx]);
        let target = &rest[idx + 2..];
        rest = target.find(')').map_or("", |end| &target[end + 1..]);
    }
    text.push_str(rest);
    let stripped: String = text
        .chars()
        .filter(|c| !matches!(c, '#' | '*' | '_' | '[' | ']' | '|' | '>'))
        .collect();
    stripped.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The Markdown after a leading `# Title` line (the title is given separately).
fn without_heading(markdown: &str) -> &str {
    let trimmed = markdown.trim_start();
    match trimmed.split_once('\n') {
        Some((first, rest)) if first.starts_with("# ") => rest,
        None if trimmed.starts_with("# ") => "",
        _ => trimmed,
    }
}

/// The user message asking the model to render a search observation.
///
/// `sections` are the template observation's parsed results: they say which pages matched each
/// query. A section without a query heading takes the action's query at the same position.
pub fn search_prompt(
    world: &dyn WorldView,
    queries: &[String],
    controls: &Controls,
    sections: &[SearchSection],
    config: &PromptConfig,
) -> Result<String> {
    let pages: Vec<Vec<(usize, Page)>> = sections
        .iter()
        .map(|section| {
            section
                .results
                .iter()
                .filter_map(|block| Some((block.rank, world.page(&block.url)?.into_owned())))
                .collect()
        })
        .collect();
    let records: Vec<SectionRecord<'_>> = sections
        .iter()
        .zip(&pages)
        .enumerate()
        .map(|(idx, (section, pages))| SectionRecord {
            query: section
                .query
                .as_deref()
                .or(queries.get(idx).map(String::as_str))
                .unwrap_or(""),
            hits: pages
                .iter()
                .map(|(rank, page)| HitRecord {
                    rank: *rank,
                    url: &page.url,
                    title: &page.title,
                    kind: page.kind.as_str(),
                    date: page.published.as_deref().unwrap_or("N/A"),
                    facts: fact_records(page),
                    hidden: hidden_values(page, controls.hiding),
                    excerpt: cut(
                        &plain_line(without_heading(&page.body)),
                        config.max_excerpt_chars,
                    ),
                })
                .collect(),
        })
        .collect();
    let action = Action::Search {
        queries: queries.to_vec(),
    };
    let template = environment().get_template("lwm_search.jinja")?;
    Ok(template.render(minijinja::context! {
        input_json => action.input_json(),
        hiding => controls.hiding.as_str(),
        hiding_rule => hiding_rule(controls.hiding),
        instruction => controls.instruction.trim(),
        sections => Value::from(Serde(records)),
    })?)
}

#[derive(Serialize)]
struct PageRecord<'a> {
    url: &'a str,
    title: &'a str,
    kind: &'a str,
    date: &'a str,
    facts: Vec<FactRecord<'a>>,
    body: String,
}

/// The user message asking the model to render the page at `url`; `earlier` holds the snippets
/// shown for it earlier in the session. When the world has no such page the message says so.
pub fn extract_prompt(
    world: &dyn WorldView,
    url: &str,
    controls: &Controls,
    earlier: &[String],
    config: &PromptConfig,
) -> Result<String> {
    let page = world.page(url);
    let record = page.as_deref().map(|page| PageRecord {
        url: &page.url,
        title: &page.title,
        kind: page.kind.as_str(),
        date: page.published.as_deref().unwrap_or("N/A"),
        facts: fact_records(page),
        body: cut(&page.body, config.max_body_chars),
    });
    let action = Action::Extract {
        url: url.to_string(),
    };
    let template = environment().get_template("lwm_extract.jinja")?;
    Ok(template.render(minijinja::context! {
        input_json => action.input_json(),
        instruction => controls.instruction.trim(),
        page => Value::from(Serde(record)),
        earlier => Value::from(Serde(earlier)),
    })?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_prompt_disables_thinking() {
        let prompt = chat_prompt("sys", "hello");
        assert_eq!(
            prompt,
            "<|im_start|>system\nsys<|im_end|>\n<|im_start|>user\nhello<|im_end|>\n\
             <|im_start|>assistant\n<think>\n\n</think>\n\n"
        );
    }

    #[test]
    fn plain_line_drops_markdown() {
        assert_eq!(
            plain_line("# Kest\n\n**Kest** is a [city](https://a.fab/kest) by the _sea_."),
            "Kest Kest is a city by the sea."
        );
    }

    #[test]
    fn cut_marks_cuts() {
        assert_eq!(cut("abcdef", 3), "abc…");
        assert_eq!(cut("abc", 3), "abc");
    }

    #[test]
    fn system_prompt_names_the_world() {
        let prompt = system_prompt("w-0007").unwrap();
        assert!(prompt.contains("(w-0007)"));
        assert!(prompt.contains("web_extractor"));
    }

    #[test]
    fn the_task_system_prompt_adds_a_paragraph_on_the_instruction() {
        let plain = system_prompt("w-0007").unwrap();
        assert!(plain.ends_with("which faults to show."), "{plain}");
        assert!(!plain.contains("Simulation Instruction"));
        let task = task_system_prompt("w-0007").unwrap();
        let added = task.strip_prefix(plain.as_str()).unwrap();
        assert!(
            added.starts_with("\n\nA turn may end with a Simulation Instruction: "),
            "{added:?}"
        );
        assert!(added.ends_with("what snippets may reveal."), "{added:?}");
    }
}
