//! Generation of one world's rows from (master seed, world id).
//!
//! The order is fixed: theme and shape, then regions, settlements, people, organisations and the
//! relations between them. Each step draws only entities that already exist, so references are
//! valid by construction, and each draw respects the time order rules (people are adults before
//! they found or lead anything, things exist before they host or employ, terms of one seat follow
//! each other) and the theme's limits (the ages at which people found, join and take office; no
//! two offices of one title at once, and at most the theme's number of offices at once). Derived
//! values (a region's population, an organisation's member count) are computed last from their
//! sources, and after them the extras drawn in proportion to another number of their row. A world
//! whose row total falls outside 300..=500 is drawn again from the same RNG streams, so the
//! result stays deterministic. Censuses come last, from their own stream, within the rows left
//! under 500 ([`draw_censuses`]).

use rand::RngExt;
use rand::seq::{IndexedRandom, SliceRandom};

use crate::model::*;
use crate::naming::{Language, Namer, fill};
use crate::seed::{self, WorldRng};
use crate::theme::{AGE, EntityShape, Theme};

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
        let mut world = draw(master_seed, world_id, &theme, &mut rng, &mut name_rng);
        if (ROW_BOUNDS.0..=ROW_BOUNDS.1).contains(&world.n_rows()) {
            let mut census_rng = seed::rng(master_seed, world_id, "censuses");
            draw_censuses(&mut world, &mut census_rng);
            return world;
        }
    }
}

/// The share of worlds that hold censuses.
const CENSUS_SHARE: f64 = 0.8;

