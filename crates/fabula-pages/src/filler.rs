//! Pages that state no fact, one page in five of a world: opinion columns, notices, reports of a
//! week in a settlement, letters to the editor, reviews of works, memories of events and
//! anecdotes about people, on the news site. Each names real entities of its world (chosen with
//! the page RNG), so a search for a name finds them beside the pages that hold its facts, and
//! only reading shows that they answer nothing: they hold opinions, weather, crowds and craft,
//! but no fact of the database. No number, no year but their date, no relation between two
//! entities (no birth, home, founding, membership, hosting, taking part or making), no
//! provenance.
//!
//! Each is dated when everything it names was there to be named: on or after the news of a
//! settlement's or an organisation's founding, after the year of a work or an event (so its date
//! does not give that year away), and while a person it names is an adult and alive.
//!
//! Their words come from the `word_*` phrase banks, from the theme (its nouns, its occupations)
//! and, for trades, from the `fake` crate's English professions, screened for the ones that
//! would read as out of place in any age ("web developer"). The asides and background sections
//! of encyclopedia articles (`entity.rs`) draw their words and the people and places they name
//! here too.

use std::collections::BTreeMap;

use fake::locales::{Data, EN};
use rand::RngExt;
use rand::seq::IndexedRandom;

use fabula_file::{ColumnRole, Page, PageKind, TableRole};
use fabula_world::World;

use crate::draft::{Ctx, Draft, fmt_date};
use crate::english::{close_sentence, upper_first};
use crate::phrases::{fill, pick, title};
use crate::templates;

/// One page in `SHARE` is filler.
const SHARE: usize = 5;

/// How many times a kind of page redraws what it names before giving way to the next kind.
const TRIES: usize = 12;

/// Professions of the `fake` crate that would be out of place in some of the themes' ages, or
/// are not trades at all.
const NOT_TRADES: [&str; 13] = [
    "human resources",
    "programmer",
    "web developer",
    "software engineer",
    "barista",
    "cashier",
    "model",
    "police officer",
    "firefighter",
    "electrician",
    "statistician",
    "analyst",
    "attorney at law",
];

/// What a filler page names: each a link (and a plain name for titles) to a real row.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Named {
    Place,
    Place2,
    Org,
    Person,
    Work,
    Work2,
    Event,
}

impl Named {
    /// The placeholder of its link; its plain name is this with `_name`.
    fn key(self) -> &'static str {
        match self {
            Named::Place => "place",
            Named::Place2 => "place2",
            Named::Org => "org",
            Named::Person => "person",
            Named::Work => "work",
            Named::Work2 => "work2",
            Named::Event => "event",
        }
    }

    fn role(self) -> TableRole {
        match self {
            Named::Place | Named::Place2 => TableRole::Settlement,
            Named::Org => TableRole::Organisation,
            Named::Person => TableRole::Person,
            Named::Work | Named::Work2 => TableRole::Work,
            Named::Event => TableRole::Event,
        }
    }

    /// The number of rows it is drawn from.
    fn rows(self, w: &World) -> usize {
        match self.role() {
            TableRole::Settlement => w.settlements.len(),
            TableRole::Organisation => w.organisations.len(),
            TableRole::Person => w.people.len(),
            TableRole::Work => w.works.len(),
            _ => w.events.len(),
        }
    }
}

/// A kind of filler page: its banks (`filler_{bank}_title`, `filler_{bank}` and, when there is
/// one, `filler_{bank}_sign`) and what it names.
struct Kind {
    bank: &'static str,
    /// The news site's section, a word of its urls.
    section: &'static str,
    names: &'static [Named],
}

const KINDS: [Kind; 7] = [
    Kind {
        bank: "opinion",
        section: "opinion",
        names: &[Named::Place, Named::Org],
    },
    Kind {
        bank: "review",
        section: "reviews",
        names: &[Named::Work, Named::Work2],
    },
    Kind {
        bank: "notice",
        section: "notices",
        names: &[Named::Place, Named::Org],
    },
    Kind {
        bank: "scene",
        section: "events",
        names: &[Named::Event],
    },
    Kind {
        bank: "report",
        section: "local",
        names: &[Named::Place, Named::Place2],
    },
    Kind {
        bank: "anecdote",
        section: "people",
        names: &[Named::Person, Named::Place],
    },
    Kind {
        bank: "letter",
        section: "letters",
        names: &[Named::Place, Named::Person],
    },
];

