//! The slice of a world the renderer reads: pages by url with the facts each states.

use std::borrow::Cow;
use std::collections::BTreeMap;

/// The kind of a value a page states, as `fabula_page_facts.value_kind` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FactKind {
    Number,
    Year,
    Date,
    /// A reference to another entity, by name.
    Entity,
    Text,
    /// The page's own entity's name.
    Name,
}

impl FactKind {
    /// Parses a `value_kind` column value.
    pub fn parse(text: &str) -> Option<FactKind> {
        match text {
            "number" => Some(FactKind::Number),
            "year" => Some(FactKind::Year),
            "date" => Some(FactKind::Date),
            "entity" => Some(FactKind::Entity),
            "text" => Some(FactKind::Text),
            "name" => Some(FactKind::Name),
            _ => None,
        }
    }

    /// The `value_kind` column value.
    pub fn as_str(self) -> &'static str {
        match self {
            FactKind::Number => "number",
            FactKind::Year => "year",
            FactKind::Date => "date",
            FactKind::Entity => "entity",
            FactKind::Text => "text",
            FactKind::Name => "name",
        }
    }
}

/// One value a page states: the exact text the page uses for it, and its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub shown: String,
    pub kind: FactKind,
}

/// One page of a world, as the renderer sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageView {
    pub url: String,
    pub title: String,
    /// `entity`, `list`, `category`, `news` or `history`.
    pub kind: String,
    /// The published date `YYYY-MM-DD`; None for reference pages.
    pub date: Option<String>,
    /// The page's whole Markdown.
    pub body: String,
    pub facts: Vec<Fact>,
}

/// Read access to one world's pages.
///
/// The server implements it over its in-memory page store; [`MemoryWorld`] is a plain map for
/// tests and tools.
pub trait WorldView {
    /// The world's id, part of every cache key.
    fn world_id(&self) -> &str;
    /// The page at `url`, if the world has one.
    fn page(&self, url: &str) -> Option<Cow<'_, PageView>>;
    /// Whether the world has a page at `url`.
    fn has_page(&self, url: &str) -> bool {
        self.page(url).is_some()
    }
}

/// A world held as a map from url to page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryWorld {
    pub world_id: String,
    pub pages: BTreeMap<String, PageView>,
}

impl MemoryWorld {
    /// An empty world with this id.
    pub fn new(world_id: &str) -> MemoryWorld {
        MemoryWorld {
            world_id: world_id.to_string(),
            pages: BTreeMap::new(),
        }
    }

    /// Adds or replaces a page.
    pub fn insert(&mut self, page: PageView) {
        self.pages.insert(page.url.clone(), page);
    }
}

impl WorldView for MemoryWorld {
    fn world_id(&self) -> &str {
        &self.world_id
    }

    fn page(&self, url: &str) -> Option<Cow<'_, PageView>> {
        self.pages.get(url).map(Cow::Borrowed)
    }
}
