//! Scoring a renderer's observations over recorded trajectories on the five dimensions
//! AgentWorldBench's judge rates (format, factuality, consistency, hiding, realism), without a
//! judge: fabula knows the truth.
//!
//! Each turn of a trajectory (an [`LwmTurn`], whose observation is the template renderer's) is
//! paired with the text a renderer wrote for it, the model's raw text before any fallback
//! ([`crate::Observation::written`]; [`render_turns`] renders a trajectory), and
//! [`score_session`] rates that text on each dimension, pass or fail, with a [`Failure`] for every
//! reason it fails:
//!
//! - **Format**: the text parses as the tool's format ([`parse_search`]'s result blocks,
//!   [`parse_page`]'s Markdown page); where the template is neither (an injected error text), the
//!   text must be the template's.
//! - **Factuality**: every url is a page of the world and one of the results the world's search
//!   gave for the call, every title and date is the page's, every query heading is a query of the
//!   call, and every number, full date and capitalised name a snippet or page body states occurs
//!   on the page (the verifier's check). Text that does not parse is checked whole against the
//!   pages the call concerns.
//! - **Consistency**: the text agrees with what the renderer wrote earlier in the same trajectory:
//!   a repeated query lists the same results; a url keeps its title and date; a page observed
//!   again states every fact of the page it stated before; a page states what the snippets shown
//!   for it earlier stated.
//! - **Hiding**: no snippet shows a value the session's hiding level hides (only searches: a page
//!   shows everything, so for extracts this dimension does not apply).
//! - **Realism** (proxies): the length is within bounds of the template's; search results are as
//!   many as the template's, numbered from 1, with snippets, on the sites the trajectory's
//!   template observations use; a page keeps the Markdown section headings of the template; no
//!   chat markup and no line repeated over and over.
//!
//! A dimension that cannot be checked because the text does not parse fails with
//! [`FailureReason::Unverifiable`]. [`summarise`] gives the mean of each dimension over the
//! observations it applies to, their sum ("x of 5") and the failures counted by reason, with a
//! few examples each. Everything is ordered by turn, dimension and reason, never by hash.

use std::collections::{BTreeMap, BTreeSet};

use fabula_file::Page;
use serde::Serialize;

use crate::action::{Action, Controls};
use crate::error::{Error, Result};
use crate::parse::{ResultBlock, SearchSection, parse_page, parse_search};
use crate::render::{ExtractRequest, Observation, Renderer, SearchRequest, Session};
use crate::samples::LwmTurn;
use crate::verify::{Known, Unknown, contains_value, leaked_value, same_date};
use crate::view::WorldView;

/// One of the five dimensions an observation is scored on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    /// The text parses as the tool's format.
    Format,
    /// Every url, title, date, name and number stated is true in the world.
    Factuality,
    /// The text agrees with the renderer's earlier observations of the same query and url.
    Consistency,
    /// Snippets hide what the session's hiding level hides.
    Hiding,
    /// Length and structure look like the template's.
    Realism,
}

impl Dimension {
    /// The dimensions in report order.
    pub const ALL: [Dimension; 5] = [
        Dimension::Format,
        Dimension::Factuality,
        Dimension::Consistency,
        Dimension::Hiding,
        Dimension::Realism,
    ];

    /// The dimension's snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::Format => "format",
            Dimension::Factuality => "factuality",
            Dimension::Consistency => "consistency",
            Dimension::Hiding => "hiding",
            Dimension::Realism => "realism",
        }
    }
}

/// Why an observation fails a dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureReason {
    /// Format: not result blocks (search), not a `# Title` page (extract), or not the template's
    /// text where the template is an error text.
    Unparsable,
    /// Factuality: a url that is not a page of the world.
    UnknownUrl,
    /// Factuality: a page of the world that the search did not return for the call.
    NotAResult,
    /// Factuality: a `## Query:` heading naming a query the call did not make.
    WrongQuery,
    /// Factuality: a title (block or page heading) that is not the page's.
    WrongTitle,
    /// Factuality: a block's date that is not the page's.
    WrongDate,
    /// Factuality: a capitalised name that does not occur on the page.
    UnstatedName,
    /// Factuality: a number that does not occur on the page.
    UnstatedNumber,
    /// Factuality: a full date that does not occur on the page.
    UnstatedDate,
    /// Consistency: a query asked again lists other results.
    ChangedResults,
    /// Consistency: a url observed again has another title or date, or no longer states a fact
    /// of its page that it stated before.
    ChangedPage,
    /// Consistency: a page omits or changes a value a snippet shown for it earlier stated.
    ContradictsEarlierSnippet,
    /// Hiding: a snippet shows a value the hiding level hides.
    HiddenValueShown,
    /// Realism: shorter than the bound the template's length sets.
    TooShort,
    /// Realism: longer than the bound the template's length sets.
    TooLong,
    /// Realism: more or fewer results than the template's.
    ResultCount,
    /// Realism: results not numbered 1, 2, 3, … in each section.
    BadRanks,
    /// Realism: results with empty snippets where the template's have text.
    EmptySnippet,
    /// Realism: a url on a site the trajectory's template observations never use.
    ForeignHost,
    /// Realism: a page without the Markdown section headings the template's has.
    MissingHeadings,
    /// Realism: chat template markup (`<|im_end|>`, `<think>`, …) left in the text.
    ChatMarkup,
    /// Realism: a line repeated over and over.
    RepeatedLines,
    /// Any dimension but format: the text does not parse, so this cannot be checked.
    Unverifiable,
}