/// Adds filler pages until they are at least one page in [`SHARE`]; `pages` holds every other
/// page, whose founding news the filler follows.
pub fn render(ctx: &mut Ctx, pages: &mut Vec<Page>) {
    let floors = Floors::read(ctx, pages);
    let kinds: Vec<&Kind> = KINDS
        .iter()
        .filter(|k| k.names.iter().all(|n| n.rows(ctx.world) >= 2))
        .collect();
    let n = pages.len().div_ceil(SHARE - 1);
    for i in 0..n {
        let page = (0..kinds.len())
            .find_map(|j| page(ctx, &floors, kinds[(i + j) % kinds.len()]))
            .expect("an opinion column can always be dated");
        pages.push(page);
    }
}

/// The earliest date each settlement and organisation may be named on: the earliest dated page
/// that states its founding year.
struct Floors(BTreeMap<(TableRole, i64), String>);

impl Floors {
    fn read(ctx: &Ctx, pages: &[Page]) -> Floors {
        let mut floors: BTreeMap<(TableRole, i64), String> = BTreeMap::new();
        for role in [TableRole::Settlement, TableRole::Organisation] {
            let (table, column) = (ctx.table(role), ctx.column(role, ColumnRole::Founded));
            for page in pages {
                let Some(date) = &page.published else {
                    continue;
                };
                for f in page.facts.iter().filter(|f| f.table == table) {
                    if f.column == column {
                        let floor = floors.entry((role, f.row_id)).or_insert(date.clone());
                        *floor = floor.clone().min(date.clone());
                    }
                }
            }
        }
        Floors(floors)
    }

    /// The dates a page naming row `id` of `role` may carry: from an ISO date to the end of a
    /// year.
    fn window(&self, w: &World, role: TableRole, id: i64) -> (String, i64) {
        let (first_year, last_year) = match role {
            TableRole::Settlement => (w.settlement(id).founded, w.present_year),
            TableRole::Organisation => (w.organisation(id).founded, w.present_year),
            TableRole::Person => {
                let p = w.person(id);
                let adult = p.birth_year + w.theme.limits.member_age[0];
                (adult, p.death_year.map_or(w.present_year, |d| d - 1))
            }
            TableRole::Work => (w.work(id).year + 1, w.present_year),
            _ => (w.event(id).year + 1, w.present_year),
        };
        let first = fmt_date(first_year, 1, 1);
        let floor = self.0.get(&(role, id)).map_or(first.clone(), |news| {
            if *news > first { news.clone() } else { first }
        });
        (floor, last_year)
    }
}

/// One filler page of a kind, or none when what it names cannot be dated together.
fn page(ctx: &mut Ctx, floors: &Floors, kind: &Kind) -> Option<Page> {
    let (named, date) = (0..TRIES).find_map(|_| draw(ctx, floors, kind))?;
    let mut values: Vec<(String, String)> = Vec::new();
    for &(n, id) in &named {
        let role = n.role();
        values.push((n.key().to_string(), ctx.link(role, id)));
        values.push((format!("{}_name", n.key()), ctx.name(role, id).to_string()));
    }
    let theme = &ctx.world.theme;
    values.push(("works".into(), theme.work.plural.clone()));
    values.push(("people".into(), theme.person.plural.clone()));
    // The title and the first paragraph share their words; each paragraph after draws its own.
    let mut words = Words::draw(ctx);
    let heading = title(
        ctx.rng,
        &format!("filler_{}_title", kind.bank),
        &with(&values, &words),
    );
    let url = ctx.sites.news_url(kind.section, &heading);
    let draft = Draft::new(url, heading, PageKind::News, Some(date));
    // Three distinct phrasings of the kind's bank.
    let bank = &templates::banks()[&format!("filler_{}", kind.bank)].phrases;
    let mut paragraphs: Vec<String> = Vec::new();
    for phrasing in bank.sample(ctx.rng, 3) {
        paragraphs.push(close_sentence(&upper_first(&fill(
            phrasing,
            &with(&values, &words),
        ))));
        words = Words::draw(ctx);
    }
    let sign_key = format!("filler_{}_sign", kind.bank);
    if templates::banks().contains_key(&sign_key) {
        paragraphs.push(title(ctx.rng, &sign_key, &with(&values, &words)));
    }
    Some(crate::news::page(ctx, draft, paragraphs))
}

/// The values of a page's placeholders: what it names and its nouns, then its words.
fn with<'a>(values: &'a [(String, String)], words: &'a Words) -> Vec<(&'a str, &'a str)> {
    let named = values.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    named.chain(words.pairs()).collect()
}

