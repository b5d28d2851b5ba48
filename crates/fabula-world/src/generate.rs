//! Generation of one world's rows from (master seed, world id).
//!
//! The order is fixed: theme and shape, then regions, settlements, people, organisations and the
//! relations between them. Each step draws only entities that already exist, so references are
//! valid by construction, and each draw respects the time order rules (people are adults before
//! they found or lead anything, things exist before they host or employ, terms of one seat follow
//! each other). Derived values (a region's population, an organisation's member count) are computed
//! last from their sources. A world whose row total falls outside 300..=500 is drawn again from the
//! same RNG streams, so the result stays deterministic.

use rand::RngExt;
use rand::seq::{IndexedRandom, SliceRandom};

use crate::model::*;
use crate::naming::{Language, Namer, fill};
use crate::seed::{self, WorldRng};
use crate::theme::{EntityShape, Theme};

/// The smallest and largest number of domain rows a world may have.
pub const ROW_BOUNDS: (usize, usize) = (300, 500);

/// Generates world `world_id` of a dataset with `master_seed`, drawing its theme from `themes`.
///
/// ```
/// let themes = fabula_world::theme::all().unwrap();
/// let world = fabula_world::generate_world(7, 42, &themes);
/// assert!((300..=500).contains(&world.n_rows()));
/// ```
pub fn generate_world(master_seed: u64, world_id: u32, themes: &[Theme]) -> World {
    assert!(
        !themes.is_empty(),
        "generate_world needs at least one theme"
    );
    let mut theme_rng = seed::rng(master_seed, world_id, "theme");
    let theme = themes.choose(&mut theme_rng).expect("non-empty").clone();
    let mut rng = seed::rng(master_seed, world_id, "rows");
    let mut name_rng = seed::rng(master_seed, world_id, "names");
    loop {
        let world = draw(master_seed, world_id, &theme, &mut rng, &mut name_rng);
        if (ROW_BOUNDS.0..=ROW_BOUNDS.1).contains(&world.n_rows()) {
            return world;
        }
    }
}

/// Draws an integer spread logarithmically over a range, as sizes in nature are.
fn log_uniform(rng: &mut WorldRng, lo: i64, hi: i64) -> i64 {
    if hi <= lo {
        return lo;
    }
    if lo <= 0 || hi / lo < 50 {
        return rng.random_range(lo..=hi);
    }
    let x: f64 = rng.random_range((lo as f64).ln()..=(hi as f64).ln());
    (x.exp().round() as i64).clamp(lo, hi)
}

fn extras(rng: &mut WorldRng, shape: &EntityShape) -> Vec<i64> {
    shape
        .extras
        .iter()
        .map(|e| log_uniform(rng, e.min, e.max))
        .collect()
}

fn pick<'a>(rng: &mut WorldRng, items: &'a [String]) -> &'a str {
    items.choose(rng).map_or("", String::as_str)
}

/// One attempt at a world: the frame, then each table in creation order, then derived values.
/// Every step draws from `rng` and `name_rng` in a fixed order, so the same streams give the
/// same world.
fn draw(
    master_seed: u64,
    world_id: u32,
    theme: &Theme,
    rng: &mut WorldRng,
    name_rng: &mut WorldRng,
) -> World {
    let mut namer = Namer::new(Language::new(name_rng));
    let mut world = draw_frame(master_seed, world_id, theme, rng, &mut namer, name_rng);
    draw_regions(&mut world, theme, rng, &mut namer, name_rng);
    let settlement_roots = draw_settlements(&mut world, theme, rng, &mut namer, name_rng);
    draw_people(&mut world, theme, rng, &mut namer, name_rng);
    let org_roots = draw_organisations(
        &mut world,
        theme,
        rng,
        &mut namer,
        name_rng,
        &settlement_roots,
    );
    draw_tenures(&mut world, rng);
    draw_memberships(&mut world, rng);
    if world.groups.works {
        draw_works(&mut world, rng, &mut namer, name_rng, &org_roots);
    }
    if world.groups.events {
        draw_events(&mut world, rng, &mut namer, name_rng, &settlement_roots);
    }
    if world.groups.alliances {
        draw_alliances(&mut world, rng, &mut namer, name_rng);
    }
    derive_totals(&mut world);
    world
}