impl FailureReason {
    /// The reason's snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureReason::Unparsable => "unparsable",
            FailureReason::UnknownUrl => "unknown_url",
            FailureReason::NotAResult => "not_a_result",
            FailureReason::WrongQuery => "wrong_query",
            FailureReason::WrongTitle => "wrong_title",
            FailureReason::WrongDate => "wrong_date",
            FailureReason::UnstatedName => "unstated_name",
            FailureReason::UnstatedNumber => "unstated_number",
            FailureReason::UnstatedDate => "unstated_date",
            FailureReason::ChangedResults => "changed_results",
            FailureReason::ChangedPage => "changed_page",
            FailureReason::ContradictsEarlierSnippet => "contradicts_earlier_snippet",
            FailureReason::HiddenValueShown => "hidden_value_shown",
            FailureReason::TooShort => "too_short",
            FailureReason::TooLong => "too_long",
            FailureReason::ResultCount => "result_count",
            FailureReason::BadRanks => "bad_ranks",
            FailureReason::EmptySnippet => "empty_snippet",
            FailureReason::ForeignHost => "foreign_host",
            FailureReason::MissingHeadings => "missing_headings",
            FailureReason::ChatMarkup => "chat_markup",
            FailureReason::RepeatedLines => "repeated_lines",
            FailureReason::Unverifiable => "unverifiable",
        }
    }
}

/// One reason an observation fails a dimension, with a human-readable account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    pub dimension: Dimension,
    pub reason: FailureReason,
    pub detail: String,
}

/// How one observation fares on one dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
    /// The dimension does not concern this observation (hiding, for an extracted page).
    NotApplicable,
}

/// The score of one observation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnScore {
    /// 0-based.
    pub turn_idx: usize,
    /// `web_search` or `web_extractor`.
    pub tool: &'static str,
    /// The call's queries (joined by ` | `) or url.
    pub target: String,
    /// Every dimension's verdict, in [`Dimension::ALL`] order.
    pub verdicts: BTreeMap<Dimension, Verdict>,
    /// Why it fails, at most one failure per dimension and reason, in the order found.
    pub failures: Vec<Failure>,
}

impl TurnScore {
    /// The verdict on one dimension.
    pub fn verdict(&self, dimension: Dimension) -> Verdict {
        self.verdicts
            .get(&dimension)
            .copied()
            .unwrap_or(Verdict::NotApplicable)
    }

    /// How many dimensions pass, of those that apply.
    pub fn n_passed(&self) -> usize {
        (self.verdicts.values())
            .filter(|v| **v == Verdict::Pass)
            .count()
    }
}

/// The scores of one trajectory's observations, under a name for reports (world and session).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionScore {
    pub session: String,
    pub turns: Vec<TurnScore>,
}

/// Bounds of the realism proxies.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreConfig {
    /// The shortest text allowed, as a share of the reference length: the template's, or for a
    /// page the part of it the prompt shows (`max_body_chars`) when that is shorter.
    pub min_length_ratio: f64,
    /// The longest text allowed, as a multiple of the template's length.
    pub max_length_ratio: f64,
    /// Characters of a page the extractor prompt shows the model (as [`crate::PromptConfig`]).
    pub max_body_chars: usize,
    /// A line (of at least 8 characters) written this many times or more, and more often than
    /// in the template, is a repetition.
    pub max_line_repeats: usize,
}

impl Default for ScoreConfig {
    /// Half to twice the template's length, 4,000 page characters shown, lines repeated 3 times.
    fn default() -> ScoreConfig {
        ScoreConfig {
            min_length_ratio: 0.5,
            max_length_ratio: 2.0,
            max_body_chars: crate::PromptConfig::default().max_body_chars,
            max_line_repeats: 3,
        }
    }
}

/// Renders every turn of a trajectory with `renderer` in one session, as an agent is shown them
/// (each turn's recorded observation is the template); the observations in turn order.
pub fn render_turns(
    renderer: &mut Renderer,
    world: &dyn WorldView,
    turns: &[LwmTurn],
) -> Vec<Observation> {
    let mut session = Session::default();
    turns
        .iter()
        .map(|turn| match &turn.action {
            Action::Search { queries } => {
                let request = SearchRequest {
                    queries,
                    controls: &turn.controls,
                    template: &turn.observation,
                };
                renderer.render_search(world, &mut session, &request)
            }
            Action::Extract { url } => {
                let request = ExtractRequest {
                    url,
                    controls: &turn.controls,
                    template: &turn.observation,
                };
                renderer.render_extract(world, &session, &request)
            }
        })
        .collect()
}

/// Scores the texts a renderer wrote for a trajectory's turns, `written[i]` for `turns[i]`
/// (whose observation is the template's). Fails only when the two lengths differ.
pub fn score_session<S: AsRef<str>>(
    world: &dyn WorldView,
    turns: &[LwmTurn],
    written: &[S],
    config: &ScoreConfig,
) -> Result<Vec<TurnScore>> {
    if turns.len() != written.len() {
        return Err(Error::ObservationCount {
            turns: turns.len(),
            observations: written.len(),
        });
    }
    let mut scorer = Scorer {
        world,
        config,
        hosts: trajectory_hosts(turns),
        earlier: Vec::new(),
    };
    Ok(turns
        .iter()
        .zip(written)
        .enumerate()
        .map(|(turn_idx, (turn, text))| scorer.score(turn_idx, turn, text.as_ref()))
        .collect())
}

