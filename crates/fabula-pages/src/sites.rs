//! The small web of one world: site names and the stable url of every page.
//!
//! Urls are built from names, so they are readable and stable for a given world, and each world
//! lays its sites out its own way (`Style`, drawn from the world's own "sites" RNG stream): the
//! encyclopedia may live at `https://{root}pedia.org/wiki/{Title}` or
//! `https://www.{root}-encyclopedia.org/entry/{slug}`, the news site may file its stories at
//! `/news/{slug}`, `/{section}/{slug}`, `/stories/{slug}-{n}` or `/article/{n}/{slug}`, the
//! archive may keep a yearbook at `/yearbook/{year}` or `/{year}/annals`, and each organisation's
//! site names its own about and people pages (`/about`, `/who-we-are`; `/people`, `/team`). So an
//! agent cannot learn one url scheme and skip searching: the pages of two worlds rarely share a
//! path pattern.
//!
//! A news url carries no date: a year in a result's url would give away what a question asks
//! (a founding year, an event's year) before the page is opened. Its story number `n` is drawn
//! at random from the world's own "news ids" stream, five or six digits, so it never reads as a
//! year nor orders stories by date; its slug drops any number its title holds. Yearbooks and
//! census reports name their year by nature.

use std::collections::{BTreeMap, BTreeSet};

use rand::RngExt;
use rand::seq::IndexedRandom;

use fabula_file::TableRole;
use fabula_world::World;
use fabula_world::naming::capitalise;
use fabula_world::seed::{self, WorldRng};

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

/// Encyclopedia hosts and the name each gives its site (`{root}`, `{Root}` filled).
const WIKI_HOSTS: &[(&str, &str)] = &[
    ("{root}pedia.org", "{Root}pedia"),
    ("{root}wiki.org", "{Root}wiki"),
    ("www.{root}-encyclopedia.org", "The {Root} Encyclopedia"),
    ("{root}.wiki", "{Root} Wiki"),
    ("en.{root}pedia.net", "{Root}pedia"),
];
/// News hosts (`{root}`, `{paper}` filled).
const NEWS_HOSTS: &[&str] = &[
    "www.{root}-{paper}.com",
    "{root}{paper}.com",
    "{paper}.{root}.com",
    "www.the{root}{paper}.net",
];
/// Archive hosts.
const ARCHIVE_HOSTS: &[&str] = &[
    "archive.{root}.org",
    "records.{root}.org",
    "{root}-archives.org",
    "library.{root}.org",
];
/// Where a yearbook and a census report live under the archive (`{year}` filled).
const YEARBOOK_PATHS: &[&str] = &[
    "yearbook/{year}",
    "annals/{year}",
    "{year}/yearbook",
    "year/{year}",
];
const CENSUS_PATHS: &[&str] = &[
    "census/{year}",
    "census-{year}",
    "{year}/census",
    "counts/{year}",
];
/// The paths of an organisation's about and people pages.
const ABOUT_PATHS: &[&str] = &["about", "about-us", "who-we-are", "our-story"];
const PEOPLE_PATHS: &[&str] = &["people", "team", "our-people", "leadership"];