/// Draws the rows a page of `kind` names, each named once, and a date when all of them may be
/// named; none when their windows do not meet.
fn draw(ctx: &mut Ctx, floors: &Floors, kind: &Kind) -> Option<(Vec<(Named, i64)>, String)> {
    let w = ctx.world;
    let mut named: Vec<(Named, i64)> = Vec::new();
    let (mut floor, mut last_year) = (String::new(), w.present_year);
    for &n in kind.names {
        let n_rows = i64::try_from(n.rows(w)).expect("row counts are small");
        let id = ctx.rng.random_range(1..=n_rows);
        if named
            .iter()
            .any(|&(m, other)| m.role() == n.role() && other == id)
        {
            return None;
        }
        let (from, to) = floors.window(w, n.role(), id);
        floor = floor.max(from);
        last_year = last_year.min(to);
        named.push((n, id));
    }
    let first_year: i64 = floor[..4].parse().expect("dates start with a year");
    if first_year > last_year {
        return None;
    }
    let year = ctx.rng.random_range(first_year..=last_year);
    let date = if year == first_year {
        ctx.date_from(&floor)
    } else {
        ctx.date_in(year)
    };
    Some((named, date))
}

/// The words of one page or aside, from the `word_*` banks and the trades.
pub(crate) struct Words {
    profession: String,
    topic: &'static str,
    weather: &'static str,
    mood: &'static str,
    craft: &'static str,
    detail: &'static str,
}

impl Words {
    pub(crate) fn draw(ctx: &mut Ctx) -> Words {
        Words {
            profession: profession(ctx),
            topic: pick(ctx.rng, "word_topic"),
            weather: pick(ctx.rng, "word_weather"),
            mood: pick(ctx.rng, "word_mood"),
            craft: pick(ctx.rng, "word_craft"),
            detail: pick(ctx.rng, "word_detail"),
        }
    }