/// The world without rows: its calendar, table groups and name.
fn draw_frame(
    master_seed: u64,
    world_id: u32,
    theme: &Theme,
    rng: &mut WorldRng,
    namer: &mut Namer,
    name_rng: &mut WorldRng,
) -> World {
    let present = rng.random_range(theme.present_year[0]..=theme.present_year[1]);
    let span = rng.random_range(150..=400);
    let earliest = present - span;
    let groups = draw_groups(theme, rng);
    let world_root = namer.root(name_rng);
    let name = fill(pick(rng, &theme.world_names), &world_root);
    namer.reserve(&name);
    World {
        id: world_id,
        master_seed,
        world_seed: seed::world_seed(master_seed, world_id),
        name,
        root: world_root,
        theme: theme.clone(),
        present_year: present,
        earliest_year: earliest,
        groups,
        regions: Vec::new(),
        settlements: Vec::new(),
        people: Vec::new(),
        organisations: Vec::new(),
        memberships: Vec::new(),
        tenures: Vec::new(),
        works: Vec::new(),
        events: Vec::new(),
        participations: Vec::new(),
        alliances: Vec::new(),
        alliance_memberships: Vec::new(),
    }
}

/// Table shapes vary: 7 tables, 9 with events or alliances, or 10 with both but no works. A theme
/// without a group never gets it.
fn draw_groups(theme: &Theme, rng: &mut WorldRng) -> Groups {
    let has = |g: &str| theme.groups.iter().any(|x| x == g);
    match rng.random_range(0..4) {
        0 => Groups {
            works: true,
            events: false,
            alliances: false,
        },
        1 => Groups {
            works: true,
            events: has("events"),
            alliances: false,
        },
        2 => Groups {
            works: true,
            events: false,
            alliances: has("alliances"),
        },
        _ => Groups {
            works: false,
            events: has("events"),
            alliances: has("alliances"),
        },
    }
}

fn draw_regions(
    world: &mut World,
    theme: &Theme,
    rng: &mut WorldRng,
    namer: &mut Namer,
    name_rng: &mut WorldRng,
) {
    let n_regions = rng.random_range(3..=7);
    for i in 0..n_regions {
        let name = namer.name(name_rng, &theme.region.names);
        let extras = extras(rng, &theme.region);
        world.regions.push(Region {
            id: i + 1,
            name,
            population: 0,
            extras,
        });
    }
}

/// Settlements, the first founded in the earliest year and one in each region before the rest
/// spread at random. Returns the name root of each settlement, by position.
fn draw_settlements(
    world: &mut World,
    theme: &Theme,
    rng: &mut WorldRng,
    namer: &mut Namer,
    name_rng: &mut WorldRng,
) -> Vec<String> {
    let (earliest, present) = (world.earliest_year, world.present_year);
    let n_regions = world.regions.len() as i64;
    let n_settlements = rng.random_range(14..=26);
    let pop = theme.settlement.population.expect("validated");
    let mut settlement_roots = Vec::new();
    for i in 0..n_settlements {
        let root = namer.root(name_rng);
        let name = namer
            .name_with_root(name_rng, &theme.settlement.names, &root)
            .unwrap_or_else(|| namer.name(name_rng, &theme.settlement.names));
        settlement_roots.push(root);
        let region = if i < n_regions {
            i + 1
        } else {
            rng.random_range(1..=n_regions)
        };
        let founded = if i == 0 {
            earliest
        } else {
            rng.random_range(earliest..=present - 60)
        };
        let population = log_uniform(rng, pop[0], pop[1]);
        let extras = extras(rng, &theme.settlement);
        world.settlements.push(Settlement {
            id: i + 1,
            name,
            region,
            founded,
            population,
            extras,
        });
    }
    settlement_roots
}

