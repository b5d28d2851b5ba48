//! Building one page: the shared rendering context and a draft that records each fact it states.

use rand::RngExt;

use fabula_file::{ColumnRole, Page, PageFact, PageKind, TableRole, ValueKind};
use fabula_world::World;
use fabula_world::schema::{self, Layout};
use fabula_world::seed::{self, WorldRng};

use crate::sites::Sites;

/// Everything page rendering reads, plus the page RNG.
pub struct Ctx<'a> {
    pub world: &'a World,
    pub layout: &'a Layout,
    pub sites: Sites,
    pub rng: &'a mut WorldRng,
    /// Draws which mentions of other entities an article writes as plain names (its own stream,
    /// so the page RNG draws what it drew before mentions could be plain).
    pub mentions: WorldRng,
}

/// Runs `f` with a fresh rendering context for `world`: its layout, its sites, its page RNG and
/// its mentions RNG.
pub fn with_ctx<R>(world: &World, f: impl FnOnce(&mut Ctx) -> R) -> R {
    let layout = schema::layout(world);
    let sites = Sites::new(world);
    let mut rng = seed::rng(world.master_seed, world.id, "pages");
    let mut ctx = Ctx {
        world,
        layout: &layout,
        sites,
        rng: &mut rng,
        mentions: seed::rng(world.master_seed, world.id, "mentions"),
    };
    f(&mut ctx)
}

pub use fabula_vocab::english::fmt_count;

/// Formats a year: plain digits, never separated.
pub fn fmt_year(y: i64) -> String {
    y.to_string()
}

/// Formats a date as ISO `YYYY-MM-DD`.
pub fn fmt_date(year: i64, month: u32, day: u32) -> String {
    format!("{year:04}-{month:02}-{day:02}")
}

impl Ctx<'_> {
    /// A random date within a year, for dated pages.
    pub fn date_in(&mut self, year: i64) -> String {
        let month = self.rng.random_range(1..=12);
        let day = self.rng.random_range(1..=28);
        fmt_date(year, month, day)
    }

    /// A random date from `floor`, an ISO date as [`Ctx::date_in`] draws them, to the end of its
    /// year, for a page that must not predate another.
    pub fn date_from(&mut self, floor: &str) -> String {
        let parts: Vec<&str> = floor.splitn(3, '-').collect();
        let parsed = match parts[..] {
            [year, month, day] => year
                .parse::<i64>()
                .ok()
                .zip(month.parse::<u32>().ok())
                .zip(day.parse::<u32>().ok()),
            _ => None,
        };
        let Some(((year, month), day)) = parsed else {
            panic!("`{floor}` is not an ISO date");
        };
        // Days are numbered on the grid `date_in` draws from: 12 months of 28 days.
        let first = (month.clamp(1, 12) - 1) * 28 + day.clamp(1, 28) - 1;
        let k = self.rng.random_range(first..12 * 28);
        fmt_date(year, k / 28 + 1, k % 28 + 1)
    }

    /// The name of an entity.
    pub fn name(&self, role: TableRole, id: i64) -> &str {
        let w = self.world;
        match role {
            TableRole::Region => &w.region(id).name,
            TableRole::Settlement => &w.settlement(id).name,
            TableRole::Person => &w.person(id).name,
            TableRole::Organisation => &w.organisation(id).name,
            TableRole::Work => &w.work(id).name,
            TableRole::Event => &w.event(id).name,
            TableRole::Alliance => &w.alliance(id).name,
            _ => panic!("{} rows have no name", role.as_str()),
        }
    }

    /// A Markdown link to an entity's article.
    pub fn link(&self, role: TableRole, id: i64) -> String {
        format!("[{}]({})", self.name(role, id), self.sites.entity(role, id))
    }

    /// The SQL table name of a role.
    pub fn table(&self, role: TableRole) -> &str {
        &self.layout.table(role).name
    }

    /// The SQL column name of a column role.
    pub fn column(&self, role: TableRole, column_role: ColumnRole) -> &str {
        &self.layout.table(role).column(column_role).name
    }
}