    /// The placeholders they fill.
    pub(crate) fn pairs(&self) -> [(&'static str, &str); 6] {
        [
            ("profession", self.profession.as_str()),
            ("topic", self.topic),
            ("weather", self.weather),
            ("mood", self.mood),
            ("craft", self.craft),
            ("detail", self.detail),
        ]
    }
}

/// A trade: one of the theme's occupations or, as often, one of the `fake` crate's professions
/// that is a trade in any age.
fn profession(ctx: &mut Ctx) -> String {
    let theme = &ctx.world.theme.person.occupations;
    if ctx.rng.random_bool(0.5)
        && let Some(occupation) = theme.choose(ctx.rng)
    {
        return occupation.clone();
    }
    let trades: Vec<&str> = EN::COMPANY_PROFESSION
        .iter()
        .copied()
        .filter(|p| !NOT_TRADES.contains(p))
        .collect();
    trades.choose(ctx.rng).expect("fake has trades").to_string()
}

/// A link to someone alive and adult in the present year, other than the person named `not`,
/// for an undated page; none after a few tries.
pub(crate) fn living_person(ctx: &mut Ctx, not: &str) -> Option<String> {
    let w = ctx.world;
    let adult = w.theme.limits.member_age[0];
    (0..TRIES).find_map(|_| {
        let p = w.people.choose(ctx.rng)?;
        let fits = p.death_year.is_none() && p.birth_year + adult <= w.present_year;
        (fits && p.name != not).then(|| ctx.link(TableRole::Person, p.id))
    })
}

/// A link to a settlement other than the one named `not`, for an undated page.
pub(crate) fn other_place(ctx: &mut Ctx, not: &str) -> Option<String> {
    let w = ctx.world;
    (0..TRIES).find_map(|_| {
        let s = w.settlements.choose(ctx.rng)?;
        (s.name != not).then(|| ctx.link(TableRole::Settlement, s.id))
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use fabula_file::Page;
    use fabula_world::{generate_world, theme};
    use fake::locales::{Data, EN};

    use super::KINDS;
    use crate::phrases::fill;
    use crate::templates;

    /// A line without the `(url)` parts of its Markdown links.
    fn without_link_targets(line: &str) -> String {
        let mut out = String::new();
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            out.push_str(&rest[..=at]);
            rest = rest[at..].find(')').map_or("", |end| &rest[at + end + 1..]);
        }
        out.push_str(rest);
        out
    }

    /// The lower-case words of a text.
    fn words(text: &str) -> impl Iterator<Item = String> + '_ {
        text.split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
    }

    /// The lower-case words of every file under `templates/pages` and `templates/themes`, and of
    /// `sites.rs`, which names the sites ("archive").
    fn template_words() -> BTreeSet<String> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../templates");
        let mut out: BTreeSet<String> = words(include_str!("sites.rs")).collect();
        for dir in ["pages", "themes"] {
            for entry in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
                let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
                out.extend(words(&text));
            }
        }
        out
    }

    /// Corporate jargon: the words of the `fake` crate's catch phrases and "bs" generators,
    /// less every word the project's own templates, themes and site names use.
    fn jargon() -> BTreeSet<String> {
        let fake = [
            EN::COMPANY_BUZZWORD_HEAD,
            EN::COMPANY_BUZZWORD_MIDDLE,
            EN::COMPANY_BUZZWORD_TAIL,
            EN::COMPANY_BS_VERBS,
            EN::COMPANY_BS_ADJ,
            EN::COMPANY_BS_NOUNS,
        ];
        let ours = template_words();
        fake.iter()
            .flat_map(|list| list.iter().flat_map(|w| words(w)))
            .filter(|w| !ours.contains(w) && w.len() > 1)
            .collect()
    }

    fn worlds() -> impl Iterator<Item = Vec<Page>> {
        (0..8).map(|world_id| {
            let world = generate_world(9, world_id, &theme::all().unwrap());
            crate::render_pages(&world)
        })
    }

    #[test]
    fn link_targets_are_left_out() {
        assert_eq!(
            without_link_targets("In [A](u/1) and [B](u/2)."),
            "In [A] and [B]."
        );
    }

    /// Every placeholder of a kind's banks is one its pages fill, and every bank has ten
    /// phrasings.
    #[test]
    fn every_kind_fills_its_banks() {
        let word_keys = ["profession", "topic", "weather", "mood", "craft", "detail"];
        for kind in &KINDS {
            let mut values: Vec<(String, &str)> = Vec::new();
            for n in kind.names {
                values.push((n.key().to_string(), "x"));
                values.push((format!("{}_name", n.key()), "x"));
            }
            for key in word_keys.iter().chain(&["works", "people"]) {
                values.push((key.to_string(), "x"));
            }
            let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (k.as_str(), *v)).collect();
            for suffix in ["_title", "", "_sign"] {
                let key = format!("filler_{}{suffix}", kind.bank);
                let Some(bank) = templates::banks().get(&key) else {
                    assert_eq!(suffix, "_sign", "no bank {key}");
                    continue;
                };
                assert!(bank.phrases.len() >= 10, "{key}");
                for phrasing in &bank.phrases {
                    assert!(!fill(phrasing, &values).contains('{'), "{key}: {phrasing}");
                }
            }
        }
    }

    /// Filler is one page in five, dated, and states no fact: no digit in its prose. (The
    /// glossary pages, which define the theme's fields, state no fact either.)
    #[test]
    fn filler_is_a_fifth_of_the_pages_and_states_nothing() {
        for pages in worlds() {
            let filler: Vec<_> = pages
                .iter()
                .filter(|p| p.facts.is_empty() && !p.title.starts_with("Glossary: "))
                .collect();
            let (n, all) = (filler.len(), pages.len());
            assert!(n * 5 >= all && n * 5 < all + 5, "{n} of {all}");
            for page in filler {
                // The prose after the dateline, without the link targets.
                let prose: String = page
                    .body
                    .lines()
                    .skip(3)
                    .map(without_link_targets)
                    .collect();
                assert!(
                    !prose.contains(|c: char| c.is_ascii_digit()),
                    "{}",
                    page.body
                );
                assert!(page.published.is_some());
            }
        }
    }

    /// No page of any kind carries corporate jargon, but for the words of the world's own names.
    #[test]
    fn no_page_has_buzzwords() {
        let jargon = jargon();
        assert!(jargon.len() > 200, "{} jargon words", jargon.len());
        for pages in worlds() {
            let names: BTreeSet<String> = pages
                .iter()
                .flat_map(|p| p.facts.iter().flat_map(|f| words(&f.shown)))
                .collect();
            for page in pages {
                let text = without_link_targets(&page.body);
                let found: Vec<String> = words(&text)
                    .filter(|w| jargon.contains(w) && !names.contains(w))
                    .collect();
                assert!(found.is_empty(), "{}: {found:?}", page.url);
            }
        }
    }
}