/// People, in families that share a surname: near-namesakes by design.
fn draw_people(
    world: &mut World,
    theme: &Theme,
    rng: &mut WorldRng,
    namer: &mut Namer,
    name_rng: &mut WorldRng,
) {
    let present = world.present_year;
    let n_settlements = world.settlements.len() as i64;
    let n_people = rng.random_range(60..=100);
    let n_families = (n_people / 3).max(4);
    let families: Vec<String> = (0..n_families).map(|_| namer.root(name_rng)).collect();
    for i in 0..n_people {
        let name = loop {
            let given = namer.language.word(name_rng);
            let family = families.choose(name_rng).expect("families");
            let full = format!("{given} {family}");
            if (3..=9).contains(&given.len()) && namer.reserve(&full) {
                break full;
            }
        };
        let birthplace = rng.random_range(1..=n_settlements);
        let lo = world.settlement(birthplace).founded;
        let birth_year = rng.random_range(lo..=present - 18);
        let death_year = if present - birth_year > 50 && rng.random_bool(0.85) {
            Some((birth_year + rng.random_range(45..=96)).min(present))
        } else {
            None
        };
        // Nobody outlives 105 years: the long-lived are given a death year.
        let death_year = death_year
            .or((present - birth_year > 100).then(|| birth_year + rng.random_range(60..=100)));
        let occupation = pick(rng, &theme.person.occupations).to_string();
        world.people.push(Person {
            id: i + 1,
            name,
            birth_year,
            death_year,
            birthplace,
            occupation,
        });
    }
}

/// Organisations, each founded by an adult in a settlement that already exists. Returns the name
/// root of each organisation, by position.
fn draw_organisations(
    world: &mut World,
    theme: &Theme,
    rng: &mut WorldRng,
    namer: &mut Namer,
    name_rng: &mut WorldRng,
    settlement_roots: &[String],
) -> Vec<String> {
    let present = world.present_year;
    let (n_settlements, n_people) = (world.settlements.len() as i64, world.people.len() as i64);
    let n_orgs = rng.random_range(14..=24);
    let mut org_roots = Vec::new();
    while world.organisations.len() < n_orgs {
        let home = rng.random_range(1..=n_settlements);
        let founder = rng.random_range(1..=n_people);
        let p = world.person(founder);
        let lo = (p.birth_year + 20).max(world.settlement(home).founded);
        let hi = p.death_year.unwrap_or(present).min(present - 2);
        if lo > hi {
            continue;
        }
        let founded = rng.random_range(lo..=hi);
        let (name, root) = organisation_name(theme, rng, namer, name_rng, settlement_roots);
        org_roots.push(root);
        let category = pick(rng, &theme.organisation.categories).to_string();
        let extras = extras(rng, &theme.organisation);
        let id = world.organisations.len() as i64 + 1;
        world.organisations.push(Organisation {
            id,
            name,
            category,
            home,
            founder,
            founded,
            member_count: 0,
            extras,
        });
    }
    org_roots
}

/// An organisation's name and its root. A quarter of organisations are named after a settlement:
/// `Kelvar Rovers` in `Port Kelvar`.
fn organisation_name(
    theme: &Theme,
    rng: &mut WorldRng,
    namer: &mut Namer,
    name_rng: &mut WorldRng,
    settlement_roots: &[String],
) -> (String, String) {
    let patterns = &theme.organisation.names;
    let reused = if rng.random_bool(0.25) {
        let root = settlement_roots[rng.random_range(0..settlement_roots.len())].clone();
        namer
            .name_with_root(name_rng, patterns, &root)
            .map(|n| (n, root))
    } else {
        None
    };
    reused.unwrap_or_else(|| {
        let root = namer.root(name_rng);
        let name = namer
            .name_with_root(name_rng, patterns, &root)
            .unwrap_or_else(|| namer.name(name_rng, patterns));
        (name, root)
    })
}