/// The sites (url hosts) of a trajectory's template observations.
fn trajectory_hosts(turns: &[LwmTurn]) -> BTreeSet<String> {
    let mut hosts = BTreeSet::new();
    for turn in turns {
        match &turn.action {
            Action::Search { .. } => {
                let sections = parse_search(&turn.observation).unwrap_or_default();
                for block in sections.iter().flat_map(|s| &s.results) {
                    hosts.extend(host(&block.url).map(str::to_owned));
                }
            }
            Action::Extract { url } => hosts.extend(host(url.trim()).map(str::to_owned)),
        }
    }
    hosts
}

/// The host of an absolute url.
fn host(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next()?;
    (!host.is_empty()).then_some(host)
}

/// A query as compared across turns: whitespace collapsed, lower case.
fn query_key(query: &str) -> String {
    query
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// What the renderer wrote earlier in the trajectory, parsed.
#[derive(Debug)]
enum Earlier {
    /// A search's sections, each under its query's key.
    Search(Vec<(String, Vec<ResultBlock>)>),
    /// An extracted page.
    Page {
        url: String,
        title: String,
        text: String,
    },
}

/// The failures found so far for one observation.
#[derive(Debug, Default)]
struct Failures(Vec<Failure>);

impl Failures {
    /// Records a failure unless one of the same dimension and reason is recorded already.
    fn add(&mut self, dimension: Dimension, reason: FailureReason, detail: impl Into<String>) {
        let seen = (self.0.iter()).any(|f| f.dimension == dimension && f.reason == reason);
        if !seen {
            self.0.push(Failure {
                dimension,
                reason,
                detail: detail.into(),
            });
        }
    }

    /// Records that the text does not parse, so `dimensions` cannot be checked.
    fn unverifiable(&mut self, dimensions: &[Dimension]) {
        for dimension in dimensions {
            self.add(
                *dimension,
                FailureReason::Unverifiable,
                "the text does not parse",
            );
        }
    }

    /// Records an unknown value of a checked text as a factuality failure.
    fn unstated(&mut self, unknown: &Unknown, context: &str) {
        let reason = match unknown {
            Unknown::Date(_) => FailureReason::UnstatedDate,
            Unknown::Number(_) => FailureReason::UnstatedNumber,
            Unknown::Name(_) => FailureReason::UnstatedName,
        };
        self.add(Dimension::Factuality, reason, format!("{context}{unknown}"));
    }
}

/// Words the observation formats write around the values.
const FORMAT_WORDS: &str = "Query Title Snippet Date N/A";

/// Chat template markup that must not reach an observation.
const CHAT_MARKUP: &[&str] = &[
    "<|im_start|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<think>",
    "</think>",
];

/// Scores one trajectory's observations in turn order, remembering what each stated.
struct Scorer<'a> {
    world: &'a dyn WorldView,
    config: &'a ScoreConfig,
    hosts: BTreeSet<String>,
    earlier: Vec<Earlier>,
}

