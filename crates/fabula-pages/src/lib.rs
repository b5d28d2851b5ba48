//! Renders a world's rows into a small web of Markdown pages, with provenance for every fact.
//!
//! Each world gets an encyclopedia site (an article per entity, list and category pages), a news
//! site (dated articles about foundings, launches, appointments, events and alliances that mention
//! several entities), one site per organisation (an about page and a people page) and an archive of
//! yearbooks (dated pages stating who held which seat and which alliance each organisation belonged
//! to at that date), with census reports; and a fifth of its pages are opinion columns, notices,
//! letters, reviews, memories of events and anecdotes that name real entities of the world but
//! state no fact at all. What each kind of page states, and in which
//! phrasings and order, is a plan in `templates/pages/*.toml` (`articles.toml`, `lists.toml`,
//! `news.toml`, `yearbook.toml`; see `plan.rs`), and page layouts are minijinja templates there;
//! prose comes from the phrase banks in `templates/pages/phrases.toml`, one phrasing chosen per
//! use by the world's page RNG, composed into paragraphs by `prose.rs` (aliases, varying order,
//! joined sentences); an article's infobox leaves some of the values its
//! prose states out, and [`read_stated`] reads such a value back out of the prose. The phrase
//! banks, the English rules and that reader are `fabula-vocab`'s, which the agents read too;
//! this crate re-exports them.
//!
//! Every domain cell a page states is recorded as a [`PageFact`](fabula_file::PageFact) with the
//! exact text the page uses, which is what `fabula check` verifies and what search snippets hide.

mod articles;
mod dated;
mod draft;
mod entity;
mod filler;
mod lists;
mod news;
mod phrases;
mod plan;
mod prose;
pub mod sites;
mod templates;

use fabula_vocab::english;

use fabula_file::Page;
use fabula_world::World;

pub use draft::{fmt_count, fmt_date, fmt_year};
pub use english::{article, with_article, without_article};
pub use fabula_vocab::read_stated;

/// The page kinds, as stored in the world file.
pub use fabula_file::PageKind;

/// A version string that changes whenever templates or phrase banks change.
pub fn version() -> String {
    format!("pages-{:08x}", templates::fingerprint())
}

/// Renders every page of a world, in a stable order.
pub fn render_pages(world: &World) -> Vec<Page> {
    let mut pages = Vec::new();
    draft::with_ctx(world, |ctx| {
        let rows = plan::Rows::new(ctx);
        articles::render(ctx, &rows, &mut pages);
        lists::render(ctx, &rows, &mut pages);
        dated::render(ctx, &rows, &mut pages);
        filler::render(ctx, &mut pages);
    });
    for page in &mut pages {
        // Only facts whose text the body really contains are kept; the checks verify the rest.
        page.facts.retain(|f| page.body.contains(&f.shown));
        page.facts.sort();
        page.facts
            .dedup_by(|a, b| (&a.table, a.row_id, &a.column) == (&b.table, b.row_id, &b.column));
    }
    pages
}