/// A page being built.
pub struct Draft {
    pub url: String,
    pub title: String,
    pub kind: PageKind,
    pub published: Option<String>,
    pub facts: Vec<PageFact>,
    /// The entity the page is about, whose name is never a related-entity fact.
    pub subject: Option<(TableRole, i64)>,
}

impl Draft {
    pub fn new(
        url: String,
        title: impl Into<String>,
        kind: PageKind,
        published: Option<String>,
    ) -> Draft {
        Draft {
            url,
            title: title.into(),
            kind,
            published,
            facts: Vec::new(),
            subject: None,
        }
    }

    /// Marks the entity the page is about.
    pub fn about(mut self, role: TableRole, id: i64) -> Draft {
        self.subject = Some((role, id));
        self
    }

    /// Records that the page states a cell, and returns the text it uses.
    pub fn fact(
        &mut self,
        ctx: &Ctx,
        role: TableRole,
        row: i64,
        column_role: ColumnRole,
        shown: String,
        kind: ValueKind,
    ) -> String {
        self.facts.push(PageFact {
            table: ctx.table(role).to_string(),
            row_id: row,
            column: ctx.column(role, column_role).to_string(),
            shown: shown.clone(),
            value_kind: kind,
        });
        shown
    }

    /// States a year.
    pub fn year(
        &mut self,
        ctx: &Ctx,
        role: TableRole,
        row: i64,
        column_role: ColumnRole,
        year: i64,
    ) -> String {
        self.fact(ctx, role, row, column_role, fmt_year(year), ValueKind::Year)
    }

    /// States a count or amount.
    pub fn count(
        &mut self,
        ctx: &Ctx,
        role: TableRole,
        row: i64,
        column_role: ColumnRole,
        n: i64,
    ) -> String {
        self.fact(ctx, role, row, column_role, fmt_count(n), ValueKind::Number)
    }

    /// States a word or phrase.
    pub fn text(
        &mut self,
        ctx: &Ctx,
        role: TableRole,
        row: i64,
        column_role: ColumnRole,
        text: &str,
    ) -> String {
        self.fact(
            ctx,
            role,
            row,
            column_role,
            text.to_string(),
            ValueKind::Text,
        )
    }

    /// States a theme-specific extra column by its position.
    pub fn extra(&mut self, ctx: &Ctx, role: TableRole, row: i64, index: usize, n: i64) -> String {
        let table = ctx.layout.table(role);
        let column = table
            .columns_with(ColumnRole::Extra)
            .nth(index)
            .expect("extra column");
        self.facts.push(PageFact {
            table: table.name.clone(),
            row_id: row,
            column: column.name.clone(),
            shown: fmt_count(n),
            value_kind: ValueKind::Number,
        });
        fmt_count(n)
    }

    /// States a reference: returns a link to the target, recording the target's name as shown.
    pub fn reference(
        &mut self,
        ctx: &Ctx,
        role: TableRole,
        row: i64,
        column_role: ColumnRole,
        target: TableRole,
        target_id: i64,
    ) -> String {
        let kind = if self.subject == Some((target, target_id)) {
            ValueKind::Name
        } else {
            ValueKind::Entity
        };
        self.fact(
            ctx,
            role,
            row,
            column_role,
            ctx.name(target, target_id).to_string(),
            kind,
        );
        ctx.link(target, target_id)
    }

    /// States an entity's own name (a page subject or a list entry).
    pub fn own_name(&mut self, ctx: &Ctx, role: TableRole, row: i64) -> String {
        self.fact(
            ctx,
            role,
            row,
            ColumnRole::Name,
            ctx.name(role, row).to_string(),
            ValueKind::Name,
        )
    }

    /// Finishes the page with its rendered body.
    pub fn finish(self, body: String) -> Page {
        Page {
            url: self.url,
            title: self.title,
            kind: self.kind,
            published: self.published,
            body,
            facts: self.facts,
        }
    }
}

/// Asserts that every fact a page records shows its exact text in the page body: the test every
/// renderer's unit tests share.
#[cfg(test)]
pub(crate) fn assert_facts_shown(page: &Page) {
    for f in &page.facts {
        assert!(
            page.body.contains(&f.shown),
            "{} lacks {:?}",
            page.url,
            f.shown
        );
    }
}