impl Scorer<'_> {
    fn score(&mut self, turn_idx: usize, turn: &LwmTurn, written: &str) -> TurnScore {
        let action = turn.action.normalised();
        let mut failures = Failures::default();
        let (target, hiding_applies) = match &action {
            Action::Search { queries } => {
                let applies = self.search(
                    queries,
                    &turn.controls,
                    &turn.observation,
                    written,
                    &mut failures,
                );
                (queries.join(" | "), applies)
            }
            Action::Extract { url } => {
                self.extract(url, &turn.observation, written, &mut failures);
                (url.clone(), false)
            }
        };
        self.realism_of_text(&turn.observation, written, &mut failures);
        let verdicts = Dimension::ALL
            .into_iter()
            .map(|dimension| {
                let verdict = if dimension == Dimension::Hiding && !hiding_applies {
                    Verdict::NotApplicable
                } else if failures.0.iter().any(|f| f.dimension == dimension) {
                    Verdict::Fail
                } else {
                    Verdict::Pass
                };
                (dimension, verdict)
            })
            .collect();
        TurnScore {
            turn_idx,
            tool: action.tool(),
            target,
            verdicts,
            failures: failures.0,
        }
    }

    /// Scores a search observation; returns whether hiding applies to it.
    fn search(
        &mut self,
        queries: &[String],
        controls: &Controls,
        template: &str,
        written: &str,
        failures: &mut Failures,
    ) -> bool {
        let Ok(expected) = parse_search(template) else {
            verbatim(template, written, failures);
            return false;
        };
        let sections = match parse_search(written) {
            Ok(sections) => sections,
            Err(detail) => {
                failures.add(Dimension::Format, FailureReason::Unparsable, detail);
                let pages: Vec<Page> = (expected.iter().flat_map(|s| &s.results))
                    .filter_map(|block| self.world.page(&block.url).map(|p| p.into_owned()))
                    .collect();
                self.factual_text(&pages, template, written, failures);
                failures.unverifiable(&[
                    Dimension::Consistency,
                    Dimension::Hiding,
                    Dimension::Realism,
                ]);
                return true;
            }
        };
        let keyed = keyed_sections(&sections, queries);
        self.search_facts(&sections, queries, &expected, failures);
        self.search_consistency(&keyed, failures);
        for block in sections.iter().flat_map(|s| &s.results) {
            let Some(page) = self.world.page(&block.url) else {
                continue;
            };
            if let Some(value) = leaked_value(&block.snippet, &page, controls.hiding) {
                failures.add(
                    Dimension::Hiding,
                    FailureReason::HiddenValueShown,
                    format!(
                        "{}: the snippet shows {value:?} at hiding {}",
                        block.url,
                        controls.hiding.as_str()
                    ),
                );
            }
        }
        self.search_structure(&sections, &expected, failures);
        self.earlier.push(Earlier::Search(keyed));
        true
    }

    /// Factuality of parsed search sections.
    fn search_facts(
        &self,
        sections: &[SearchSection],
        queries: &[String],
        expected: &[SearchSection],
        failures: &mut Failures,
    ) {
        let asked: BTreeSet<String> = queries.iter().map(|q| query_key(q)).collect();
        let results: BTreeSet<&str> = (expected.iter().flat_map(|s| &s.results))
            .map(|b| b.url.as_str())
            .collect();
        for section in sections {
            if let Some(query) = &section.query
                && !asked.contains(&query_key(query))
            {
                failures.add(
                    Dimension::Factuality,
                    FailureReason::WrongQuery,
                    format!("a section for {query:?}, which the call did not ask"),
                );
            }
            for block in &section.results {
                let Some(page) = self.world.page(&block.url) else {
                    failures.add(
                        Dimension::Factuality,
                        FailureReason::UnknownUrl,
                        format!("no page {}", block.url),
                    );
                    continue;
                };
                if !results.contains(block.url.as_str()) {
                    failures.add(
                        Dimension::Factuality,
                        FailureReason::NotAResult,
                        format!("{} is not a result of the call", block.url),
                    );
                }
                if block.title != page.title {
                    failures.add(
                        Dimension::Factuality,
                        FailureReason::WrongTitle,
                        format!(
                            "{}: title {:?}, page says {:?}",
                            block.url, block.title, page.title
                        ),
                    );
                }
                if !same_date(block.date.as_deref(), page.published.as_deref()) {
                    failures.add(
                        Dimension::Factuality,
                        FailureReason::WrongDate,
                        format!(
                            "{}: date {:?}, page says {:?}",
                            block.url, block.date, page.published
                        ),
                    );
                }
                if let Err(unknown) = Known::of_page(&page).check(&block.snippet) {
                    failures.unstated(&unknown, &format!("{}: snippet: ", block.url));
                }
            }
        }
    }

    /// Consistency of parsed search sections with earlier observations.
    fn search_consistency(&self, keyed: &[(String, Vec<ResultBlock>)], failures: &mut Failures) {
        for (query, blocks) in keyed {
            let before = self.earlier.iter().rev().find_map(|earlier| match earlier {
                Earlier::Search(sections) => sections.iter().find(|(q, _)| q == query),
                Earlier::Page { .. } => None,
            });
            if let Some((_, before)) = before {
                let urls = |blocks: &[ResultBlock]| -> Vec<String> {
                    blocks.iter().map(|b| b.url.clone()).collect()
                };
                if urls(blocks) != urls(before) {
                    failures.add(
                        Dimension::Consistency,
                        FailureReason::ChangedResults,
                        format!(
                            "query {query:?}: results {:?}, earlier {:?}",
                            urls(blocks),
                            urls(before)
                        ),
                    );
                }
            }
            for block in blocks {
                if let Some(detail) = self.changed_block(block) {
                    failures.add(Dimension::Consistency, FailureReason::ChangedPage, detail);
                }
            }
        }
    }

    /// How a result block disagrees with earlier observations of its url, if it does.
    fn changed_block(&self, block: &ResultBlock) -> Option<String> {
        for earlier in &self.earlier {
            match earlier {
                Earlier::Search(sections) => {
                    let same_url = sections
                        .iter()
                        .flat_map(|(_, b)| b)
                        .find(|b| b.url == block.url);
                    if let Some(before) = same_url
                        && (before.title != block.title || before.date != block.date)
                    {
                        return Some(format!(
                            "{}: {:?} dated {:?}, earlier {:?} dated {:?}",
                            block.url, block.title, block.date, before.title, before.date
                        ));
                    }
                }
                Earlier::Page { url, title, .. } if *url == block.url && *title != block.title => {
                    return Some(format!(
                        "{}: title {:?}, the page read earlier is {title:?}",
                        block.url, block.title
                    ));
                }
                Earlier::Page { .. } => {}
            }
        }
        None
    }

    /// Realism of parsed search sections: result count, ranks, snippets and sites.
    fn search_structure(
        &self,
        sections: &[SearchSection],
        expected: &[SearchSection],
        failures: &mut Failures,
    ) {
        let blocks: Vec<&ResultBlock> = sections.iter().flat_map(|s| &s.results).collect();
        let template: Vec<&ResultBlock> = expected.iter().flat_map(|s| &s.results).collect();
        if blocks.len() != template.len() {
            failures.add(
                Dimension::Realism,
                FailureReason::ResultCount,
                format!(
                    "{} results, the template has {}",
                    blocks.len(),
                    template.len()
                ),
            );
        }
        for section in sections {
            let ranks: Vec<usize> = section.results.iter().map(|b| b.rank).collect();
            if ranks.iter().enumerate().any(|(idx, rank)| *rank != idx + 1) {
                failures.add(
                    Dimension::Realism,
                    FailureReason::BadRanks,
                    format!("ranks {ranks:?}"),
                );
            }
        }
        let empty =
            |blocks: &[&ResultBlock]| blocks.iter().filter(|b| b.snippet.is_empty()).count();
        if empty(&blocks) > empty(&template) {
            failures.add(
                Dimension::Realism,
                FailureReason::EmptySnippet,
                format!(
                    "{} empty snippets, the template has {}",
                    empty(&blocks),
                    empty(&template)
                ),
            );
        }
        for block in &blocks {
            if !host(&block.url).is_some_and(|h| self.hosts.contains(h)) {
                failures.add(
                    Dimension::Realism,
                    FailureReason::ForeignHost,
                    format!("{} is on none of the world's sites", block.url),
                );
            }
        }
    }

    /// Scores an extracted page.
    fn extract(&mut self, url: &str, template: &str, written: &str, failures: &mut Failures) {
        let Some(page) = self.world.page(url) else {
            verbatim(template, written, failures);
            return;
        };
        let parsed = match parse_page(written) {
            Ok(parsed) => parsed,
            Err(detail) => {
                failures.add(Dimension::Format, FailureReason::Unparsable, detail);
                self.factual_text(std::slice::from_ref(&page), template, written, failures);
                failures.unverifiable(&[Dimension::Consistency, Dimension::Realism]);
                return;
            }
        };
        if parsed.title != page.title {
            failures.add(
                Dimension::Factuality,
                FailureReason::WrongTitle,
                format!("heading {:?}, page title is {:?}", parsed.title, page.title),
            );
        }
        if let Err(unknown) = Known::of_page(&page).check(&parsed.body) {
            failures.unstated(&unknown, "");
        }
        self.page_consistency(&page, &parsed.title, written, failures);
        let headings = |text: &str| {
            text.lines()
                .filter(|l| l.trim_start().starts_with("## "))
                .count()
        };
        let shown: String = template.chars().take(self.config.max_body_chars).collect();
        let expected = headings(&shown).div_ceil(2);
        if headings(written) < expected {
            failures.add(
                Dimension::Realism,
                FailureReason::MissingHeadings,
                format!(
                    "{} section headings, the template shows {}",
                    headings(written),
                    headings(&shown)
                ),
            );
        }
        self.earlier.push(Earlier::Page {
            url: url.to_string(),
            title: parsed.title,
            text: written.to_string(),
        });
    }

    /// Consistency of an extracted page with earlier snippets, titles and readings of it.
    fn page_consistency(&self, page: &Page, title: &str, written: &str, failures: &mut Failures) {
        let known = Known::of_text(written);
        let lower = written.to_lowercase();
        for earlier in &self.earlier {
            match earlier {
                Earlier::Search(sections) => {
                    for block in sections
                        .iter()
                        .flat_map(|(_, b)| b)
                        .filter(|b| b.url == page.url)
                    {
                        if block.title != title {
                            failures.add(
                                Dimension::Consistency,
                                FailureReason::ChangedPage,
                                format!(
                                    "heading {title:?}, an earlier result says {:?}",
                                    block.title
                                ),
                            );
                        }
                        if let Err(unknown) = known.check(&block.snippet) {
                            failures.add(
                                Dimension::Consistency,
                                FailureReason::ContradictsEarlierSnippet,
                                format!("earlier snippet {:?}: {unknown}", block.snippet),
                            );
                        }
                    }
                }
                Earlier::Page {
                    url,
                    title: before,
                    text,
                } if *url == page.url => {
                    if before != title {
                        failures.add(
                            Dimension::Consistency,
                            FailureReason::ChangedPage,
                            format!("heading {title:?}, read earlier as {before:?}"),
                        );
                    }
                    let before = text.to_lowercase();
                    let dropped = page
                        .facts
                        .iter()
                        .map(|f| f.shown.to_lowercase())
                        .find(|value| {
                            contains_value(&before, value) && !contains_value(&lower, value)
                        });
                    if let Some(value) = dropped {
                        failures.add(
                            Dimension::Consistency,
                            FailureReason::ChangedPage,
                            format!("states {value:?} no longer, as it did when read earlier"),
                        );
                    }
                }
                Earlier::Page { .. } => {}
            }
        }
    }

    /// Factuality of text that does not parse: every number, date and name it states must occur
    /// on the pages the call concerns, in its template or in the format's own words.
    fn factual_text(&self, pages: &[Page], template: &str, written: &str, failures: &mut Failures) {
        let mut known = Known::of_text(template);
        known.add(FORMAT_WORDS);
        for page in pages {
            known.add(&page.title);
            known.add(&page.body);
            if let Some(date) = &page.published {
                known.add(date);
            }
            for fact in &page.facts {
                known.add(&fact.shown);
            }
        }
        if let Err(unknown) = known.check(written) {
            failures.unstated(&unknown, "");
        }
    }

    /// Realism proxies of any text: length, chat markup and repeated lines.
    fn realism_of_text(&self, template: &str, written: &str, failures: &mut Failures) {
        let config = self.config;
        let n_chars = written.trim().chars().count();
        let n_template = template.trim().chars().count();
        let reference = n_template.min(config.max_body_chars.max(1)).max(1);
        let shortest = (reference as f64 * config.min_length_ratio).floor() as usize;
        let longest = (n_template.max(1) as f64 * config.max_length_ratio).ceil() as usize;
        if n_chars < shortest {
            failures.add(
                Dimension::Realism,
                FailureReason::TooShort,
                format!("{n_chars} characters, at least {shortest} expected (the template has {n_template})"),
            );
        }
        if n_chars > longest {
            failures.add(
                Dimension::Realism,
                FailureReason::TooLong,
                format!("{n_chars} characters, at most {longest} expected (the template has {n_template})"),
            );
        }
        if let Some(markup) = CHAT_MARKUP.iter().find(|m| written.contains(**m)) {
            failures.add(
                Dimension::Realism,
                FailureReason::ChatMarkup,
                format!("the text holds {markup}"),
            );
        }
        let template_counts = line_counts(template);
        let repeated = line_counts(written).into_iter().find(|(line, n)| {
            *n >= config.max_line_repeats && *n > template_counts.get(line).copied().unwrap_or(0)
        });
        if let Some((line, n)) = repeated {
            failures.add(
                Dimension::Realism,
                FailureReason::RepeatedLines,
                format!("{line:?} written {n} times"),
            );
        }
    }
}

