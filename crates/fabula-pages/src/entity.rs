//! What every encyclopedia article and own-site page shares, whatever its plan (`articles.rs`):
//! the page template, sections, listings that are a table or a sentence, and the asides and
//! background section that state no fact.

use rand::RngExt;
use serde::Serialize;

use fabula_file::{Page, PageKind, TableRole};

use crate::draft::{Ctx, Draft};
use crate::filler::{Words, living_person, other_place};
use crate::prose::{Alias, Prose, and_list};
use crate::templates;

/// How often an infobox leaves out a value its lead states, so that it is stated only in prose.
pub(crate) const PROSE_ONLY_SHARE: f64 = 0.6;
/// How many asides an article adds after its facts.
const ASIDES: std::ops::RangeInclusive<usize> = 2..=3;
/// How many sentences of background an article's background section holds.
const BACKGROUND: std::ops::RangeInclusive<usize> = 3..=6;
/// How often a section that lists linked entities is a sentence instead of a table.
const LIST_AS_PROSE_SHARE: f64 = 0.5;
/// How often an article's prose names another entity in plain text rather than as a link, where
/// the entity's own article links back (see `articles.rs`).
pub(crate) const PLAIN_MENTION_SHARE: f64 = 1.0 / 3.0;

/// One section of an article: prose, a table, or both.
#[derive(Serialize, Default)]
pub(crate) struct Section {
    pub heading: String,
    pub text: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

#[derive(Serialize)]
struct Article<'a> {
    title: &'a str,
    lead: String,
    infobox: Vec<(String, String)>,
    sections: Vec<Section>,
    see_also: Vec<String>,
}

pub(crate) fn label(text: &str) -> String {
    crate::english::upper_first(text)
}

pub(crate) fn article(
    d: Draft,
    lead: Vec<String>,
    infobox: Vec<(String, String)>,
    sections: Vec<Section>,
    background: Option<Section>,
    see_also: Vec<String>,
) -> Page {
    let title = d.title.clone();
    // A heading over nothing says nothing: sections without rows or text are left out.
    let sections = sections
        .into_iter()
        .chain(background)
        .filter(|s| !s.rows.is_empty() || !s.text.is_empty())
        .collect();
    let body = templates::render(
        "entity.md.j2",
        Article {
            title: &title,
            lead: lead
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n"),
            infobox,
            sections,
            see_also,
        },
    );
    d.finish(body)
}

impl Section {
    /// A section holding only a table.
    pub(crate) fn table(
        heading: impl Into<String>,
        columns: Vec<String>,
        rows: Vec<Vec<String>>,
    ) -> Section {
        Section {
            heading: heading.into(),
            columns,
            rows,
            ..Default::default()
        }
    }
}

/// How a listing section reads as prose: a paragraph about the page's subject, one sentence of
/// bank `key` with `{list}` and these other values.
pub(crate) struct ListSentence<'a> {
    pub(crate) prose: Prose,
    pub(crate) key: &'a str,
    pub(crate) values: &'a [(&'a str, &'a str)],
}

/// A section that lists linked entities, as a table or (when `sentence` is given) as one
/// sentence, `{list}` filled with the links of the rows' first cells.
pub(crate) fn listing(
    ctx: &mut Ctx,
    heading: String,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
    sentence: Option<ListSentence>,
) -> Section {
    let Some(ListSentence {
        mut prose,
        key,
        values,
    }) = sentence
    else {
        return Section::table(heading, columns, rows);
    };
    if rows.is_empty() {
        return Section::default();
    }
    let links: Vec<String> = rows
        .into_iter()
        .filter_map(|r| r.into_iter().next())
        .collect();
    let list = and_list(&links);
    let mut all = vec![("list", list.as_str())];
    all.extend_from_slice(values);
    prose.say(ctx.rng, key, &all);
    Section {
        heading,
        text: prose.finish(ctx.rng),
        ..Default::default()
    }
}