/// Derived values, computed from their sources: a region's population is the sum of its
/// settlements', an organisation's member count the number of its memberships.
fn derive_totals(world: &mut World) {
    for region in &mut world.regions {
        region.population = world
            .settlements
            .iter()
            .filter(|s| s.region == region.id)
            .map(|s| s.population)
            .sum();
    }
    for org in &mut world.organisations {
        org.member_count = world
            .memberships
            .iter()
            .filter(|m| m.organisation == org.id)
            .count() as i64;
    }
}

/// People who can act in a year: alive and at least `min_age` years old.
fn adults_in(world: &World, year: i64, min_age: i64) -> Vec<i64> {
    world
        .people
        .iter()
        .filter(|p| p.birth_year + min_age <= year && p.death_year.is_none_or(|d| d >= year))
        .map(|p| p.id)
        .collect()
}

/// Chains of office holders: each seat's terms follow one another without overlap.
fn draw_tenures(world: &mut World, rng: &mut WorldRng) {
    let present = world.present_year;
    let seats = world.theme.organisation.seats.clone();
    for org_idx in 0..world.organisations.len() {
        let org = world.organisations[org_idx].clone();
        let n_seats = if seats.len() > 1 && rng.random_bool(0.3) {
            2
        } else {
            1
        };
        for seat in seats.iter().take(n_seats) {
            let max_holders = rng.random_range(2..=4);
            let mut cursor = org.founded.max(present - rng.random_range(25..=90));
            let mut holders = 0;
            while cursor <= present && holders < max_holders {
                // Holders live at least two more years, so no term is empty.
                let candidates: Vec<i64> = adults_in(world, cursor, 21)
                    .into_iter()
                    .filter(|&id| world.person(id).death_year.is_none_or(|d| d >= cursor + 2))
                    .collect();
                let Some(&holder) = candidates.choose(rng) else {
                    cursor += 5;
                    continue;
                };
                let death = world.person(holder).death_year;
                let mut end = cursor + rng.random_range(3..=25);
                if let Some(d) = death {
                    end = end.min(d);
                }
                let end = if end >= present && death.is_none() {
                    None
                } else {
                    Some(end.min(present))
                };
                let id = world.tenures.len() as i64 + 1;
                world.tenures.push(Tenure {
                    id,
                    organisation: org.id,
                    person: holder,
                    seat: seat.clone(),
                    start: cursor,
                    end,
                });
                holders += 1;
                match end {
                    None => break,
                    Some(e) => cursor = e + rng.random_range(0..=2),
                }
            }
        }
    }
}

/// The many-to-many membership table, with a density that varies from world to world.
fn draw_memberships(world: &mut World, rng: &mut WorldRng) {
    let present = world.present_year;
    let density: f64 = rng.random_range(2.0..6.0);
    let roles = world.theme.organisation.member_roles.clone();
    for org_idx in 0..world.organisations.len() {
        let org = world.organisations[org_idx].clone();
        let k = ((density + rng.random_range(-1.5..1.5)).round() as usize).max(1);
        let mut candidates: Vec<i64> = world
            .people
            .iter()
            .filter(|p| {
                p.birth_year + 16 <= present
                    && p.death_year
                        .is_none_or(|d| d >= org.founded.max(p.birth_year + 16))
            })
            .map(|p| p.id)
            .collect();
        candidates.shuffle(rng);
        for person in candidates.into_iter().take(k) {
            let p = world.person(person);
            let lo = org.founded.max(p.birth_year + 16);
            let hi = p.death_year.unwrap_or(present).min(present);
            if lo > hi {
                continue;
            }
            let joined = rng.random_range(lo..=hi);
            let role = pick(rng, &roles).to_string();
            let id = world.memberships.len() as i64 + 1;
            world.memberships.push(Membership {
                id,
                person,
                organisation: org.id,
                role,
                joined,
            });
        }
    }
}