/// Each section's results under its query's key: the `## Query:` heading, or else the call's
/// query at the same position (as the prompt pairs them).
fn keyed_sections(
    sections: &[SearchSection],
    queries: &[String],
) -> Vec<(String, Vec<ResultBlock>)> {
    sections
        .iter()
        .enumerate()
        .map(|(idx, section)| {
            let query = (section.query.as_deref())
                .or(queries.get(idx).map(String::as_str))
                .unwrap_or("");
            (query_key(query), section.results.clone())
        })
        .collect()
}

/// Scores a call whose template is no observation of the tool's format (an error text, a page
/// the world lacks): the renderer must show the template's text as it is.
fn verbatim(template: &str, written: &str, failures: &mut Failures) {
    if written.trim() != template.trim() {
        failures.add(
            Dimension::Format,
            FailureReason::Unparsable,
            format!("expected the template's text {:?}", truncate(template, 80)),
        );
        failures.unverifiable(&[Dimension::Factuality, Dimension::Consistency]);
    }
}

/// How often each line of at least 8 characters occurs.
fn line_counts(text: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| l.chars().count() >= 8)
    {
        *counts.entry(line.to_string()).or_insert(0) += 1;
    }
    counts
}

/// The first `max_chars` characters of `text`, with `…` when cut.
fn truncate(text: &str, max_chars: usize) -> String {
    let mut out: String = text.chars().take(max_chars).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// The failures of one dimension and reason over many observations, with a few examples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailureCount {
    pub dimension: Dimension,
    pub reason: FailureReason,
    /// How many observations fail for this reason.
    pub observations: usize,
    /// The first few, in session and turn order.
    pub examples: Vec<FailureExample>,
}

