//! The baseline agent's plans: the `agent` steps of `templates/tasks/questions.toml`, parsed once
//! into [`Step`]s. The file's header describes each step in words; [`Step::parse`] is the one
//! place that reads them, and a plan that does not parse is a bug in the file (a test parses
//! every plan).

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The smallest or the largest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Extreme {
    Min,
    Max,
}

/// Before or after a year.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Before,
    After,
}

/// An infobox row label: text with `{slot}` placeholders that the question fills, matched
/// case-insensitively as a whole or, when written with a final `*`, as a prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Label {
    pub text: String,
    pub prefix: bool,
}

impl Label {
    fn parse(raw: &str) -> Label {
        match raw.strip_suffix('*') {
            Some(text) => Label {
                text: text.to_owned(),
                prefix: true,
            },
            None => Label {
                text: raw.to_owned(),
                prefix: false,
            },
        }
    }
}

/// A label read on a row's page: `B`, `A>B` (B read on the page row A links to) or a longer
/// chain `A>B>C` (C read on the page that B links to on A's page).
pub(crate) type PathLabel = (Vec<Label>, Label);

/// One step of a plan. Slot arguments name a value of the question (`person`, `year`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// `open SLOT`: search the slot's value and open the page titled so.
    Open { slot: String },
    /// `open_title TEXT`: search TEXT (slots filled) and open the page titled so.
    OpenTitle { title: String },
    /// `follow LABEL`: open the link in an infobox row.
    Follow(Label),
    /// `read LABEL`: read an infobox row; it is the answer and one read value.
    Read(Label),
    /// `pick min|max`: answer the subject whose first read value is the extreme.
    Pick(Extreme),
    /// `people`: open the organisation's people page.
    People,
    /// `winner`: open the entity placed first.
    Winner,
    /// `during SLOT [FILTER]`: answer the first link of the table row whose from-to years
    /// enclose the slot's year (and that holds FILTER's value).
    During {
        year: String,
        filter: Option<String>,
    },
    /// `column NAME min|max [FILTER]`: answer the first cell of the row with the extreme NAME
    /// value (among the rows that hold FILTER's value).
    Column {
        name: String,
        extreme: Extreme,
        filter: Option<String>,
    },
    /// `each LABEL..`: open every entity the page's tables list and read the labels on each.
    /// Labels are separated by `|` when one holds spaces, else by spaces.
    Each(Vec<Label>),
    /// `rows before|after NAME`: read the table rows whose NAME value lies before or after the
    /// question's year.
    Rows { side: Side, column: String },
    /// `table HEADER|HEADER..`: answer the reads as a Markdown table (slots filled).
    Table { header: Vec<String> },
    /// `sum before SLOT`: answer the sum of the second values read where the first lies before
    /// the slot's year.
    SumBefore { year: String },
    /// `count_each HEADING`: open every entity the page's tables list and answer the total
    /// number of table rows under the section HEADING (slots filled) on them.
    CountEach { heading: String },
    /// `count_rows before|after NAME|HEADING`: open the entity of every table row whose NAME
    /// value lies before or after the question's year and answer the total number of rows
    /// listed under the section HEADING on them.
    CountRows {
        side: Side,
        column: String,
        heading: String,
    },
    /// `each_under HEADING|LABEL`: open every entity the page's tables list, then every entity
    /// listed under the section HEADING (slots filled) on each, and read LABEL on those.
    EachUnder { heading: String, label: Label },
    /// `count before SLOT`: answer how many first values read lie before the slot's year.
    CountBefore { year: String },
    /// `total`: answer the sum of the first values read.
    Total,
    /// `names [before SLOT]`: answer the subjects read (those whose first value lies before
    /// the slot's year), one per line.
    Names { before: Option<String> },
    /// `each_row before|after NAME|LABEL..`: open the entity of every table row whose NAME
    /// value lies before or after the question's year and read the labels on it; a label
    /// `A>B` follows the link in row A and reads B there.
    EachRow {
        side: Side,
        column: String,
        labels: Vec<PathLabel>,
    },
    /// `each_match SLOT NAME|LABEL..`: open the entity of every table row whose NAME value is
    /// the slot's value (ignoring case) and read the labels on it, as `each_row` does.
    EachMatch {
        slot: String,
        column: String,
        labels: Vec<PathLabel>,
    },
    /// `census SLOT`: open the report of the census of the slot's year and answer the count it
    /// lists for the open page's subject.
    Census { year: String },
    /// `identify`: on the open list of people, answer the first person every clue of the
    /// question fits (see the `identify` module).
    Identify,
    /// `frontier`: on the open list of people, answer the one person every blurred clue of the
    /// question fits; `frontier all`: every such person, a set (see the `frontier` module).
    Frontier { all: bool },
    /// `frontier each LABEL|..`: on the open list of people, open every person every blurred
    /// clue fits and read the labels on them, as `each_row` does (for a `table` step after).
    FrontierEach { labels: Vec<PathLabel> },
}