/// The asides about an article's subject: two or three after its facts, from the
/// `aside_{kind}` bank, and a section of three to six more under a heading of the
/// `heading_{kind}` bank, from the rest of that bank and `aside_any`. Background that states no
/// fact, no phrasing twice on one page: opinions, weather and craft, some naming a person living
/// now or another settlement, its words drawn as the filler pages draw theirs (see
/// [`crate::filler`]).
pub(crate) fn asides(
    ctx: &mut Ctx,
    name: &str,
    alias: Alias,
    kind: &str,
    noun: &str,
) -> (String, Section) {
    let banks = templates::banks();
    let phrasings = |key: &str| -> Vec<&'static str> {
        banks[key].phrases.iter().map(String::as_str).collect()
    };
    let mut pool = phrasings(&format!("aside_{kind}"));
    let n = ctx.rng.random_range(ASIDES);
    let mut lead = Prose::continued(name, alias.clone());
    say_asides(ctx, &mut lead, &mut pool, n, name, noun);
    pool.extend(phrasings("aside_any"));
    let n = ctx.rng.random_range(BACKGROUND);
    let mut background = Prose::continued(name, alias);
    say_asides(ctx, &mut background, &mut pool, n, name, noun);
    let heading = crate::phrases::pick(ctx.rng, &format!("heading_{kind}")).to_owned();
    let section = Section {
        heading,
        text: background.finish(ctx.rng),
        ..Default::default()
    };
    (lead.finish(ctx.rng), section)
}

/// Adds `n` asides about the entity named `name` to `prose`, each a phrasing taken at random out
/// of `pool`; one that names a person or a place is passed over when there is none to name.
fn say_asides(
    ctx: &mut Ctx,
    prose: &mut Prose,
    pool: &mut Vec<&str>,
    n: usize,
    name: &str,
    noun: &str,
) {
    let mut said = 0;
    while said < n && !pool.is_empty() {
        let phrasing = pool.swap_remove(ctx.rng.random_range(0..pool.len()));
        // An aside names people and places in plain text, not as links: not every mention is
        // a link, and a section's links stay the entities it lists.
        let person = living_person(ctx, name).map(|link| plain(&link));
        let place = other_place(ctx, name).map(|link| plain(&link));
        let lacks = |key: &str, link: &Option<String>| phrasing.contains(key) && link.is_none();
        if lacks("{person}", &person) || lacks("{place}", &place) {
            continue;
        }
        let words = Words::draw(ctx);
        let mut values = vec![
            ("kind", noun),
            ("person", person.as_deref().unwrap_or_default()),
            ("place", place.as_deref().unwrap_or_default()),
        ];
        values.extend(words.pairs());
        prose.say_phrasing(ctx.rng, phrasing, &values);
        said += 1;
    }
}

/// The text of a Markdown link `[text](url)`; anything else as it is.
pub(crate) fn plain(link: &str) -> String {
    let text = link
        .strip_prefix('[')
        .and_then(|rest| rest.split_once("]("))
        .map(|(text, _)| text);
    text.unwrap_or(link).to_owned()
}

/// Whether a link's mention is written as plain text: a draw of the mentions RNG, one per
/// mention that may be plain; anything but a link stays as it is, with no draw.
pub(crate) fn mention(ctx: &mut Ctx, text: &str) -> String {
    let is_link = text.starts_with('[') && text.contains("](");
    if is_link && ctx.mentions.random_bool(PLAIN_MENTION_SHARE) {
        plain(text)
    } else {
        text.to_owned()
    }
}

/// Whether the next listing section is a sentence rather than a table.
pub(crate) fn as_prose(ctx: &mut Ctx) -> bool {
    ctx.rng.random_bool(LIST_AS_PROSE_SHARE)
}

/// The draft of the encyclopedia article about an entity.
pub(crate) fn entity_draft(ctx: &Ctx, role: TableRole, id: i64, name: &str) -> Draft {
    let url = ctx.sites.entity(role, id).to_string();
    Draft::new(url, name, PageKind::Entity, None).about(role, id)
}

#[cfg(test)]
mod tests {
    #[test]
    fn asides_name_without_linking() {
        assert_eq!(
            super::plain("[Kest Hall](https://w/Kest_Hall)"),
            "Kest Hall"
        );
        assert_eq!(super::plain("Kest Hall"), "Kest Hall");
    }
}