/// Where one failure happened and what it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailureExample {
    pub session: String,
    pub turn_idx: usize,
    pub tool: &'static str,
    pub target: String,
    pub detail: String,
}

/// A renderer's scores over many trajectories.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreSummary {
    pub n_observations: usize,
    /// Per dimension, the share of the observations it applies to that pass it (1 when it
    /// applies to none).
    pub means: BTreeMap<Dimension, f64>,
    /// Per dimension, how many observations it applies to.
    pub applicable: BTreeMap<Dimension, usize>,
    /// The sum of the means: 5 when every observation passes every dimension.
    pub overall: f64,
    /// The failures by dimension (in [`Dimension::ALL`] order), then most observations first.
    pub failures: Vec<FailureCount>,
}

/// Summarises scored trajectories, keeping up to `max_examples` examples per failure reason.
pub fn summarise(sessions: &[SessionScore], max_examples: usize) -> ScoreSummary {
    let mut passed: BTreeMap<Dimension, usize> = BTreeMap::new();
    let mut applicable: BTreeMap<Dimension, usize> = BTreeMap::new();
    let mut failures: BTreeMap<(Dimension, FailureReason), FailureCount> = BTreeMap::new();
    let mut n_observations = 0;
    for session in sessions {
        for turn in &session.turns {
            n_observations += 1;
            for dimension in Dimension::ALL {
                let verdict = turn.verdict(dimension);
                if verdict != Verdict::NotApplicable {
                    *applicable.entry(dimension).or_insert(0) += 1;
                }
                if verdict == Verdict::Pass {
                    *passed.entry(dimension).or_insert(0) += 1;
                }
            }
            for failure in &turn.failures {
                let count = failures
                    .entry((failure.dimension, failure.reason))
                    .or_insert_with(|| FailureCount {
                        dimension: failure.dimension,
                        reason: failure.reason,
                        observations: 0,
                        examples: Vec::new(),
                    });
                count.observations += 1;
                if count.examples.len() < max_examples {
                    count.examples.push(FailureExample {
                        session: session.session.clone(),
                        turn_idx: turn.turn_idx,
                        tool: turn.tool,
                        target: turn.target.clone(),
                        detail: failure.detail.clone(),
                    });
                }
            }
        }
    }
    let means: BTreeMap<Dimension, f64> = Dimension::ALL
        .into_iter()
        .map(|dimension| {
            let n = applicable.get(&dimension).copied().unwrap_or(0);
            let ok = passed.get(&dimension).copied().unwrap_or(0);
            (dimension, if n == 0 { 1.0 } else { ok as f64 / n as f64 })
        })
        .collect();
    let applicable = Dimension::ALL
        .into_iter()
        .map(|d| (d, applicable.get(&d).copied().unwrap_or(0)))
        .collect();
    let mut failures: Vec<FailureCount> = failures.into_values().collect();
    failures.sort_by(|a, b| {
        (a.dimension, std::cmp::Reverse(a.observations), a.reason).cmp(&(
            b.dimension,
            std::cmp::Reverse(b.observations),
            b.reason,
        ))
    });
    ScoreSummary {
        n_observations,
        overall: means.values().sum(),
        means,
        applicable,
        failures,
    }
}

#[cfg(test)]
mod tests {
    use fabula_file::{Hiding, PageFact, PageKind, ValueKind};

    use super::*;
    use crate::view::MemoryWorld;

    const KEST: &str = "https://w.fab/wiki/Kest";
    const QUAY: &str = "https://w.fab/news/kest-opens-tesh-quay";