impl Step {
    /// Parses one step as the phrasing file writes it.
    pub(crate) fn parse(text: &str) -> Result<Step, String> {
        let (verb, arg) = text.split_once(' ').unwrap_or((text, ""));
        let words: Vec<&str> = arg.split_whitespace().collect();
        let step = match (verb, words.as_slice()) {
            ("open", [slot]) => Step::Open {
                slot: (*slot).to_owned(),
            },
            ("open_title", [_, ..]) => Step::OpenTitle {
                title: arg.to_owned(),
            },
            ("follow", [_, ..]) => Step::Follow(Label::parse(arg)),
            ("read", [_, ..]) => Step::Read(Label::parse(arg)),
            ("pick", [extreme]) => Step::Pick(parse_extreme(extreme)?),
            ("people", []) => Step::People,
            ("winner", []) => Step::Winner,
            ("identify", []) => Step::Identify,
            ("frontier", []) => Step::Frontier { all: false },
            ("frontier", ["all"]) => Step::Frontier { all: true },
            ("frontier", ["each", _, ..]) => {
                let labels = arg["each".len()..].trim();
                Step::FrontierEach {
                    labels: labels.split('|').map(str::trim).map(path_label).collect(),
                }
            }
            ("total", []) => Step::Total,
            ("names", []) => Step::Names { before: None },
            ("names", ["before", year]) => Step::Names {
                before: Some((*year).to_owned()),
            },
            ("count", ["before", year]) => Step::CountBefore {
                year: (*year).to_owned(),
            },
            ("each_row", [side, _, ..]) => {
                let (column, labels) = column_and_labels(text, &arg[side.len()..])?;
                Step::EachRow {
                    side: parse_side(side)?,
                    column,
                    labels,
                }
            }
            ("count_rows", [side, _, ..]) => {
                let rest = arg[side.len()..].trim();
                let (column, heading) = rest
                    .split_once('|')
                    .ok_or_else(|| format!("`{text}` has no `|` before its heading"))?;
                Step::CountRows {
                    side: parse_side(side)?,
                    column: column.trim().to_owned(),
                    heading: heading.trim().to_owned(),
                }
            }
            ("each_match", [slot, _, ..]) => {
                let (column, labels) = column_and_labels(text, &arg[slot.len()..])?;
                Step::EachMatch {
                    slot: (*slot).to_owned(),
                    column,
                    labels,
                }
            }
            ("each_under", [_, ..]) => {
                let (heading, label) = arg
                    .split_once('|')
                    .ok_or_else(|| format!("`{text}` has no `|` before its label"))?;
                Step::EachUnder {
                    heading: heading.trim().to_owned(),
                    label: Label::parse(label.trim()),
                }
            }
            ("during", [year, rest @ ..]) if rest.len() <= 1 => Step::During {
                year: (*year).to_owned(),
                filter: rest.first().map(|f| (*f).to_owned()),
            },
            ("column", [name, extreme, rest @ ..]) if rest.len() <= 1 => Step::Column {
                name: (*name).to_owned(),
                extreme: parse_extreme(extreme)?,
                filter: rest.first().map(|f| (*f).to_owned()),
            },
            ("each", [_, ..]) => Step::Each(each_labels(arg)),
            ("rows", [side, column]) => Step::Rows {
                side: parse_side(side)?,
                column: (*column).to_owned(),
            },
            ("table", [_, ..]) => Step::Table {
                header: arg.split('|').map(|h| h.trim().to_owned()).collect(),
            },
            ("sum", ["before", year]) => Step::SumBefore {
                year: (*year).to_owned(),
            },
            ("census", [year]) => Step::Census {
                year: (*year).to_owned(),
            },
            ("count_each", [_, ..]) => Step::CountEach {
                heading: arg.to_owned(),
            },
            _ => return Err(format!("unknown agent step `{text}`")),
        };
        Ok(step)
    }
}

