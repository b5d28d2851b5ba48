//! Pages that state no fact: opinion columns, notices and market reports on the news site, one
//! page in five of a world. They name a settlement and an organisation as a local paper would, so
//! a search for a name finds them beside the pages that hold its facts, but they state nothing of
//! the database: no number, no year but their date, no relation between two entities, and no
//! provenance. Each is dated after both entities it names were founded.
//!
//! Their filler vocabulary (professions, industries, catch phrases, verb phrases) comes from the
//! `fake` crate's English company data, drawn with the world's page RNG, lower-cased and screened:
//! nothing with a digit (a number no fact backs) and nothing that is not a trade ("human
//! resources"); its generators of people's names are never used. The asides of encyclopedia
//! articles (`entity.rs`) draw their filler words here too.

use fake::Fake;
use fake::faker::company::en::{Bs, CatchPhrase, Industry, Profession};
use rand::RngExt;
use rand::seq::IndexedRandom;

use fabula_file::{Page, PageKind, TableRole};
use fabula_world::seed::WorldRng;

use crate::draft::{Ctx, Draft};
use crate::phrases::{say, title};

/// One page in `SHARE` is filler.
const SHARE: usize = 5;

/// The three kinds of filler page: the phrase banks of their titles and paragraphs.
const KINDS: [(&str, &str); 3] = [
    ("filler_opinion_title", "filler_opinion"),
    ("filler_notice_title", "filler_notice"),
    ("filler_report_title", "filler_report"),
];

/// Adds filler pages until they are at least one page in [`SHARE`].
pub fn render(ctx: &mut Ctx, pages: &mut Vec<Page>) {
    let n = pages.len().div_ceil(SHARE - 1);
    for i in 0..n {
        pages.push(page(ctx, KINDS[i % KINDS.len()]));
    }
}

/// The filler words of one page.
pub(crate) struct Words {
    pub profession: String,
    pub industry: String,
    pub phrase: String,
    pub plan: String,
}

impl Words {
    pub(crate) fn draw(ctx: &mut Ctx) -> Words {
        Words {
            profession: screened(ctx, |rng| Profession().fake_with_rng(rng)),
            industry: screened(ctx, |rng| Industry().fake_with_rng(rng)),
            phrase: screened(ctx, |rng| CatchPhrase().fake_with_rng(rng)),
            plan: screened(ctx, |rng| Bs().fake_with_rng(rng)),
        }
    }
}

/// Words drawn until they read as plain English filler: lower case, no digit, no `&` or `/`,
/// no word twice in a row ("local local area network"), not a field passing for a trade. Falls back to "trade" after ten tries.
fn screened(ctx: &mut Ctx, mut draw: impl FnMut(&mut WorldRng) -> String) -> String {
    for _ in 0..10 {
        let words = draw(ctx.rng).to_lowercase();
        let plain = !words.contains(|c: char| c.is_ascii_digit() || c == '&' || c == '/')
            && !doubled(&words);
        if plain && words != "human resources" && !words.contains("transportationg") {
            return words;
        }
    }
    "trade".to_string()
}

/// Whether a word follows itself.
fn doubled(words: &str) -> bool {
    let words: Vec<&str> = words.split_whitespace().collect();
    words.windows(2).any(|pair| pair[0] == pair[1])
}

/// One filler page of a kind: a title, then three distinct paragraphs of its bank.
fn page(ctx: &mut Ctx, (title_key, body_key): (&str, &str)) -> Page {
    let w = ctx.world;
    let place = w
        .settlements
        .choose(ctx.rng)
        .expect("worlds have settlements");
    let org = w
        .organisations
        .choose(ctx.rng)
        .expect("worlds have organisations");
    let founded = place.founded.max(org.founded);
    let year = ctx
        .rng
        .random_range(founded.min(w.present_year)..=w.present_year);
    let words = Words::draw(ctx);
    let (place_link, org_link) = (
        ctx.link(TableRole::Settlement, place.id),
        ctx.link(TableRole::Organisation, org.id),
    );
    let values = [
        ("place", place_link.as_str()),
        ("org", org_link.as_str()),
        ("place_name", place.name.as_str()),
        ("org_name", org.name.as_str()),
        ("profession", words.profession.as_str()),
        ("industry", words.industry.as_str()),
        ("phrase", words.phrase.as_str()),
        ("plan", words.plan.as_str()),
    ];
    let heading = title(ctx.rng, title_key, &values);
    let date = ctx.date_in(year);
    let url = ctx.sites.news_url(&date, &heading);
    let draft = Draft::new(url, heading, PageKind::News, Some(date));
    let mut paragraphs: Vec<String> = Vec::new();
    while paragraphs.len() < 3 {
        let paragraph = say(ctx.rng, body_key, &values);
        if !paragraphs.contains(&paragraph) {
            paragraphs.push(paragraph);
        }
    }
    crate::news::page(ctx, draft, paragraphs)
}

#[cfg(test)]
mod tests {
    use fabula_world::{generate_world, theme};

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

    #[test]
    fn doubled_words_are_caught() {
        assert_eq!(
            without_link_targets("In [A](u/1) and [B](u/2)."),
            "In [A] and [B]."
        );
        assert!(super::doubled("total local local area network"));
        assert!(!super::doubled("total local area network"));
    }

    /// Filler is one page in five, dated after what it names, and states no fact.
    #[test]
    fn filler_is_a_fifth_of_the_pages_and_states_nothing() {
        for world_id in 0..4 {
            let world = generate_world(9, world_id, &theme::all().unwrap());
            let pages = crate::render_pages(&world);
            let filler: Vec<_> = pages.iter().filter(|p| p.facts.is_empty()).collect();
            assert!(
                filler.len() * 5 >= pages.len(),
                "{} of {}",
                filler.len(),
                pages.len()
            );
            assert!(
                filler.len() * 5 < pages.len() + 5,
                "{} of {}",
                filler.len(),
                pages.len()
            );
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
}
