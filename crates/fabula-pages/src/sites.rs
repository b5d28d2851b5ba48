//! The small web of one world: site names and the stable url of every page.
//!
//! Urls are built from names, so they are readable and stable for a given world: the encyclopedia
//! lives at `https://{root}pedia.org/wiki/{Title}`, the news site at
//! `https://www.{root}-{paper}.com/{yyyy}/{mm}/{dd}/{slug}`, each organisation at
//! `https://{slug}.{tld}/`, and the yearbook archive at `https://archive.{root}.org/yearbook/{year}`.

use std::collections::{BTreeMap, BTreeSet};

use fabula_file::TableRole;
use fabula_world::World;

const PAPERS: &[&str] = &[
    "tidings",
    "courier",
    "herald",
    "gazette",
    "chronicle",
    "dispatch",
    "ledger",
    "post",
];
const TLDS: &[&str] = &["org", "com", "net", "co"];

/// Lower-case ASCII slug with single dashes: "Port Kelvar's Cup" becomes `port-kelvars-cup`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if (c == ' ' || c == '-') && !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// Wiki-style title path: spaces to underscores, apostrophes dropped.
pub fn wiki_path(title: &str) -> String {
    title
        .chars()
        .filter(|c| *c != '\'')
        .map(|c| if c == ' ' { '_' } else { c })
        .collect()
}

/// The sites of one world and the url of every entity article.
#[derive(Debug, Clone)]
pub struct Sites {
    pub wiki_host: String,
    pub wiki_name: String,
    pub news_host: String,
    pub news_name: String,
    pub archive_host: String,
    /// Organisation id -> site base url (ending in `/`).
    pub org_sites: BTreeMap<i64, String>,
    entity_urls: BTreeMap<(TableRole, i64), String>,
    used: BTreeSet<String>,
}

impl Sites {
    /// Names the sites of a world; depends only on the world's names and theme.
    pub fn new(world: &World) -> Sites {
        let root = slug(&world.root);
        let paper = PAPERS[(world.world_seed % PAPERS.len() as u64) as usize];
        let mut sites = Sites {
            wiki_host: format!("{root}pedia.org"),
            wiki_name: format!("{}pedia", fabula_world::naming::capitalise(&root)),
            news_host: format!("www.{root}-{paper}.com"),
            news_name: format!(
                "The {} {}",
                fabula_world::naming::capitalise(&root),
                fabula_world::naming::capitalise(paper)
            ),
            archive_host: format!("archive.{root}.org"),
            org_sites: BTreeMap::new(),
            entity_urls: BTreeMap::new(),
            used: BTreeSet::new(),
        };
        let mut entities: Vec<(TableRole, i64, &str)> = Vec::new();
        entities.extend(
            world
                .regions
                .iter()
                .map(|r| (TableRole::Region, r.id, r.name.as_str())),
        );
        entities.extend(
            world
                .settlements
                .iter()
                .map(|s| (TableRole::Settlement, s.id, s.name.as_str())),
        );
        entities.extend(
            world
                .people
                .iter()
                .map(|p| (TableRole::Person, p.id, p.name.as_str())),
        );
        entities.extend(
            world
                .organisations
                .iter()
                .map(|o| (TableRole::Organisation, o.id, o.name.as_str())),
        );
        entities.extend(
            world
                .works
                .iter()
                .map(|w| (TableRole::Work, w.id, w.name.as_str())),
        );
        entities.extend(
            world
                .events
                .iter()
                .map(|e| (TableRole::Event, e.id, e.name.as_str())),
        );
        entities.extend(
            world
                .alliances
                .iter()
                .map(|a| (TableRole::Alliance, a.id, a.name.as_str())),
        );
        for (role, id, name) in entities {
            let url = sites.wiki_url(name);
            sites.entity_urls.insert((role, id), url);
        }
        for org in &world.organisations {
            let tld = TLDS[(org.id as usize + world.id as usize) % TLDS.len()];
            let mut base = format!("https://{}.{tld}/", slug(&org.name));
            let mut n = 2;
            while !sites.used.insert(base.clone()) {
                base = format!("https://{}-{n}.{tld}/", slug(&org.name));
                n += 1;
            }
            sites.org_sites.insert(org.id, base);
        }
        sites
    }

    /// A fresh encyclopedia url for a title; a clash gets a numeric suffix.
    pub fn wiki_url(&mut self, title: &str) -> String {
        self.unique(format!(
            "https://{}/wiki/{}",
            self.wiki_host,
            wiki_path(title)
        ))
    }

    /// A fresh news url.
    pub fn news_url(&mut self, date: &str, title: &str) -> String {
        let path = date.replace('-', "/");
        self.unique(format!("https://{}/{path}/{}", self.news_host, slug(title)))
    }

    /// A fresh archive url.
    pub fn archive_url(&mut self, year: i64) -> String {
        self.unique(format!("https://{}/yearbook/{year}", self.archive_host))
    }

    /// A fresh url for the report of a census.
    pub fn census_url(&mut self, year: i64) -> String {
        self.unique(format!("https://{}/census/{year}", self.archive_host))
    }

    /// A fresh url under an organisation's site.
    pub fn org_url(&mut self, org: i64, path: &str) -> String {
        let base = self.org_sites[&org].clone();
        self.unique(format!("{base}{path}"))
    }

    fn unique(&mut self, url: String) -> String {
        let mut candidate = url.clone();
        let mut n = 2;
        while !self.used.insert(candidate.to_lowercase()) {
            candidate = format!("{url}_({n})");
            n += 1;
        }
        candidate
    }

    /// The article url of an entity.
    pub fn entity(&self, role: TableRole, id: i64) -> &str {
        &self.entity_urls[&(role, id)]
    }
}