fn parse_extreme(word: &str) -> Result<Extreme, String> {
    match word {
        "min" => Ok(Extreme::Min),
        "max" => Ok(Extreme::Max),
        _ => Err(format!("`{word}` is neither min nor max")),
    }
}

fn parse_side(word: &str) -> Result<Side, String> {
    match word {
        "before" => Ok(Side::Before),
        "after" => Ok(Side::After),
        _ => Err(format!("`{word}` is neither before nor after")),
    }
}

/// A label of an `each_row` step: `A>B` reads B on the page row A links to, `A>B>C` reads C
/// on the page row B of that page links to.
fn path_label(text: &str) -> PathLabel {
    let mut labels: Vec<Label> = text.split('>').map(|l| Label::parse(l.trim())).collect();
    let last = labels.pop().expect("split yields at least one piece");
    (labels, last)
}

/// The `NAME|LABEL..` end of an `each_row` or `each_match` step: the column and the labels
/// read on each row's page; `step` is the whole step, for the error.
fn column_and_labels(step: &str, rest: &str) -> Result<(String, Vec<PathLabel>), String> {
    let mut parts = rest.trim().split('|').map(str::trim);
    let column = parts.next().unwrap_or_default().to_owned();
    let labels: Vec<PathLabel> = parts.map(path_label).collect();
    if labels.is_empty() {
        return Err(format!("`{step}` reads no label"));
    }
    Ok((column, labels))
}

/// The labels of an `each` step: split on `|` when there is one, else on spaces.
fn each_labels(arg: &str) -> Vec<Label> {
    if arg.contains('|') {
        arg.split('|').map(|l| Label::parse(l.trim())).collect()
    } else {
        arg.split_whitespace().map(Label::parse).collect()
    }
}

/// Parses a whole plan; the error names the first step that does not parse.
pub(crate) fn parse_plan(steps: &[String]) -> Result<Vec<Step>, String> {
    steps.iter().map(|s| Step::parse(s)).collect()
}

/// The plan of every template, by kind and template name, parsed once. Panics when a plan of the
/// phrasing file does not parse, which a unit test rules out.
fn plans() -> &'static BTreeMap<(String, String), Vec<Step>> {
    static PLANS: OnceLock<BTreeMap<(String, String), Vec<Step>>> = OnceLock::new();
    PLANS.get_or_init(|| {
        let mut plans = BTreeMap::new();
        for (kind, by_name) in fabula_vocab::phrasings::templates() {
            for (name, template) in by_name {
                let plan = parse_plan(&template.agent)
                    .unwrap_or_else(|e| panic!("questions.toml [{kind}.{name}]: {e}"));
                plans.insert((kind.clone(), name.clone()), plan);
            }
        }
        plans
    })
}

