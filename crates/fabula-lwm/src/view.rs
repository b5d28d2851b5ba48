//! The slice of a world the renderer reads: pages by url with the facts each states.

use std::borrow::Cow;
use std::collections::BTreeMap;

use fabula_file::Page;

/// Read access to one world's pages.
///
/// The server implements it over its in-memory page store; [`MemoryWorld`] is a plain map for
/// tests and tools.
pub trait WorldView {
    /// The world's id, part of every cache key.
    fn world_id(&self) -> &str;
    /// The page at `url`, if the world has one.
    fn page(&self, url: &str) -> Option<Cow<'_, Page>>;
    /// Whether the world has a page at `url`.
    fn has_page(&self, url: &str) -> bool {
        self.page(url).is_some()
    }
}

/// A world held as a map from url to page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryWorld {
    pub world_id: String,
    pub pages: BTreeMap<String, Page>,
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
    pub fn insert(&mut self, page: Page) {
        self.pages.insert(page.url.clone(), page);
    }
}

impl WorldView for MemoryWorld {
    fn world_id(&self) -> &str {
        &self.world_id
    }

    fn page(&self, url: &str) -> Option<Cow<'_, Page>> {
        self.pages.get(url).map(Cow::Borrowed)
    }
}