fn draw_works(
    world: &mut World,
    rng: &mut WorldRng,
    namer: &mut Namer,
    name_rng: &mut WorldRng,
    org_roots: &[String],
) {
    let n_works = rng.random_range(20..=45);
    let shape = world.theme.work.clone();
    for i in 0..n_works {
        let org = world.organisations[rng.random_range(0..world.organisations.len())].clone();
        let year = rng.random_range(org.founded..=world.present_year);
        // Some works carry their maker's root, another source of near-namesakes.
        let name = if rng.random_bool(0.15) {
            let root = &org_roots[(org.id - 1) as usize];
            namer.name_with_root(name_rng, &shape.names, root)
        } else {
            None
        }
        .unwrap_or_else(|| namer.name(name_rng, &shape.names));
        let extras = extras(rng, &shape);
        world.works.push(Work {
            id: i + 1,
            name,
            organisation: org.id,
            year,
            extras,
        });
    }
}

fn draw_events(
    world: &mut World,
    rng: &mut WorldRng,
    namer: &mut Namer,
    name_rng: &mut WorldRng,
    settlement_roots: &[String],
) {
    let n_events = rng.random_range(6..=12);
    let shape = world.theme.event.clone();
    while world.events.len() < n_events {
        let host = rng.random_range(1..=world.settlements.len() as i64);
        let lo = world.settlement(host).founded.max(world.earliest_year + 40);
        let year = rng.random_range(lo.min(world.present_year)..=world.present_year);
        let mut eligible: Vec<i64> = world
            .organisations
            .iter()
            .filter(|o| o.founded <= year)
            .map(|o| o.id)
            .collect();
        if eligible.len() < 2 {
            continue;
        }
        let name = if rng.random_bool(0.4) {
            namer.name_with_root(
                name_rng,
                &shape.names,
                &settlement_roots[(host - 1) as usize],
            )
        } else {
            None
        }
        .unwrap_or_else(|| namer.name(name_rng, &shape.names));
        let id = world.events.len() as i64 + 1;
        world.events.push(Event {
            id,
            name,
            year,
            host,
        });
        eligible.shuffle(rng);
        let k = rng.random_range(2..=6).min(eligible.len());
        for (place, &org) in eligible.iter().take(k).enumerate() {
            let pid = world.participations.len() as i64 + 1;
            world.participations.push(Participation {
                id: pid,
                event: id,
                organisation: org,
                result: place as i64 + 1,
            });
        }
    }
}

/// Alliances, each founded in its seat settlement at least five years before the present, then
/// their memberships.
fn draw_alliances(
    world: &mut World,
    rng: &mut WorldRng,
    namer: &mut Namer,
    name_rng: &mut WorldRng,
) {
    let present = world.present_year;
    let n_alliances = rng.random_range(3..=5);
    let shape = world.theme.alliance.clone();
    while world.alliances.len() < n_alliances {
        let seat = rng.random_range(1..=world.settlements.len() as i64);
        let lo = world.settlement(seat).founded;
        let founded = rng.random_range(lo.min(present - 5)..=present - 5);
        let name = namer.name(name_rng, &shape.names);
        let id = world.alliances.len() as i64 + 1;
        world.alliances.push(Alliance {
            id,
            name,
            founded,
            seat,
        });
    }
    draw_alliance_memberships(world, rng);
}