/// The plan of the template `kind.name`; empty when the template has none.
pub(crate) fn plan(kind: &str, name: &str) -> &'static [Step] {
    plans()
        .get(&(kind.to_owned(), name.to_owned()))
        .map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that a step parses to `expect` (its `Debug` text) or fails.
    fn check(text: &str, expect: &str) {
        let got = match Step::parse(text) {
            Ok(step) => format!("{step:?}"),
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(got, expect, "{text}");
    }

    #[test]
    fn steps_parse_into_their_parts() {
        check("open person", r#"Open { slot: "person" }"#);
        check(
            "open_title List of {settlements_noun}",
            r#"OpenTitle { title: "List of {settlements_noun}" }"#,
        );
        check(
            "read Born",
            r#"Read(Label { text: "Born", prefix: false })"#,
        );
        check(
            "follow Home*",
            r#"Follow(Label { text: "Home", prefix: true })"#,
        );
        check(
            "read {region_noun}",
            r#"Read(Label { text: "{region_noun}", prefix: false })"#,
        );
        check("pick min", "Pick(Min)");
        check("people", "People");
        check("winner", "Winner");
        check("identify", "Identify");
        check("frontier", "Frontier { all: false }");
        check("frontier all", "Frontier { all: true }");
        check(
            "frontier each Born|Birthplace>Population",
            r#"FrontierEach { labels: [([], Label { text: "Born", prefix: false }), ([Label { text: "Birthplace", prefix: false }], Label { text: "Population", prefix: false })] }"#,
        );
        check("total", "Total");
        check("names", "Names { before: None }");
        check(
            "each_match occupation Occupation|Born|Birthplace>{region_noun}",
            r#"EachMatch { slot: "occupation", column: "Occupation", labels: [([], Label { text: "Born", prefix: false }), ([Label { text: "Birthplace", prefix: false }], Label { text: "{region_noun}", prefix: false })] }"#,
        );
        check(
            "count_rows before Founded|Notable people born here",
            r#"CountRows { side: Before, column: "Founded", heading: "Notable people born here" }"#,
        );
        check("names before year", r#"Names { before: Some("year") }"#);
        check(
            "each_row after Founded|Founder|Home*>{region_noun}",
            r#"EachRow { side: After, column: "Founded", labels: [([], Label { text: "Founder", prefix: false }), ([Label { text: "Home", prefix: true }], Label { text: "{region_noun}", prefix: false })] }"#,
        );
        check(
            "each_row before Born|Birthplace>{region_noun}>Population",
            r#"EachRow { side: Before, column: "Born", labels: [([Label { text: "Birthplace", prefix: false }, Label { text: "{region_noun}", prefix: false }], Label { text: "Population", prefix: false })] }"#,
        );
        check("count before year", r#"CountBefore { year: "year" }"#);
        check("census year", r#"Census { year: "year" }"#);
        check(
            "each_under {orgs_noun} based here|Members",
            r#"EachUnder { heading: "{orgs_noun} based here", label: Label { text: "Members", prefix: false } }"#,
        );
        check("during year", r#"During { year: "year", filter: None }"#);
        check(
            "during year seat",
            r#"During { year: "year", filter: Some("seat") }"#,
        );
        check(
            "column Founded min category",
            r#"Column { name: "Founded", extreme: Min, filter: Some("category") }"#,
        );
        check(
            "column Population max",
            r#"Column { name: "Population", extreme: Max, filter: None }"#,
        );
        check(
            "each Founded Population",
            r#"Each([Label { text: "Founded", prefix: false }, Label { text: "Population", prefix: false }])"#,
        );
        check(
            "each Orbital period (days)|Host*",
            r#"Each([Label { text: "Orbital period (days)", prefix: false }, Label { text: "Host", prefix: true }])"#,
        );
        check(
            "rows before Founded",
            r#"Rows { side: Before, column: "Founded" }"#,
        );
        check(
            "table {settlement_noun}|Founded",
            r#"Table { header: ["{settlement_noun}", "Founded"] }"#,
        );
        check("sum before year", r#"SumBefore { year: "year" }"#);
        check(
            "count_each {orgs_noun} based here",
            r#"CountEach { heading: "{orgs_noun} based here" }"#,
        );
    }

    #[test]
    fn malformed_steps_are_errors() {
        check("pick", "error: unknown agent step `pick`");
        check("pick most", "error: `most` is neither min nor max");
        check(
            "rows during Founded",
            "error: `during` is neither before nor after",
        );
        check("open", "error: unknown agent step `open`");
        check("open a b", "error: unknown agent step `open a b`");
        check("count_each", "error: unknown agent step `count_each`");
        check(
            "sum after year",
            "error: unknown agent step `sum after year`",
        );
        check("identify me", "error: unknown agent step `identify me`");
        check("census", "error: unknown agent step `census`");
        check(
            "count after year",
            "error: unknown agent step `count after year`",
        );
        check(
            "each_row before Born",
            "error: `each_row before Born` reads no label",
        );
        check(
            "each_row during Born|Born",
            "error: `during` is neither before nor after",
        );
        check(
            "each_under People born here",
            "error: `each_under People born here` has no `|` before its label",
        );
        check("fly away", "error: unknown agent step `fly away`");
    }

    #[test]
    fn every_plan_of_the_phrasing_file_parses() {
        let n_steps: usize = plans().values().map(Vec::len).sum();
        assert!(n_steps >= 60, "{n_steps} steps");
        assert!(plan("lookup", "no_such_template").is_empty());
        assert_eq!(
            plan("lookup", "person_birth_year"),
            parse_plan(&["open person".into(), "read Born".into()]).unwrap()
        );
    }
}