/// Censuses every 10, 20 or 25 years, the last one 1 to `interval` years before the present,
/// as many of them (2 to 4) as the row budget left under 500 allows; each counts every
/// settlement founded before its year. A settlement's population at a census is its present
/// population shrunk by its own yearly growth rate (0.2% to 2.5%) over the years between, with a
/// little noise: older counts are smaller as a rule, not always. A world with room for fewer than
/// two censuses has none. The draws use their own RNG stream, so the rest of the world is the
/// same with or without them.
fn draw_censuses(world: &mut World, rng: &mut WorldRng) {
    if !rng.random_bool(CENSUS_SHARE) {
        return;
    }
    let interval = *[10, 20, 25].choose(rng).expect("non-empty");
    let wanted = rng.random_range(2..=4);
    let growth: Vec<f64> = world
        .settlements
        .iter()
        .map(|_| rng.random_range(0.002..0.025))
        .collect();
    let mut budget = ROW_BOUNDS.1.saturating_sub(world.n_rows());
    let mut year = world.present_year - rng.random_range(1..=interval);
    let mut years = Vec::new();
    while years.len() < wanted {
        let counted = world
            .settlements
            .iter()
            .filter(|s| s.founded < year)
            .count();
        if counted == 0 || counted > budget {
            break;
        }
        budget -= counted;
        years.push(year);
        year -= interval;
    }
    if years.len() < 2 {
        return;
    }
    years.reverse();
    for year in years {
        for (s, g) in world.settlements.iter().zip(&growth) {
            if s.founded >= year {
                continue;
            }
            let span = (world.present_year - year) as f64;
            let noise = rng.random_range(0.97..1.03);
            let population = (s.population as f64 * (-g * span).exp() * noise).round() as i64;
            world.censuses.push(Census {
                id: world.censuses.len() as i64 + 1,
                settlement: s.id,
                year,
                population: population.max(20),
            });
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

/// The extras of a new row. An extra drawn `per` another number is 0 until
/// [`draw_ratio_extras`] fills it in, once every number it may depend on is known.
fn extras(rng: &mut WorldRng, shape: &EntityShape) -> Vec<i64> {
    shape
        .extras
        .iter()
        .map(|e| match e.per {
            Some(_) => 0,
            None => log_uniform(rng, e.min, e.max),
        })
        .collect()
}

/// Fills in a row's extras drawn `per` another number of the row (one of `own`, or a sibling
/// extra): that number times a ratio drawn uniformly in the theme's range, rounded and held within
/// the extra's range.
fn fill_ratio_extras(
    rng: &mut WorldRng,
    shape: &EntityShape,
    extras: &mut [i64],
    own: &[(&str, i64)],
) {
    for (i, extra) in shape.extras.iter().enumerate() {
        let (Some(per), Some([lo, hi])) = (extra.per.as_deref(), extra.ratio) else {
            continue;
        };
        let source = match own.iter().find(|(name, _)| *name == per) {
            Some(&(_, value)) => value,
            None => {
                let sibling = shape.extras.iter().position(|e| e.column == per);
                extras[sibling.expect("the theme names an extra of its row")]
            }
        };
        let ratio = rng.random_range(lo..=hi);
        extras[i] = ((source as f64 * ratio).round() as i64).clamp(extra.min, extra.max);
    }
}

/// Draws the extras declared in proportion to another number of their row, after the derived
/// totals they may depend on (a region's population, an organisation's member count).
fn draw_ratio_extras(world: &mut World, rng: &mut WorldRng) {
    let World {
        theme,
        present_year,
        regions,
        settlements,
        organisations,
        works,
        ..
    } = world;
    let present = *present_year;
    for r in regions {
        fill_ratio_extras(
            rng,
            &theme.region,
            &mut r.extras,
            &[("population", r.population)],
        );
    }
    for s in settlements {
        let own = [("population", s.population), (AGE, present - s.founded)];
        fill_ratio_extras(rng, &theme.settlement, &mut s.extras, &own);
    }
    for o in organisations {
        let own = [("member_count", o.member_count), (AGE, present - o.founded)];
        fill_ratio_extras(rng, &theme.organisation, &mut o.extras, &own);
    }
    for w in works {
        fill_ratio_extras(rng, &theme.work, &mut w.extras, &[(AGE, present - w.year)]);
    }
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
    draw_ratio_extras(&mut world, rng);
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
        censuses: Vec::new(),
    }
}

/// Table shapes vary: of the three optional groups (works; events with their results;
/// alliances with their memberships) a world has one of seven sets: works alone (7 tables),
/// works with events or with alliances (9), all three (11), events and alliances without works
/// (10), or events or alliances alone (8); censuses add one more table. With or without censuses,
/// that is 14 schemas per theme. A theme without a group never gets it.
fn draw_groups(theme: &Theme, rng: &mut WorldRng) -> Groups {
    let has = |g: &str| theme.groups.iter().any(|x| x == g);
    let (works, events, alliances) = *[
        (true, false, false),
        (true, true, false),
        (true, false, true),
        (true, true, true),
        (false, true, true),
        (false, true, false),
        (false, false, true),
    ]
    .choose(rng)
    .expect("non-empty");
    Groups {
        works,
        events: events && has("events"),
        alliances: alliances && has("alliances"),
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

/// Organisations, each founded by a person of the theme's founder age in a settlement that already
/// exists. Returns the name root of each organisation, by position.
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
    let [youngest, oldest] = theme.limits.founder_age;
    let mut org_roots = Vec::new();
    while world.organisations.len() < n_orgs {
        let home = rng.random_range(1..=n_settlements);
        let founder = rng.random_range(1..=n_people);
        let p = world.person(founder);
        let lo = (p.birth_year + youngest).max(world.settlement(home).founded);
        let hi = p
            .death_year
            .unwrap_or(present)
            .min(present - 2)
            .min(p.birth_year + oldest);
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

/// How long `person` may hold one more office of `seat` from `start`: `None` when they may not
/// take it up at all, else the year it must end by (`i64::MAX` for never). A new office may not
/// overlap another of the same title, nor make more than `at_once` offices held at one time;
/// both can only begin to bind where one of the person's terms starts.
fn free_until(
    tenures: &[Tenure],
    person: i64,
    seat: &str,
    start: i64,
    at_once: usize,
) -> Option<i64> {
    let held: Vec<&Tenure> = tenures.iter().filter(|t| t.person == person).collect();
    let covers = |t: &Tenure, year: i64| t.start <= year && t.end.is_none_or(|e| year < e);
    let conflict = |year: i64| {
        let covering = || held.iter().filter(|t| covers(t, year));
        covering().any(|t| t.seat == seat) || covering().count() >= at_once
    };
    if conflict(start) {
        return None;
    }
    let until = held
        .iter()
        .map(|t| t.start)
        .filter(|&s| s > start && conflict(s))
        .min();
    Some(until.unwrap_or(i64::MAX))
}

/// Chains of office holders: each seat's terms follow one another without overlap. A holder is
/// of the seat's age when the term starts and leaves by five years past its oldest starting age,
/// holds no other office of that title meanwhile, and at most the theme's number of offices at
/// once.
fn draw_tenures(world: &mut World, rng: &mut WorldRng) {
    let present = world.present_year;
    let seats = world.theme.organisation.seats.clone();
    let limits = world.theme.limits.clone();
    let at_once = limits.offices_at_once as usize;
    for org_idx in 0..world.organisations.len() {
        let org = world.organisations[org_idx].clone();
        let n_seats = if seats.len() > 1 && rng.random_bool(0.3) {
            2
        } else {
            1
        };
        for seat in seats.iter().take(n_seats) {
            let [youngest, oldest] = limits.office_age[seat];
            let max_holders = rng.random_range(2..=4);
            let mut cursor = org.founded.max(present - rng.random_range(25..=90));
            let mut holders = 0;
            while cursor <= present && holders < max_holders {
                // Holders live at least two more years and are free for them, so no term is empty.
                let candidates: Vec<(i64, i64)> = world
                    .people
                    .iter()
                    .filter(|p| {
                        (youngest..=oldest).contains(&(cursor - p.birth_year))
                            && p.death_year.is_none_or(|d| d >= cursor + 2)
                    })
                    .filter_map(|p| {
                        let until = free_until(&world.tenures, p.id, seat, cursor, at_once)?;
                        (until >= cursor + 2).then_some((p.id, until))
                    })
                    .collect();
                let Some(&(holder, until)) = candidates.choose(rng) else {
                    cursor += 5;
                    continue;
                };
                let p = world.person(holder);
                let death = p.death_year;
                let retired = p.birth_year + oldest + 5;
                let mut end = (cursor + rng.random_range(3..=25)).min(retired);
                if let Some(d) = death {
                    end = end.min(d);
                }
                // A term still running in the present year stays open, unless it must end
                // before another of the holder's terms starts.
                let end = if end >= present && death.is_none() && until == i64::MAX {
                    None
                } else {
                    Some(end.min(until).min(present))
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

/// The many-to-many membership table, with a density that varies from world to world. Members
/// join at the theme's member age, after the founding and while alive.
fn draw_memberships(world: &mut World, rng: &mut WorldRng) {
    let present = world.present_year;
    let density: f64 = rng.random_range(2.0..6.0);
    let roles = world.theme.organisation.member_roles.clone();
    let [youngest, oldest] = world.theme.limits.member_age;
    for org_idx in 0..world.organisations.len() {
        let org = world.organisations[org_idx].clone();
        let k = ((density + rng.random_range(-1.5..1.5)).round() as usize).max(1);
        // The years in which each person could join: old enough, young enough, founded, alive.
        let mut candidates: Vec<(i64, i64, i64)> = world
            .people
            .iter()
            .map(|p| {
                let lo = org.founded.max(p.birth_year + youngest);
                let hi = p
                    .death_year
                    .unwrap_or(present)
                    .min(present)
                    .min(p.birth_year + oldest);
                (p.id, lo, hi)
            })
            .filter(|&(_, lo, hi)| lo <= hi)
            .collect();
        candidates.shuffle(rng);
        for (person, lo, hi) in candidates.into_iter().take(k) {
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
            "{} ({}): {} rows, {} tables, works {works}, events {events}, alliances {alliances}, \
             censuses {:?}",
            world.name,
            world.theme.id,
            world.n_rows(),
            world.n_tables(),
            world.census_years()
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
            "The City-States of the Niodoa (river-cities): 476 rows, 12 tables, works true, events true, alliances true, censuses [1294, 1319, 1344, 1369]",
        );
        check(
            123,
            3,
            "The Flaekry Sporting Union (sports-league): 348 rows, 11 tables, works true, events true, alliances true, censuses []",
        );
        check(
            7,
            1,
            "Ukodoa Colonial Union (star-colony): 389 rows, 9 tables, works false, events true, alliances false, censuses [3002, 3022]",
        );
    }

    /// The terms `(seat, start, end)` one person holds, the seat and start year of a new one, and
    /// the year it must end by (`Some(i64::MAX)`: never) or `None` when it cannot start.
    fn check_free(
        held: &[(&str, i64, Option<i64>)],
        seat: &str,
        start: i64,
        at_once: usize,
        expect: Option<i64>,
    ) {
        let tenures: Vec<Tenure> = held
            .iter()
            .enumerate()
            .map(|(i, &(seat, start, end))| Tenure {
                id: i as i64 + 1,
                organisation: i as i64 + 1,
                person: 7,
                seat: seat.to_string(),
                start,
                end,
            })
            .collect();
        assert_eq!(
            free_until(&tenures, 7, seat, start, at_once),
            expect,
            "{held:?} {seat} {start}"
        );
        assert_eq!(
            free_until(&tenures, 8, seat, start, at_once),
            Some(i64::MAX),
            "another person"
        );
    }

    #[test]
    fn offices_of_one_person_respect_title_and_count() {
        let never = Some(i64::MAX);
        check_free(&[], "Captain", 1990, 1, never);
        // A term ending in a year does not overlap one starting in it.
        check_free(&[("Captain", 1980, Some(1990))], "Captain", 1990, 1, never);
        check_free(&[("Captain", 1980, Some(1991))], "Captain", 1990, 2, None);
        check_free(&[("Captain", 1980, None)], "Captain", 2050, 2, None);
        // Another title counts against the limit only.
        check_free(&[("Coach", 1980, Some(1995))], "Captain", 1990, 1, None);
        check_free(&[("Coach", 1980, Some(1995))], "Captain", 1990, 2, never);
        // A later term bounds the new one where it would break a rule.
        check_free(&[("Captain", 2000, None)], "Captain", 1990, 2, Some(2000));
        check_free(
            &[("Coach", 2000, Some(2010))],
            "Captain",
            1990,
            1,
            Some(2000),
        );
        check_free(&[("Coach", 2000, Some(2010))], "Captain", 1990, 2, never);
        check_free(
            &[
                ("Coach", 1995, Some(2010)),
                ("Dean", 2003, Some(2004)),
                ("Dean", 2005, None),
            ],
            "Captain",
            1990,
            2,
            Some(2003),
        );
    }

    /// Every generated world keeps its theme's limits on people, and the extras of its works,
    /// some drawn in proportion to another, stay in their ranges.
    #[test]
    fn worlds_keep_their_theme_limits() {
        let themes = theme::all().unwrap();
        for world_id in 0..40 {
            let w = generate_world(11, world_id, &themes);
            let limits = &w.theme.limits;
            let age = |person: i64, year: i64| year - w.person(person).birth_year;
            let within = |[lo, hi]: [i64; 2], age: i64| (lo..=hi).contains(&age);
            for o in &w.organisations {
                assert!(
                    within(limits.founder_age, age(o.founder, o.founded)),
                    "{}",
                    w.name
                );
            }
            for m in &w.memberships {
                assert!(
                    within(limits.member_age, age(m.person, m.joined)),
                    "{}",
                    w.name
                );
            }
            for t in &w.tenures {
                assert!(
                    within(limits.office_age[&t.seat], age(t.person, t.start)),
                    "{}",
                    w.name
                );
                let at_start = w.tenures.iter().filter(|u| {
                    u.person == t.person
                        && u.start <= t.start
                        && t.start < u.end.unwrap_or(i64::MAX)
                });
                assert!(
                    at_start.clone().count() <= limits.offices_at_once as usize,
                    "{}",
                    w.name
                );
                assert_eq!(
                    at_start.filter(|u| u.seat == t.seat).count(),
                    1,
                    "{}",
                    w.name
                );
            }
            for work in &w.works {
                for (extra, &value) in w.theme.work.extras.iter().zip(&work.extras) {
                    assert!((extra.min..=extra.max).contains(&value), "{}", w.name);
                }
            }
        }
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

    /// Censuses fit the row budget, count each settlement that stood by their year once, lie
    /// before the present, and mostly count fewer people the further back they lie.
    #[test]
    fn censuses_count_standing_settlements_within_the_row_budget() {
        let themes = theme::all().unwrap();
        let (mut with, mut pairs, mut grew) = (0, 0, 0);
        for id in 0..60 {
            let w = generate_world(11, id, &themes);
            assert!(
                w.n_rows() <= ROW_BOUNDS.1,
                "world {id}: {} rows",
                w.n_rows()
            );
            let years = w.census_years();
            if years.is_empty() {
                continue;
            }
            with += 1;
            assert!(years.len() >= 2, "world {id}: {years:?}");
            assert!(*years.last().unwrap() < w.present_year);
            for &year in &years {
                let counted: Vec<i64> = w
                    .censuses
                    .iter()
                    .filter(|c| c.year == year)
                    .map(|c| c.settlement)
                    .collect();
                let standing: Vec<i64> = w
                    .settlements
                    .iter()
                    .filter(|s| s.founded < year)
                    .map(|s| s.id)
                    .collect();
                assert_eq!(counted, standing, "world {id}, census {year}");
            }
            for s in &w.settlements {
                let counts: Vec<i64> = w
                    .censuses
                    .iter()
                    .filter(|c| c.settlement == s.id)
                    .map(|c| c.population)
                    .chain([s.population])
                    .collect();
                assert!(counts.iter().all(|&n| n > 0));
                for pair in counts.windows(2) {
                    pairs += 1;
                    grew += usize::from(pair[0] <= pair[1]);
                }
            }
        }
        assert!(
            (36..=57).contains(&with),
            "{with} of 60 worlds have censuses"
        );
        assert!(
            grew * 10 >= pairs * 9,
            "{grew} of {pairs} later counts are larger"
        );
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
            let mut sets = std::collections::BTreeSet::new();
            for _ in 0..100 {
                let g = draw_groups(&theme, &mut rng);
                let has = |name: &str| theme.groups.iter().any(|x| x == name);
                assert!(!g.events || has("events"), "{}", theme.id);
                assert!(!g.alliances || has("alliances"), "{}", theme.id);
                sets.insert((g.works, g.events, g.alliances));
            }
            // A theme with both groups gets all seven sets (14 schemas with censuses).
            assert_eq!(sets.len(), 7, "{}", theme.id);
        }
    }
}