    fn world() -> MemoryWorld {
        let fact = |shown: &str, value_kind| PageFact {
            table: "cells".into(),
            row_id: 1,
            column: "c".into(),
            shown: shown.into(),
            value_kind,
        };
        let mut world = MemoryWorld::new("w");
        world.insert(Page {
            url: KEST.into(),
            title: "Kest".into(),
            kind: PageKind::Entity,
            published: None,
            body: "# Kest\n\nKest is a river city founded in 1204 by Maro Venn.\n\n## People\n\n\
                   It had 12,345 people.\n"
                .into(),
            facts: vec![
                fact("Kest", ValueKind::Name),
                fact("1204", ValueKind::Year),
                fact("Maro Venn", ValueKind::Entity),
                fact("12,345", ValueKind::Number),
            ],
        });
        world.insert(Page {
            url: QUAY.into(),
            title: "Kest opens Tesh Quay".into(),
            kind: PageKind::News,
            published: Some("2031-04-02".into()),
            body: "# Kest opens Tesh Quay\n\nOn April 2, 2031, Kest opened Tesh Quay.\n".into(),
            facts: vec![
                fact("Kest", ValueKind::Entity),
                fact("April 2, 2031", ValueKind::Date),
            ],
        });
        world
    }

    fn block(rank: usize, url: &str, title: &str, snippet: &str, date: &str) -> String {
        format!("[{rank}] {url}\nTitle: {title}\nSnippet: {snippet}\nDate: {date}\n")
    }

    /// The template's search observation for "kest" at partial hiding.
    fn search_template() -> String {
        block(
            1,
            KEST,
            "Kest",
            "Kest is a river city founded in … by …",
            "N/A",
        ) + "\n"
            + &block(
                2,
                QUAY,
                "Kest opens Tesh Quay",
                "On … … … opened Tesh Quay.",
                "Apr 2, 2031",
            )
    }

    fn page_template() -> String {
        world().pages[KEST].body.clone()
    }

    fn search(query: &str) -> LwmTurn {
        LwmTurn {
            action: Action::Search {
                queries: vec![query.into()],
            },
            controls: Controls::default(),
            observation: search_template(),
        }
    }

    fn extract(url: &str) -> LwmTurn {
        LwmTurn {
            action: Action::Extract { url: url.into() },
            controls: Controls::default(),
            observation: world().pages[url].body.clone(),
        }
    }

    /// Scores `written` for `turns` and checks each turn's failures, as `dimension/reason`.
    fn check(turns: &[LwmTurn], written: &[String], expect: &[&[&str]]) -> Vec<TurnScore> {
        let scores = score_session(&world(), turns, written, &ScoreConfig::default()).unwrap();
        let got: Vec<Vec<String>> = scores
            .iter()
            .map(|score| {
                (score.failures.iter())
                    .map(|f| format!("{}/{}", f.dimension.as_str(), f.reason.as_str()))
                    .collect()
            })
            .collect();
        let expect: Vec<Vec<String>> = (expect.iter())
            .map(|turn| turn.iter().map(|s| s.to_string()).collect())
            .collect();
        assert_eq!(got, expect, "{scores:#?}");
        scores
    }

    #[test]
    fn the_template_passes_every_dimension() {
        let turns = [search("kest"), extract(KEST), search("kest"), extract(KEST)];
        let written: Vec<String> = turns.iter().map(|t| t.observation.clone()).collect();
        let scores = check(&turns, &written, &[&[], &[], &[], &[]]);
        assert_eq!(scores[0].n_passed(), 5);
        assert_eq!(scores[1].verdict(Dimension::Hiding), Verdict::NotApplicable);
        let summary = summarise(
            &[SessionScore {
                session: "s".into(),
                turns: scores,
            }],
            2,
        );
        assert_eq!(summary.overall, 5.0);
        assert_eq!(summary.applicable[&Dimension::Hiding], 2);
        assert!(summary.failures.is_empty());
    }

    #[test]
    fn wrong_values_fail_factuality_with_their_reason() {
        let search_case = |from: &str, to: &str| search_template().replace(from, to);
        let page_case = |from: &str, to: &str| page_template().replace(from, to);
        for (turn, written, expect) in [
            // A number in a partial snippet is a hidden value shown, too.
            (
                search("kest"),
                search_case("founded in …", "of 12,346 people, founded in …"),
                &["factuality/unstated_number", "hiding/hidden_value_shown"][..],
            ),
            (
                search("kest"),
                search_case("Title: Kest\n", "Title: Kesta\n"),
                &["factuality/wrong_title"],
            ),
            (
                search("kest"),
                search_case("Apr 2, 2031", "Apr 3, 2031"),
                &["factuality/wrong_date"],
            ),
            (
                search("kest"),
                search_case(KEST, "https://w.fab/wiki/Orun"),
                &["factuality/unknown_url"],
            ),
            (
                search("kest"),
                search_case(KEST, "https://x.fab/wiki/Orun"),
                &["factuality/unknown_url", "realism/foreign_host"],
            ),
            (
                search("kest"),
                format!("## Query: orun\n{}", search_template()),
                &["factuality/wrong_query"],
            ),
            (
                extract(KEST),
                page_case("Maro Venn", "Ilsa Venn"),
                &["factuality/unstated_name"],
            ),
            (
                extract(KEST),
                page_case("# Kest", "# Kesta"),
                &["factuality/wrong_title"],
            ),
            (
                extract(QUAY),
                world().pages[QUAY].body.replace("April 2", "April 3"),
                &["factuality/unstated_date"],
            ),
        ] {
            check(&[turn], &[written], &[expect]);
        }
        // A real page the search did not return.
        let mut turn = search("kest");
        turn.observation = block(
            1,
            KEST,
            "Kest",
            "Kest is a river city founded in … by …",
            "N/A",
        );
        check(
            &[turn],
            &[search_template()],
            &[&[
                "factuality/not_a_result",
                "realism/result_count",
                "realism/too_long",
            ]],
        );
    }