/// Each organisation belongs to at most one alliance at a time, like a club in one league.
fn draw_alliance_memberships(world: &mut World, rng: &mut WorldRng) {
    let present = world.present_year;
    for org_idx in 0..world.organisations.len() {
        let org = world.organisations[org_idx].clone();
        if rng.random_bool(0.3) {
            continue;
        }
        let mut cursor = org.founded;
        let mut previous = 0;
        for _ in 0..rng.random_range(1..=3) {
            let choices: Vec<i64> = world
                .alliances
                .iter()
                .filter(|a| a.id != previous && a.founded <= present)
                .map(|a| a.id)
                .collect();
            let Some(&alliance) = choices.choose(rng) else {
                break;
            };
            let start = cursor.max(world.alliance(alliance).founded) + rng.random_range(0..=15);
            if start > present {
                break;
            }
            let end = if rng.random_bool(0.4) {
                None
            } else {
                Some(start + rng.random_range(2..=30))
            };
            let end = end.filter(|&e| e < present);
            let id = world.alliance_memberships.len() as i64 + 1;
            world.alliance_memberships.push(AllianceMembership {
                id,
                alliance,
                organisation: org.id,
                start,
                end,
            });
            match end {
                None => break,
                Some(e) => {
                    cursor = e;
                    previous = alliance;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme;

    /// Generates a world and compares a one-line summary of it with `expect`.
    fn check(master_seed: u64, world_id: u32, expect: &str) {
        let world = generate_world(master_seed, world_id, &theme::all().unwrap());
        let Groups {
            works,
            events,
            alliances,
        } = world.groups;
        let summary = format!(
            "{} ({}): {} rows, {} tables, works {works}, events {events}, alliances {alliances}",
            world.name,
            world.theme.id,
            world.n_rows(),
            world.n_tables()
        );
        assert_eq!(summary, expect);
    }

    /// The worlds of the reference datasets (seeds 123 and 7): a change in the order of draws
    /// shows here first.
    #[test]
    fn draws_keep_their_order() {
        check(
            123,
            0,
            "The City-States of the Diawist (river-cities): 304 rows, 10 tables, works false, events true, alliances true",
        );
        check(
            123,
            3,
            "The Flaekry Sporting Union (sports-league): 410 rows, 9 tables, works true, events true, alliances false",
        );
        check(
            7,
            1,
            "Ukodoa Colonial Union (star-colony): 324 rows, 10 tables, works false, events true, alliances true",
        );
    }

    #[test]
    fn log_uniform_stays_in_its_range() {
        let mut rng = seed::rng(1, 1, "test");
        for (lo, hi) in [(5, 5), (9, 3), (1, 40), (10, 1_000_000), (0, 100)] {
            for _ in 0..200 {
                let x = log_uniform(&mut rng, lo, hi);
                assert!(x == lo || (lo..=hi).contains(&x), "{x} outside {lo}..={hi}");
            }
        }
    }

    #[test]
    fn totals_are_derived_from_their_sources() {
        let mut world = generate_world(5, 5, &theme::all().unwrap());
        for region in &mut world.regions {
            region.population = -1;
        }
        for org in &mut world.organisations {
            org.member_count = -1;
        }
        derive_totals(&mut world);
        let total: i64 = world.regions.iter().map(|r| r.population).sum();
        let members: i64 = world.organisations.iter().map(|o| o.member_count).sum();
        assert_eq!(
            total,
            world.settlements.iter().map(|s| s.population).sum::<i64>()
        );
        assert_eq!(members, world.memberships.len() as i64);
    }

    #[test]
    fn groups_follow_the_theme() {
        for theme in theme::all().unwrap() {
            let mut rng = seed::rng(3, 0, &theme.id);
            for _ in 0..50 {
                let g = draw_groups(&theme, &mut rng);
                assert!(!(g.works && g.events && g.alliances), "{}", theme.id);
                let has = |name: &str| theme.groups.iter().any(|x| x == name);
                assert!(!g.events || has("events"), "{}", theme.id);
                assert!(!g.alliances || has("alliances"), "{}", theme.id);
            }
        }
    }
}