/// How an encyclopedia article's path is made from its title.
#[derive(Debug, Clone, Copy)]
enum Article {
    /// `{prefix}{Title_With_Underscores}`.
    Wiki(&'static str),
    /// `{prefix}{slug}{suffix}`.
    Slug(&'static str, &'static str),
}

const ARTICLES: &[Article] = &[
    Article::Wiki("/wiki/"),
    Article::Wiki("/w/"),
    Article::Slug("/article/", ""),
    Article::Slug("/entry/", ""),
    Article::Slug("/pages/", ".html"),
    Article::Slug("/", ""),
];

/// How a news path is made from a story's section and title; none holds its date.
#[derive(Debug, Clone, Copy)]
enum NewsPath {
    /// `/news/{slug}`.
    Flat,
    /// `/{section}/{slug}`.
    Section,
    /// `/stories/{slug}-{n}`.
    NumberedSlug,
    /// `/article/{n}/{slug}`.
    NumberDir,
}

const NEWS_PATHS: &[NewsPath] = &[
    NewsPath::Flat,
    NewsPath::Section,
    NewsPath::NumberedSlug,
    NewsPath::NumberDir,
];

/// The story numbers of numbered news paths: five or six digits, never a year.
const STORY_NUMBERS: std::ops::Range<u32> = 10_000..1_000_000;

/// One world's url scheme.
#[derive(Debug, Clone)]
struct Style {
    article: Article,
    news: NewsPath,
    yearbook: &'static str,
    census: &'static str,
}

/// Lower-case ASCII slug with single dashes: "Port Kelvar's Cup" becomes `port-kelvars-cup`,
/// "Category:Mining (guilds)" becomes `category-mining-guilds`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if matches!(c, ' ' | '-' | ':' | '(') && !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// A news story's slug: its title's [`slug`] without the words that are numbers, so no year a
/// title might state shows in its url.
pub fn news_slug(title: &str) -> String {
    let slug = slug(title);
    let words: Vec<&str> = slug
        .split('-')
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
        .collect();
    words.join("-")
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
    /// Organisation id -> the paths of its about and people pages.
    org_paths: BTreeMap<i64, (&'static str, &'static str)>,
    entity_urls: BTreeMap<(TableRole, i64), String>,
    /// Census year -> the url of its report, known before any page is rendered so that
    /// articles can link to reports.
    census_urls: BTreeMap<i64, String>,
    style: Style,
    used: BTreeSet<String>,
    /// Draws the story numbers of numbered news paths.
    story_numbers: WorldRng,
}

impl Sites {
    /// Names the sites of a world and draws its url scheme; depends only on the world's names,
    /// theme and seed.
    pub fn new(world: &World) -> Sites {
        let root = slug(&world.root);
        let upper = capitalise(&root);
        let mut rng = seed::rng(world.master_seed, world.id, "sites");
        let paper = PAPERS[(world.world_seed % PAPERS.len() as u64) as usize];
        let mut pick = |options: &[&'static str]| *options.choose(&mut rng).expect("options");
        let fill = |pattern: &str| {
            pattern
                .replace("{root}", &root)
                .replace("{Root}", &upper)
                .replace("{paper}", paper)
        };
        let news_host = fill(pick(NEWS_HOSTS));
        let archive_host = fill(pick(ARCHIVE_HOSTS));
        let yearbook = pick(YEARBOOK_PATHS);
        let census = pick(CENSUS_PATHS);
        let (wiki_host, wiki_name) = *WIKI_HOSTS.choose(&mut rng).expect("hosts");
        let style = Style {
            article: *ARTICLES.choose(&mut rng).expect("article paths"),
            news: *NEWS_PATHS.choose(&mut rng).expect("news paths"),
            yearbook,
            census,
        };
        let mut sites = Sites {
            wiki_host: fill(wiki_host),
            wiki_name: fill(wiki_name),
            news_host,
            news_name: format!("The {upper} {}", capitalise(paper)),
            archive_host,
            org_sites: BTreeMap::new(),
            org_paths: BTreeMap::new(),
            entity_urls: BTreeMap::new(),
            census_urls: BTreeMap::new(),
            style,
            used: BTreeSet::new(),
            story_numbers: seed::rng(world.master_seed, world.id, "news ids"),
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
            let about = *ABOUT_PATHS.choose(&mut rng).expect("about paths");
            let people = *PEOPLE_PATHS.choose(&mut rng).expect("people paths");
            sites.org_paths.insert(org.id, (about, people));
        }
        for year in world.census_years() {
            let path = sites.style.census.replace("{year}", &year.to_string());
            let url = sites.unique(format!("https://{}/{path}", sites.archive_host));
            sites.census_urls.insert(year, url);
        }
        sites
    }

    /// A fresh encyclopedia url for a title; a clash gets a numeric suffix.
    pub fn wiki_url(&mut self, title: &str) -> String {
        let path = match self.style.article {
            Article::Wiki(prefix) => format!("{prefix}{}", wiki_path(title)),
            Article::Slug(prefix, suffix) => format!("{prefix}{}{suffix}", slug(title)),
        };
        self.unique(format!("https://{}{path}", self.wiki_host))
    }

    /// A fresh news url for a story of a section ("business", a slug's word) and a title; it
    /// holds no date. A title told before gets a counter: `{slug}-2`.
    pub fn news_url(&mut self, section: &str, title: &str) -> String {
        let slug = news_slug(title);
        for n in 1.. {
            let slug = match n {
                1 => slug.clone(),
                _ => format!("{slug}-{n}"),
            };
            let path = match self.style.news {
                NewsPath::Flat => format!("news/{slug}"),
                NewsPath::Section => format!("{section}/{slug}"),
                NewsPath::NumberedSlug => format!("stories/{slug}-{}", self.story_number()),
                NewsPath::NumberDir => format!("article/{}/{slug}", self.story_number()),
            };
            let url = format!("https://{}/{path}", self.news_host);
            if self.used.insert(url.to_lowercase()) {
                return url;
            }
        }
        unreachable!("some counter is free")
    }

    /// The next story number.
    fn story_number(&mut self) -> u32 {
        self.story_numbers.random_range(STORY_NUMBERS)
    }

    /// A fresh url for the yearbook of a year.
    pub fn archive_url(&mut self, year: i64) -> String {
        let path = self.style.yearbook.replace("{year}", &year.to_string());
        self.unique(format!("https://{}/{path}", self.archive_host))
    }

    /// The url of the report of the census of `year`, one of the world's census years.
    pub fn census_url(&self, year: i64) -> String {
        self.census_urls[&year].clone()
    }

    /// The url of an organisation's about page.
    pub fn about_url(&self, org: i64) -> String {
        format!("{}{}", self.org_sites[&org], self.org_paths[&org].0)
    }

    /// The url of an organisation's people page.
    pub fn people_url(&self, org: i64) -> String {
        format!("{}{}", self.org_sites[&org], self.org_paths[&org].1)
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

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeSet;

    use fabula_world::{generate_world, theme};

    use super::*;

    #[test]
    fn slugs_are_lower_case_words_joined_by_single_dashes() {
        for (text, expect) in [
            ("Port Kelvar's Cup", "port-kelvars-cup"),
            ("Category:Mining (guilds)", "category-mining-guilds"),
            ("Notice: a meeting", "notice-a-meeting"),
            ("  A -- B ", "a-b"),
        ] {
            assert_eq!(slug(text), expect, "{text}");
        }
    }

    #[test]
    fn news_slugs_drop_numbers() {
        for (title, expect) in [
            ("Kest Cup draws the crowds", "kest-cup-draws-the-crowds"),
            (
                "Kest Cup 1850 draws the crowds",
                "kest-cup-draws-the-crowds",
            ),
            ("The 3rd Kest Cup", "the-3rd-kest-cup"),
            ("1850", ""),
        ] {
            assert_eq!(news_slug(title), expect, "{title}");
        }
    }

    /// The news urls of 24 worlds, for titles that state a year and titles told twice: none
    /// holds a year, and the worlds use every shape.
    #[test]
    fn news_urls_hold_no_date() {
        let mut shapes = BTreeSet::new();
        for id in 0..24 {
            let world = generate_world(5, id, &theme::all().unwrap());
            let mut sites = Sites::new(&world);
            for letter in ('a'..='t').chain('a'..='c') {
                let title = format!("Hall {letter} founded in 1850");
                let url = sites.news_url("business", &title);
                assert!(years(&url).is_empty(), "{url}");
                let path = url
                    .replace(&sites.news_host, "")
                    .replace(&news_slug(&title), "S");
                shapes.insert(path.replace(|c: char| c.is_ascii_digit(), ""));
            }
        }
        // The four shapes, and a title's second telling counted under the two without a story
        // number.
        assert_eq!(shapes.len(), NEWS_PATHS.len() + 2, "{shapes:?}");
    }

    /// The numbers of a url that could be a year: three or four digits (a story number has
    /// five or six, a clash's counter one or two).
    pub(crate) fn years(url: &str) -> Vec<&str> {
        url.split(|c: char| !c.is_ascii_digit())
            .filter(|n| (3..=4).contains(&n.len()))
            .collect()
    }

    /// The url of every kind of page of world (`seed`, `id`), with its letters and digits dropped.
    fn url_shapes(seed: u64, id: u32) -> Vec<String> {
        let world = generate_world(seed, id, &theme::all().unwrap());
        let mut sites = Sites::new(&world);
        let org = world.organisations[0].id;
        let mut urls = vec![
            sites
                .entity(TableRole::Person, world.people[0].id)
                .to_string(),
            sites.wiki_url("List of things"),
            sites.news_url("business", "A new guild"),
            sites.archive_url(1850),
            sites.about_url(org),
            sites.people_url(org),
        ];
        urls.extend(world.census_years().first().map(|y| sites.census_url(*y)));
        let root = slug(&world.root);
        urls.iter()
            .map(|u| {
                u.replace(&root, "R")
                    .replace(|c: char| c.is_alphanumeric(), "")
            })
            .collect()
    }

    #[test]
    fn worlds_lay_out_their_sites_differently_and_stably() {
        let layouts: BTreeSet<Vec<String>> = (0..24).map(|id| url_shapes(5, id)).collect();
        assert!(
            layouts.len() >= 12,
            "{} layouts of 24 worlds",
            layouts.len()
        );
        assert_eq!(url_shapes(5, 3), url_shapes(5, 3));
    }
}