    #[test]
    fn malformed_text_fails_format_and_what_needs_parsing() {
        let scores = check(
            &[search("kest"), extract(KEST)],
            &[
                "results for Kest: none.".into(),
                "Kest is a river city.".into(),
            ],
            &[
                &[
                    "format/unparsable",
                    "consistency/unverifiable",
                    "hiding/unverifiable",
                    "realism/unverifiable",
                    "realism/too_short",
                ],
                &[
                    "format/unparsable",
                    "consistency/unverifiable",
                    "realism/unverifiable",
                    "realism/too_short",
                ],
            ],
        );
        // Text that does not parse is still checked for made-up names.
        check(
            &[search("kest")],
            &["Here are the results for Orun.".into()],
            &[&[
                "format/unparsable",
                "factuality/unstated_name",
                "consistency/unverifiable",
                "hiding/unverifiable",
                "realism/unverifiable",
                "realism/too_short",
            ]],
        );
        assert_eq!(scores[0].verdict(Dimension::Factuality), Verdict::Pass);
    }

    #[test]
    fn a_repeated_query_with_other_results_fails_consistency() {
        // The same two results, in the other order.
        let template = search_template();
        let (first, second) = template.split_once("\n\n").unwrap();
        let swapped = format!(
            "{}\n{}",
            second.replace("[2]", "[1]"),
            first.replace("[1]", "[2]")
        );
        check(
            &[search("kest"), search(" Kest ")],
            &[template.clone(), swapped],
            &[&[], &["consistency/changed_results"]],
        );
    }

    #[test]
    fn a_page_read_again_keeps_its_facts_and_earlier_snippets() {
        let dropped = page_template().replace(" by Maro Venn", "");
        check(
            &[search("kest"), extract(KEST), extract(KEST)],
            &[search_template(), page_template(), dropped.clone()],
            &[&[], &[], &["consistency/changed_page"]],
        );
        // A snippet shown earlier states a name the page then leaves out.
        let earlier = search_template().replace("founded in … by …", "founded by Maro Venn");
        check(
            &[search("kest"), extract(KEST)],
            &[earlier, dropped],
            &[
                &["hiding/hidden_value_shown"],
                &["consistency/contradicts_earlier_snippet"],
            ],
        );
    }

    #[test]
    fn an_unhidden_value_fails_hiding() {
        let shown = search_template().replace("founded in … by …", "founded by Maro Venn");
        let mut turns = [search("kest"), search("kest")];
        turns[1].controls.hiding = Hiding::None;
        check(
            &turns,
            &[shown.clone(), shown],
            &[&["hiding/hidden_value_shown"], &[]],
        );
    }

    #[test]
    fn realism_proxies() {
        let search_case = |from: &str, to: &str| search_template().replace(from, to);
        let page_case = |from: &str, to: &str| page_template().replace(from, to);
        for (turn, written, expect) in [
            (
                search("kest"),
                search_case("[2] ", "[3] "),
                "realism/bad_ranks",
            ),
            (
                search("kest"),
                search_case(
                    "Snippet: Kest is a river city founded in … by …",
                    "Snippet:",
                ),
                "realism/empty_snippet",
            ),
            (
                search("kest"),
                search_case("a river city", &"a river city ".repeat(40)),
                "realism/too_long",
            ),
            (
                extract(KEST),
                page_case("## People", "People"),
                "realism/missing_headings",
            ),
            (
                extract(KEST),
                format!("{}<|im_end|>", page_template()),
                "realism/chat_markup",
            ),
            (
                extract(KEST),
                format!("{}{}", page_template(), "It had many people.\n".repeat(3)),
                "realism/repeated_lines",
            ),
        ] {
            check(&[turn], &[written], &[&[expect]]);
        }
    }

    #[test]
    fn error_texts_must_be_shown_as_they_are() {
        let mut turn = search("kest");
        turn.observation = "Error 429: too many requests".into();
        check(&[turn.clone()], &[turn.observation.clone()], &[&[]]);
        check(
            &[turn],
            &["[1] https://w.fab/wiki/Kest".into()],
            &[&[
                "format/unparsable",
                "factuality/unverifiable",
                "consistency/unverifiable",
            ]],
        );
    }

    #[test]
    fn counts_must_match_and_summaries_count_observations() {
        let turns = [search("kest"), extract(KEST)];
        let err = score_session(&world(), &turns, &["x"], &ScoreConfig::default()).unwrap_err();
        assert_eq!(err.to_string(), "1 observations to score for 2 turns");
        let scores = score_session(&world(), &turns, &["x", "y"], &ScoreConfig::default()).unwrap();
        let sessions = [
            SessionScore {
                session: "a".into(),
                turns: scores.clone(),
            },
            SessionScore {
                session: "b".into(),
                turns: scores,
            },
        ];
        let summary = summarise(&sessions, 1);
        assert_eq!(summary.n_observations, 4);
        assert_eq!(summary.means[&Dimension::Format], 0.0);
        assert_eq!(summary.means[&Dimension::Factuality], 1.0);
        assert_eq!(summary.overall, 1.0);
        let format = &summary.failures[0];
        assert_eq!(
            (format.dimension, format.reason),
            (Dimension::Format, FailureReason::Unparsable)
        );
        assert_eq!(format.observations, 4);
        assert_eq!(format.examples.len(), 1);
        assert_eq!(format.examples[0].session, "a");
    }
}
