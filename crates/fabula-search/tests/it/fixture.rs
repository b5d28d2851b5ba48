//! Fixture worlds: small SQLite world files with the tables this crate reads, generated from a
//! seed with realistic Markdown (infobox tables, prose, lists, links) and the facts each page
//! states. The bench includes this file too.

#![allow(dead_code)] // Reason: the bench and the tests each use part of this module.

use std::path::Path;

use fabula_file::{
    Manifest, ManifestEntry, Meta, Page, PageFact, PageKind, ValueKind, WorldContents,
};

/// One page to write, with the values it states.
#[derive(Debug, Clone)]
pub struct FixturePage {
    pub url: String,
    pub title: String,
    pub kind: &'static str,
    pub published: Option<String>,
    pub body: String,
    /// `(shown, value_kind)` pairs, each appearing in `body` exactly as shown.
    pub facts: Vec<(String, &'static str)>,
}

impl FixturePage {
    pub fn new(url: &str, title: &str, kind: &'static str, body: &str) -> FixturePage {
        FixturePage {
            url: url.to_owned(),
            title: title.to_owned(),
            kind,
            published: None,
            body: body.to_owned(),
            facts: Vec::new(),
        }
    }

    /// The values partial hiding must keep out of this page's snippets.
    pub fn hidden(&self) -> impl Iterator<Item = &str> {
        self.facts
            .iter()
            .filter(|(_, kind)| matches!(*kind, "number" | "year" | "date" | "entity"))
            .map(|(shown, _)| shown.as_str())
    }
}

/// The metadata of a fixture world.
pub fn meta(world_id: u32, name: &str) -> Meta {
    Meta {
        world_id,
        name: name.to_owned(),
        theme: "river-city-states".to_owned(),
        theme_label: "river city-states".to_owned(),
        master_seed: 7,
        world_seed: u64::from(world_id),
        generator_version: "test".to_owned(),
        format_version: fabula_file::FORMAT_VERSION,
        present_year: 2240,
        earliest_year: 1000,
        limits: None,
    }
}

/// Writes a world file through the world file's own writer: metadata and pages, no domain
/// tables.
pub fn write_world(path: &Path, world_id: u32, name: &str, pages: &[FixturePage]) {
    let pages: Vec<Page> = pages.iter().map(FixturePage::to_page).collect();
    let contents = WorldContents {
        meta: &meta(world_id, name),
        tables: &[],
        pages: &pages,
        tasks: &[],
    };
    fabula_file::write_world(path, &contents).unwrap();
}

impl FixturePage {
    fn to_page(&self) -> Page {
        let facts = self
            .facts
            .iter()
            .enumerate()
            .map(|(fact_idx, (shown, kind))| {
                assert!(
                    self.body.contains(shown.as_str()),
                    "{shown} not in {}",
                    self.url
                );
                PageFact {
                    table: "cells".to_owned(),
                    row_id: fact_idx as i64,
                    column: "value".to_owned(),
                    shown: shown.clone(),
                    value_kind: ValueKind::parse(kind).expect("a known value kind"),
                }
            })
            .collect();
        Page {
            url: self.url.clone(),
            title: self.title.clone(),
            kind: PageKind::parse(self.kind).expect("a known page kind"),
            published: self.published.clone(),
            body: self.body.clone(),
            facts,
        }
    }
}

/// Writes `manifest.json` listing `(id, file, name, pages)` worlds, with the SHA-256 of each
/// file found in `dir` (64 zeros for a missing one).
pub fn write_manifest(dir: &Path, worlds: &[(u32, &str, &str, usize)]) {
    let worlds = worlds
        .iter()
        .map(|&(id, file, name, pages)| ManifestEntry {
            id,
            file: file.to_owned(),
            sha256: fabula_file::sha256_file(&dir.join(file)).unwrap_or_else(|_| "0".repeat(64)),
            bytes: std::fs::metadata(dir.join(file))
                .ok()
                .map(|meta| meta.len()),
            theme: "river-city-states".to_owned(),
            name: name.to_owned(),
            rows: 400,
            tables: 8,
            pages,
            tasks: 20,
        })
        .collect::<Vec<_>>();
    let manifest = Manifest {
        format_version: fabula_file::FORMAT_VERSION,
        generator_version: "test".to_owned(),
        master_seed: 7,
        count: worlds.len() as u32,
        shard: None,
        themes: Vec::new(),
        worlds,
    };
    std::fs::write(dir.join(fabula_file::MANIFEST), manifest.to_json()).unwrap();
}

/// A small deterministic random number generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const SYLLABLES: &[&str] = &[
    "ka", "vel", "mor", "ar", "dun", "esh", "tri", "lo", "nar", "ves", "quil", "ith", "bra", "sel",
    "om", "ry", "tha", "gen", "ost", "ulm", "cae", "fen", "dra", "zim",
];
const GOODS: &[&str] = &[
    "salt",
    "amber",
    "wool",
    "copper",
    "glass",
    "timber",
    "dyes",
    "river pearls",
    "reed paper",
    "smoked eel",
    "lamp oil",
    "slate",
];
const ROLES: &[&str] = &[
    "magistrate",
    "ferry warden",
    "archivist",
    "guild speaker",
    "tax reeve",
];
const MONTHS: &[&str] = &[
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

fn invent_name(rng: &mut Rng, used: &mut std::collections::HashSet<String>) -> String {
    loop {
        let n_syllables = 2 + rng.below(2);
        let mut name: String = (0..n_syllables).map(|_| *rng.pick(SYLLABLES)).collect();
        if rng.below(5) == 0 {
            name = format!(
                "{name} {}",
                capitalize(&(0..2).map(|_| *rng.pick(SYLLABLES)).collect::<String>())
            );
        }
        let name = capitalize(&name);
        if used.insert(name.clone()) {
            return name;
        }
    }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn slug(name: &str) -> String {
    name.to_lowercase().replace(' ', "-")
}

/// Formats a number with thousands separators, as pages do.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (idx, digit) in digits.chars().enumerate() {
        if idx > 0 && (digits.len() - idx).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

struct City {
    name: String,
    region: usize,
    population: u64,
    founded: u64,
    leader: usize,
}

struct Person {
    name: String,
    born: u64,
    city: usize,
    role: &'static str,
}

/// Generates a world of about `n_pages` pages: city and person articles, region articles, list
/// and category pages, and dated news and history pages.
pub fn generate_pages(seed: u64, n_pages: usize) -> Vec<FixturePage> {
    let mut rng = Rng(seed);
    let mut used = std::collections::HashSet::new();
    let n_regions = (n_pages / 40).max(2);
    let n_cities = (n_pages * 2 / 5).max(3);
    let n_people = (n_pages / 4).max(2);
    let n_news = n_pages
        .saturating_sub(n_regions * 2 + n_cities + n_people + 1)
        .max(2);
    let wiki = "https://wiki.fabula.test";
    let regions: Vec<String> = (0..n_regions)
        .map(|_| invent_name(&mut rng, &mut used))
        .collect();
    let mut people: Vec<Person> = (0..n_people)
        .map(|_| Person {
            name: invent_name(&mut rng, &mut used),
            born: 1100 + rng.below(150) as u64,
            city: 0,
            role: ROLES[rng.below(ROLES.len())],
        })
        .collect();
    let cities: Vec<City> = (0..n_cities)
        .map(|_| City {
            name: invent_name(&mut rng, &mut used),
            region: rng.below(n_regions),
            population: 800 + rng.next() % 90_000,
            founded: 900 + rng.below(300) as u64,
            leader: rng.below(n_people),
        })
        .collect();
    for person in &mut people {
        person.city = rng.below(n_cities);
    }
    let city_url = |city: &City| format!("{wiki}/wiki/{}", slug(&city.name));
    let person_url = |person: &Person| format!("{wiki}/wiki/{}", slug(&person.name));
    let region_url = |region: &str| format!("{wiki}/wiki/{}", slug(region));

    let mut pages = Vec::new();
    for city in &cities {
        let region = &regions[city.region];
        let leader = &people[city.leader];
        let goods = [*rng.pick(GOODS), *rng.pick(GOODS)];
        let population = grouped(city.population);
        let founded = city.founded.to_string();
        let body = format!(
            "# {name}\n\n| Field | Value |\n|---|---|\n| Region | [{region}]({region_url}) |\n\
             | Population | {population} |\n| Founded | {founded} |\n| Leader | [{leader}]({leader_url}) |\n\n\
             **{name}** is a river city in the [{region}]({region_url}) region. It was founded in \
             {founded} on a bend of the slow brown river, and its population was counted at \
             {population} in the last census.\n\n## Economy\n\nThe city's markets trade in {g0} and {g1}, \
             carried on flat barges between the upper weirs and the delta. Most households keep a \
             boat, and the ferry stairs are the busiest streets after dark.\n\n## Government\n\n\
             The city is led by [{leader}]({leader_url}), who serves as {role}.\n\n\
             - Known for its {g0} market\n- Seat of a river court\n",
            name = city.name,
            region_url = region_url(region),
            leader = leader.name,
            leader_url = person_url(leader),
            g0 = goods[0],
            g1 = goods[1],
            role = leader.role,
        );
        let mut page = FixturePage::new(&city_url(city), &city.name, "entity", &body);
        page.facts = vec![
            (city.name.clone(), "name"),
            (region.clone(), "entity"),
            (population, "number"),
            (founded, "year"),
            (leader.name.clone(), "entity"),
            (goods[0].to_owned(), "text"),
        ];
        pages.push(page);
    }
    for person in &people {
        let city = &cities[person.city];
        let born = person.born.to_string();
        let body = format!(
            "# {name}\n\n| Field | Value |\n|---|---|\n| Born | {born} |\n| Home city | [{city}]({city_url}) |\n\
             | Office | {role} |\n\n{name} is a public figure of the river cities, born in {born} in \
             [{city}]({city_url}). Chroniclers describe a patient negotiator who preferred ledgers to \
             speeches and settled more than one quarrel over mooring rights.\n\n## Career\n\n\
             After years as a clerk of the tolls, {name} became {role}. The office keeps the weir \
             records and hears disputes between boat families.\n",
            name = person.name,
            city = city.name,
            city_url = city_url(city),
            role = person.role,
        );
        let mut page = FixturePage::new(&person_url(person), &person.name, "entity", &body);
        page.facts = vec![
            (person.name.clone(), "name"),
            (born, "year"),
            (city.name.clone(), "entity"),
            (person.role.to_owned(), "text"),
        ];
        pages.push(page);
    }
    for (region_idx, region) in regions.iter().enumerate() {
        let members: Vec<&City> = cities
            .iter()
            .filter(|city| city.region == region_idx)
            .collect();
        let total: u64 = members.iter().map(|city| city.population).sum();
        let total_shown = grouped(total);
        let mut body = format!(
            "# {region}\n\n{region} is a region of the river delta with {n} cities and a combined \
             population of {total_shown}. Its towns share a flood calendar and a common court.\n\n## Cities\n\n",
            n = members.len(),
        );
        let mut facts = vec![(region.clone(), "name"), (total_shown, "number")];
        for city in &members {
            body.push_str(&format!("- [{}]({})\n", city.name, city_url(city)));
            facts.push((city.name.clone(), "entity"));
        }
        let mut page = FixturePage::new(&region_url(region), region, "entity", &body);
        page.facts = facts;
        pages.push(page);

        let mut body = format!("# Category: Cities of {region}\n\nPages in this category:\n\n");
        let mut facts = Vec::new();
        for city in &members {
            body.push_str(&format!("- [{}]({})\n", city.name, city_url(city)));
            facts.push((city.name.clone(), "entity"));
        }
        let url = format!("{wiki}/category/cities-of-{}", slug(region));
        let mut page = FixturePage::new(
            &url,
            &format!("Category: Cities of {region}"),
            "category",
            &body,
        );
        page.facts = facts;
        pages.push(page);
    }
    let mut body =
        "# List of cities by population\n\n| City | Region | Population |\n|---|---|---|\n"
            .to_owned();
    let mut facts = Vec::new();
    for city in &cities {
        let population = grouped(city.population);
        body.push_str(&format!(
            "| [{}]({}) | {} | {population} |\n",
            city.name,
            city_url(city),
            regions[city.region]
        ));
        facts.push((city.name.clone(), "entity"));
        facts.push((regions[city.region].clone(), "entity"));
        facts.push((population, "number"));
    }
    let mut page = FixturePage::new(
        &format!("{wiki}/list/cities-by-population"),
        "List of cities by population",
        "list",
        &body,
    );
    page.facts = facts;
    pages.push(page);
    for news_idx in 0..n_news {
        let city = &cities[rng.below(n_cities)];
        let person = &people[rng.below(n_people)];
        let year = 1250 + rng.below(30);
        let month = rng.below(12);
        let day = 1 + rng.below(28);
        let date_shown = format!("{day} {} {year}", MONTHS[month]);
        let published = format!("{year}-{:02}-{day:02}", month + 1);
        let cargo = grouped(100 + rng.next() % 20_000);
        let good = *rng.pick(GOODS);
        let is_history = news_idx % 5 == 0;
        let (kind, host, title) = if is_history {
            (
                "history",
                "https://annals.fabula.test",
                format!("The {good} trade of {}", city.name),
            )
        } else {
            (
                "news",
                "https://delta-courier.fabula.test",
                format!("{} reports record {good} shipments", city.name),
            )
        };
        let body = format!(
            "# {title}\n\n*{date_shown}*\n\nBarges from [{city}]({city_url}) carried {cargo} bales of \
             {good} downriver this season, according to the harbor ledgers. [{person}]({person_url}) \
             told the council that the weirs would stay open through the dry months.\n\n\
             > \"The river owes us nothing, but it has been generous,\" said {person}.\n\n\
             Traders expect prices to settle once the flood calendar turns.\n",
            city = city.name,
            city_url = city_url(city),
            person = person.name,
            person_url = person_url(person),
        );
        let url = format!("{host}/{kind}/{year}/{news_idx}-{}", slug(&city.name));
        let mut page = FixturePage::new(&url, &title, kind, &body);
        page.published = Some(published);
        page.facts = vec![
            (date_shown, "date"),
            (city.name.clone(), "entity"),
            (cargo, "number"),
            (person.name.clone(), "entity"),
        ];
        pages.push(page);
    }
    pages
}
