//! Frontier tasks: a person singled out by blurred clues, in the manner of BrowseComp (hard to
//! find, easy to verify, one answer).
//!
//! No clue names an entity. Each states a range of decades or a decade bound ("born before the
//! 1900s": in a world of 60 people a few decades hold fewer than [`MIN_HOLDERS`]), a round
//! bound on a count, a broader field of occupations or categories (the theme's `fields`, in
//! words no page title uses), or a relation to unnamed entities (a birthplace that is home to
//! an organisation in some field; an organisation belonged to that made a work in some decades,
//! whose years the works' articles and dated news stories state), so a search for the
//! question's words finds nothing specific. The constraints, checked for every question the
//! builder keeps:
//!
//! - every clue alone holds for at least [`MIN_HOLDERS`] people (the smallest candidate set a
//!   single clue reaches), and no clue holds for everyone;
//! - all clues together hold for exactly one person, and at least [`MIN_NEAR_MISSES`] others
//!   fail exactly one clue (near misses: an agent that stops early answers wrong);
//! - the cheapest plan of an agent that knows every page layout ([`cheapest_plan`]: lists name
//!   their rows and nothing else, the news dates the works) needs at least [`MIN_FIRST_CALLS`]
//!   calls when it stops at the first candidate that fits every clue, as research agents do
//!   (they open half the candidates on average), and so at least `FRONTIER_MIN_PLAN_CALLS`
//!   when it opens them all, and at most `FRONTIER_MAX_PLAN_CALLS` (long, but finishable).
//!   Questions that met only the second bound (35 calls) were answered by research agents in
//!   about 35 calls, within a budget of 40. The clues no list gives
//!   (birth and death years; no number is searchable) are chosen first, so the clues an agent
//!   can enumerate leave it many candidates. The plan may also search the candidates' names a
//!   few at a time ([`NAMES_PER_SEARCH`]): snippets hide years but show a person's occupation
//!   and whether a death is recorded, which research agents used to skip the living;
//! - the clues about the birthplace fit at least [`MIN_PLACES`] settlements together, and each
//!   clue about an organisation at least [`MIN_ORGS`] organisations: an agent narrows one level
//!   up first (places, organisations), so neither may be a handle;
//! - thresholds equal no value of their column in the world, so "more than" never hinges on
//!   strictness;
//! - the answer founded nothing and held no seat: lists of natives and members, and the news
//!   of who joined, name only such notable people (`Rows::notable` in `fabula-pages`), so no
//!   list names the answer and the plan reads candidates off partial lists only when the
//!   answer is on them.
//!
//! A name-all question ([`FRONTIER_SET_SIZE`]) is built the same way, its clues true of two to
//! four people, none of them notable, all to be named; a table ([`FRONTIER_TABLE_SIZE`]) of 15
//! to 40 (tens of rows, as WideSearch's), each tabulated with values read on their own and their
//! birthplace's pages. At most half of a table's people may be notable: the lists hand an agent
//! those, never the rest, so a plan reads the people's own pages (and a table of so many people
//! allows no clues that leave only people no list names).
//!
//! The query is one `SELECT` of the person's name with one condition per clue; `fabula check`
//! re-runs it and asks for exactly that one answer (two to four for a name-all question; a
//! table's query selects its columns, joined, under the same conditions).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::RangeInclusive;

use bit_set::BitSet;
use rand::RngExt;
use rand::seq::IndexedRandom;

use fabula_file::ColumnRole as C;
use fabula_file::Effort;
use fabula_file::TableRole::{self, Membership, Organisation, Person, Settlement, Tenure, Work};
use fabula_world::seed::WorldRng;
use fabula_world::theme::Field;

use crate::blurred::{self, Hint, Nouns};

use super::db::{Cell, Db, Query, lit};
use super::draft::Body;
use super::family::FRONTIER_TABLE_COLUMNS;
use super::{Answer, Builder};

use crate::difficulty::{
    FRONTIER_MAX_PLAN_CALLS as MAX_PLAN_CALLS, FRONTIER_MIN_CANDIDATES as MIN_HOLDERS,
    FRONTIER_MIN_FIRST_CALLS as MIN_FIRST_CALLS, FRONTIER_MIN_NEAR_MISSES as MIN_NEAR_MISSES,
};
/// The fewest and most clues a question gives.
const CLUES: (usize, usize) = (4, 7);
/// The largest share of people (in percent) one clue may hold for: a clue must narrow.
const MAX_SHARE: usize = 75;
/// The fewest settlements the clues about a birthplace may fit together, and the fewest
/// organisations a clue about an organisation may fit: no place or organisation is a handle
/// that narrows the candidates in a few calls (an agent narrows one level up first).
const MIN_PLACES: usize = 5;
const MIN_ORGS: usize = 5;

/// What blurred clues can test about one person.
struct Profile {
    birth_year: Option<i64>,
    died: Option<i64>,
    occupation: Option<String>,
    birthplace: Option<i64>,
    /// (membership row, year joined) of each membership.
    joined: Vec<(i64, i64)>,
    /// The organisations the person founded.
    founded: Vec<i64>,
    /// (link table, link row, organisation) of each organisation the person belonged to, as a
    /// member or as an office holder.
    belonged: Vec<(TableRole, i64, i64)>,
    /// The tenure rows of the offices the person held.
    offices: Vec<i64>,
    /// What the clues test, derived from the fields above once ([`People::derive`]).
    derived: Derived,
}

/// The facts about a person's birthplace and organisations that clues test, looked up once
/// per world rather than once per clue.
#[derive(Default)]
struct Derived {
    /// The present population and the founding year of the birthplace.
    population: Option<i64>,
    founded: Option<i64>,
    /// The categories of the organisations based in the birthplace ([`People::hosted`]).
    hosts: Vec<String>,
    /// The categories of the organisations the person founded.
    founded_categories: Vec<String>,
    /// The categories of the organisations the person belonged to.
    belonged_categories: Vec<String>,
    /// The largest member count of an organisation the person belonged to.
    most_members: Option<i64>,
    /// The years of the works made by the organisations the person belonged to.
    work_years: Vec<i64>,
}

/// What blurred clues can test about one organisation.
struct Org {
    category: Option<String>,
    members: Option<i64>,
    /// The settlement it is based in.
    home: Option<i64>,
    /// (work row, year) of each work it made.
    works: Vec<(i64, i64)>,
}

/// What blurred clues can test about settlements and organisations, read once per world.
pub(super) struct People {
    profiles: Vec<Profile>,
    population: BTreeMap<i64, i64>,
    founded: BTreeMap<i64, i64>,
    /// Settlement -> the categories of the organisations based there.
    hosts: BTreeMap<i64, BTreeSet<String>>,
    /// Organisation -> (category, member count, home).
    orgs: BTreeMap<i64, Org>,
    /// Clue -> its holders if a question may give it ([`People::usable`]). Never iterated;
    /// at most [`MAX_CACHED_HINTS`] entries.
    usable: RefCell<HashMap<Hint, Option<BitSet>>>,
    /// The values of the world's columns that bounds must avoid, read once.
    taken: Taken,
    /// The people whose death is recorded.
    dead: BitSet,
    /// The notable people: those who founded an organisation or held a seat. Natives and
    /// members lists name only them (`notable` sections of `articles.toml`, the pages' rule
    /// `Rows::notable`).
    notable: BitSet,
}

/// The values a clue's bound may not equal (so "more than" never hinges on strictness), per
/// column, for every person's clues: read once per world rather than once per draw.
struct Taken {
    /// Organisations' member counts.
    members: BTreeSet<i64>,
    /// The years people joined organisations.
    joined: BTreeSet<i64>,
    births: BTreeSet<i64>,
    deaths: BTreeSet<i64>,
    /// Settlements' present populations and founding years.
    populations: BTreeSet<i64>,
    founded: BTreeSet<i64>,
}

/// The most clues [`People::usable`] keeps.
const MAX_CACHED_HINTS: usize = 1 << 14;

impl People {
    fn read(db: &Db) -> People {
        let p = Person;
        let mut profiles: Vec<Profile> = db
            .ids(p)
            .into_iter()
            .map(|id| Profile {
                birth_year: db.int(p, id, C::BirthYear),
                died: db
                    .has(p, C::DeathYear)
                    .then(|| db.int(p, id, C::DeathYear))
                    .flatten(),
                occupation: db.text(p, id, C::Occupation),
                birthplace: db.int(p, id, C::Birthplace),
                joined: Vec::new(),
                founded: Vec::new(),
                belonged: Vec::new(),
                offices: Vec::new(),
                derived: Derived::default(),
            })
            .collect();
        let slot = |id: i64| usize::try_from(id - 1).ok();
        let mut orgs = BTreeMap::new();
        for org in db.ids(Organisation) {
            let members = db
                .has(Organisation, C::MemberCount)
                .then(|| db.int(Organisation, org, C::MemberCount))
                .flatten();
            let home = db.int(Organisation, org, C::Home);
            let category = db.text(Organisation, org, C::Category);
            orgs.insert(
                org,
                Org {
                    category,
                    members,
                    home,
                    works: Vec::new(),
                },
            );
            if let Some(i) = db.int(Organisation, org, C::Founder).and_then(slot) {
                profiles[i].founded.push(org);
            }
        }
        if db.has(Work, C::Organisation) && db.has(Work, C::Year) {
            for work in db.ids(Work) {
                let org = db.int(Work, work, C::Organisation);
                let year = db.int(Work, work, C::Year);
                if let (Some(org), Some(year)) = (org.and_then(|o| orgs.get_mut(&o)), year) {
                    org.works.push((work, year));
                }
            }
        }
        for link in [Membership, Tenure] {
            if !(db.has(link, C::Person) && db.has(link, C::Organisation)) {
                continue;
            }
            for row in db.ids(link) {
                let person = db.int(link, row, C::Person).and_then(slot);
                let org = db.int(link, row, C::Organisation);
                if let (Some(i), Some(org)) = (person, org) {
                    profiles[i].belonged.push((link, row, org));
                    if link == Tenure {
                        profiles[i].offices.push(row);
                    }
                    let joined = (link == Membership && db.has(link, C::Joined))
                        .then(|| db.int(link, row, C::Joined))
                        .flatten();
                    profiles[i].joined.extend(joined.map(|y| (row, y)));
                }
            }
        }
        let by_settlement = |column| {
            db.ids(Settlement)
                .into_iter()
                .filter_map(|s| Some((s, db.int(Settlement, s, column)?)))
                .collect()
        };
        let mut hosts: BTreeMap<i64, BTreeSet<String>> = BTreeMap::new();
        for org in orgs.values() {
            if let (Some(home), Some(category)) = (org.home, &org.category) {
                hosts.entry(home).or_default().insert(category.clone());
            }
        }
        let population: BTreeMap<i64, i64> = by_settlement(C::Population);
        let founded: BTreeMap<i64, i64> = by_settlement(C::Founded);
        let taken = Taken {
            members: orgs.values().filter_map(|o| o.members).collect(),
            joined: profiles
                .iter()
                .flat_map(|p| p.joined.iter().map(|j| j.1))
                .collect(),
            births: profiles.iter().filter_map(|p| p.birth_year).collect(),
            deaths: profiles.iter().filter_map(|p| p.died).collect(),
            populations: population.values().copied().collect(),
            founded: founded.values().copied().collect(),
        };
        let mut people = People {
            profiles: Vec::new(),
            population,
            founded,
            hosts,
            orgs,
            usable: RefCell::default(),
            taken,
            dead: (0..profiles.len())
                .filter(|&i| profiles[i].died.is_some())
                .collect(),
            notable: (0..profiles.len())
                .filter(|&i| !(profiles[i].founded.is_empty() && profiles[i].offices.is_empty()))
                .collect(),
        };
        for profile in &mut profiles {
            profile.derived = people.derive(profile);
        }
        people.profiles = profiles;
        people
    }

    /// What the clues test about a person, from the settlements and organisations read.
    fn derive(&self, person: &Profile) -> Derived {
        let place = person.birthplace;
        let categories = |orgs: &mut dyn Iterator<Item = i64>| -> Vec<String> {
            orgs.filter_map(|o| self.category(o).cloned()).collect()
        };
        let belonged = || person.belonged.iter().map(|b| b.2);
        Derived {
            population: place.and_then(|s| self.population.get(&s).copied()),
            founded: place.and_then(|s| self.founded.get(&s).copied()),
            hosts: place.map_or_else(Vec::new, |s| self.hosted(s).cloned().collect()),
            founded_categories: categories(&mut person.founded.iter().copied()),
            belonged_categories: categories(&mut belonged()),
            most_members: belonged().filter_map(|o| self.members(o)).max(),
            work_years: belonged()
                .filter_map(|o| self.orgs.get(&o))
                .flat_map(|o| o.works.iter().map(|w| w.1))
                .collect(),
        }
    }

    fn category(&self, org: i64) -> Option<&String> {
        self.orgs.get(&org).and_then(|o| o.category.as_ref())
    }

    fn members(&self, org: i64) -> Option<i64> {
        self.orgs.get(&org).and_then(|o| o.members)
    }

    /// A work (row) the organisation made in one of the decades.
    fn made_in(&self, org: i64, decades: &[i64]) -> Option<i64> {
        let works = self
            .orgs
            .get(&org)
            .map(|o| o.works.as_slice())
            .unwrap_or_default();
        works
            .iter()
            .find(|(_, year)| in_decades(*year, decades))
            .map(|(work, _)| *work)
    }

    /// The categories of the organisations based in a settlement.
    fn hosted(&self, settlement: i64) -> impl Iterator<Item = &String> {
        self.hosts.get(&settlement).into_iter().flatten()
    }

    /// The calls that list the organisations of some categories (each category's page, then
    /// each organisation's article), and the settlements those organisations are based in.
    fn in_categories(&self, set: &[String]) -> (usize, BTreeSet<Option<i64>>) {
        let members: Vec<&Org> = self
            .orgs
            .values()
            .filter(|o| o.category.as_ref().is_some_and(|c| set.contains(c)))
            .collect();
        let homes = members.iter().map(|o| o.home).collect();
        (set.len() + members.len(), homes)
    }

    /// The settlements a clue about a birthplace fits; `None` for any other clue.
    fn places(&self, hint: &Hint) -> Option<BTreeSet<i64>> {
        let settlements = self.population.keys().chain(self.founded.keys());
        let fits = |s: i64| match hint {
            Hint::BirthplaceOver(n) => self.population.get(&s).is_some_and(|p| p > n),
            Hint::BirthplaceUnder(n) => self.population.get(&s).is_some_and(|p| p < n),
            Hint::BirthplaceBefore(y) => self.founded.get(&s).is_some_and(|f| f < y),
            Hint::BirthplaceSince(y) => self.founded.get(&s).is_some_and(|f| f >= y),
            Hint::BirthplaceHosts(field) => self.hosted(s).any(|c| field.members.contains(c)),
            _ => false,
        };
        hint.birth_place()
            .then(|| settlements.copied().filter(|&s| fits(s)).collect())
    }

    /// How many organisations a clue about an organisation fits; `None` for any other clue.
    fn orgs_fitting(&self, hint: &Hint) -> Option<usize> {
        let in_field = |o: &Org, field: &Field| {
            o.category
                .as_ref()
                .is_some_and(|c| field.members.contains(c))
        };
        let fits = |o: &Org| match hint {
            Hint::Founded(field) | Hint::BelongedTo(field) => in_field(o, field),
            Hint::BelongedOver(n) => o.members.is_some_and(|m| m > *n),
            Hint::BelongedToMaker { decades, .. } => {
                o.works.iter().any(|w| in_decades(w.1, decades))
            }
            _ => false,
        };
        matches!(
            hint,
            Hint::Founded(_)
                | Hint::BelongedTo(_)
                | Hint::BelongedOver(_)
                | Hint::BelongedToMaker { .. }
        )
        .then(|| self.orgs.values().filter(|o| fits(o)).count())
    }

    /// The settlements that fit every clue about the birthplace among `hints`; `None` when
    /// none is about it.
    fn birthplaces(&self, hints: &[&Hint]) -> Option<BTreeSet<i64>> {
        hints
            .iter()
            .filter_map(|h| self.places(h))
            .reduce(|a, b| a.intersection(&b).copied().collect())
    }

    fn holds(person: &Profile, hint: &Hint) -> bool {
        let d = &person.derived;
        let any_in = |categories: &[String], field: &Field| {
            categories.iter().any(|c| field.members.contains(c))
        };
        match hint {
            Hint::BornIn(_) | Hint::BornBefore(_) | Hint::BornSince(_) => {
                person.birth_year.is_some_and(|y| hint.fits_year(y))
            }
            Hint::WorkedIn(field) => person
                .occupation
                .as_ref()
                .is_some_and(|o| field.members.contains(o)),
            Hint::BirthplaceOver(n) => d.population.is_some_and(|p| p > *n),
            Hint::BirthplaceUnder(n) => d.population.is_some_and(|p| p < *n),
            Hint::BirthplaceBefore(y) => d.founded.is_some_and(|f| f < *y),
            Hint::BirthplaceSince(y) => d.founded.is_some_and(|f| f >= *y),
            Hint::BirthplaceHosts(field) => any_in(&d.hosts, field),
            Hint::Founded(field) => any_in(&d.founded_categories, field),
            Hint::BelongedOver(n) => d.most_members.is_some_and(|m| m > *n),
            Hint::BelongedTo(field) => any_in(&d.belonged_categories, field),
            Hint::HeldOffice => !person.offices.is_empty(),
            Hint::DiedIn(_) | Hint::DiedBefore(_) | Hint::DiedSince(_) => {
                person.died.is_some_and(|y| hint.fits_year(y))
            }
            Hint::JoinedBefore(y) => person.joined.iter().any(|j| j.1 < *y),
            Hint::JoinedSince(y) => person.joined.iter().any(|j| j.1 >= *y),
            Hint::BelongedToMaker { decades, .. } => {
                d.work_years.iter().any(|&year| in_decades(year, decades))
            }
        }
    }

    /// The people (indices) a clue holds for.
    fn holders(&self, hint: &Hint) -> BitSet {
        let mut set = BitSet::with_capacity(self.profiles.len());
        for (i, person) in self.profiles.iter().enumerate() {
            if Self::holds(person, hint) {
                set.insert(i);
            }
        }
        set
    }

    /// The holders of a clue a question may give, `None` for a clue it may not: one that holds
    /// for fewer than [`MIN_HOLDERS`] people or more than [`MAX_SHARE`] percent of them, or
    /// that fits fewer than [`MIN_PLACES`] settlements or [`MIN_ORGS`] organisations. Kept per
    /// clue: the rounds of drafts draw the same clues again and again.
    fn usable(&self, hint: &Hint) -> Option<BitSet> {
        if let Some(known) = self.usable.borrow().get(hint) {
            return known.clone();
        }
        let n = self.profiles.len();
        let holders = self.holders(hint);
        let usable = (holders.len() >= MIN_HOLDERS
            && holders.len() * 100 <= n * MAX_SHARE
            && self.places(hint).is_none_or(|p| p.len() >= MIN_PLACES)
            && self.orgs_fitting(hint).is_none_or(|o| o >= MIN_ORGS))
        .then_some(holders);
        let mut cache = self.usable.borrow_mut();
        if cache.len() < MAX_CACHED_HINTS {
            cache.insert(hint.clone(), usable.clone());
        }
        usable
    }
}

impl Builder<'_> {
    /// Whether the world has every table and column the clues read.
    pub(super) fn can_frontier(&self) -> bool {
        let db = &self.db;
        [
            (Person, C::Occupation),
            (Person, C::Birthplace),
            (Person, C::BirthYear),
            (Organisation, C::Category),
            (Organisation, C::Home),
            (Organisation, C::Founder),
            (Settlement, C::Population),
            (Settlement, C::Founded),
        ]
        .iter()
        .all(|&(role, column)| db.has(role, column))
    }

    /// Describes person `x` by blurred clues meeting every constraint of the module docs, true
    /// of as many people as the question `asks` for, `x` among them; `None` when the clues the
    /// person allows do not.
    pub(super) fn frontier(&mut self, x: i64, asks: Asks) -> Option<Body> {
        let want = asks.people();
        let asked = match asks {
            Asks::One => &self.frontier_asked,
            Asks::All | Asks::Table => &self.frontier_set_asked,
        };
        if asked.contains(&x) && !self.frontier_again {
            return None;
        }
        let people = self.frontier.get_or_init(|| People::read(&self.db));
        let me_at = usize::try_from(x - 1).ok()?;
        // The answer is no founder or seat holder: natives and members lists, and the news of
        // who joined, name only those, so the answer is on no list (its near misses mostly not).
        if people.notable.contains(me_at) {
            return None;
        }
        let me = people.profiles.get(me_at)?;
        let theme = &self.world.theme;
        let n = people.profiles.len();
        let pool: Vec<(Hint, BitSet)> = hints_of(people, me, theme, &mut self.rng)
            .into_iter()
            .filter_map(|h| people.usable(&h).map(|holders| (h, holders)))
            .collect();
        let (chosen, answers) = choose(pool, n, me_at, &want, &mut self.rng)?;
        let hints: Vec<Hint> = chosen.iter().map(|(h, _)| h.clone()).collect();
        let sets: Vec<&BitSet> = chosen.iter().map(|(_, s)| s).collect();
        let all: Vec<&Hint> = hints.iter().collect();
        // Every answer is on no list, as `x` is; a table may have notable rows, at most half.
        let notable = answers.intersection(&people.notable).count();
        let allowed = if asks == Asks::Table {
            answers.len() / 2
        } else {
            0
        };
        if notable > allowed
            || near_misses(&sets, n) < MIN_NEAR_MISSES
            || people
                .birthplaces(&all)
                .is_some_and(|p| p.len() < MIN_PLACES)
            // A plan that opens every candidate costs at least what one that stops at the
            // first fit does, so this bound implies MIN_PLAN_CALLS (at most MIN_FIRST_CALLS).
            || cheapest_plan(
                people,
                &self.db,
                &hints,
                &sets,
                MIN_FIRST_CALLS,
                Stop::First,
            )
            .0
                < MIN_FIRST_CALLS
            // Long, but finishable: the plan that checks every candidate has a bound too (the
            // first plan found under it ends the search).
            || cheapest_plan(
                people,
                &self.db,
                &hints,
                &sets,
                MAX_PLAN_CALLS + 1,
                Stop::All,
            )
            .0
                > MAX_PLAN_CALLS
        {
            return None;
        }
        // In the order the question states them: the clues about the birth together.
        let ids: Vec<i64> = answers.iter().map(|i| i as i64 + 1).collect();
        let body = self.frontier_body(&ids, asks, &blurred::arrange(&hints))?;
        match asks {
            Asks::One => self.frontier_asked.insert(x),
            Asks::All | Asks::Table => {
                self.frontier_set_asked.extend(&ids);
                true
            }
        };
        Some(body)
    }

    /// What a frontier question's clues leave an agent that narrows one level up: the
    /// settlements its clues about a birthplace fit together (`None` when it has none), the
    /// fewest organisations one of its clues about an organisation fits (`None` likewise), and
    /// the calls of its cheapest plan ([`cheapest_plan`]).
    #[cfg(test)]
    pub(super) fn frontier_handles(
        &self,
        hints: &[Hint],
    ) -> (Option<usize>, Option<usize>, usize, usize) {
        let people = self.frontier.get_or_init(|| People::read(&self.db));
        let sets: Vec<BitSet> = hints.iter().map(|h| people.holders(h)).collect();
        let refs: Vec<&BitSet> = sets.iter().collect();
        let all: Vec<&Hint> = hints.iter().collect();
        (
            people.birthplaces(&all).map(|p| p.len()),
            hints.iter().filter_map(|h| people.orgs_fitting(h)).min(),
            cheapest_plan(people, &self.db, hints, &refs, usize::MAX, Stop::All).0,
            cheapest_plan(people, &self.db, hints, &refs, usize::MAX, Stop::First).0,
        )
    }

    /// The effort of a frontier question already built, its clues read back from its text: the
    /// exact calls of the cheapest plan ([`cheapest_plan`]) opening every candidate and stopping at
    /// the first fit, the smallest set one clue holds for, and the near misses. `None` for a
    /// question that is not a frontier one.
    pub(super) fn frontier_effort(&self, question: &str) -> Option<Effort> {
        let matched = crate::phrasings::match_question(question)?;
        let hints = blurred::parse(matched.slot("clues")?)?;
        let people = self.frontier.get_or_init(|| People::read(&self.db));
        let sets: Vec<BitSet> = hints.iter().map(|h| people.holders(h)).collect();
        let refs: Vec<&BitSet> = sets.iter().collect();
        let plan = |stop| cheapest_plan(people, &self.db, &hints, &refs, usize::MAX, stop);
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let (all, starts_above) = plan(Stop::All);
        Some(Effort {
            plan_calls: count(all),
            plan_calls_first_fit: count(plan(Stop::First).0),
            plan_starts_above: starts_above,
            candidates: count(sets.iter().map(BitSet::len).min()?),
            near_misses: count(near_misses(&refs, people.profiles.len())),
            candidates_after_two: after_two(&refs).map(count),
        })
    }

    /// The body of a frontier question about the people `ids`, answered as it `asks`: a name,
    /// a set of names, or a table of [`FRONTIER_TABLE_COLUMNS`] (the birthplace's population
    /// read on its own page). The query has one parenthesised condition per clue, so a reader
    /// can test the clues one by one; a table's selects its columns, joined.
    fn frontier_body(&self, ids: &[i64], asks: Asks, hints: &[Hint]) -> Option<Body> {
        let db = &self.db;
        let people = self.frontier.get()?;
        let mut cells = Vec::new();
        for &id in ids {
            let me = people.profiles.get(usize::try_from(id - 1).ok()?)?;
            for hint in hints {
                cells.extend(hint_cells(db, people, id, me, hint)?);
            }
        }
        let conditions: Vec<String> = hints.iter().map(|h| hint_sql(db, h)).collect();
        let condition = format!("({})", conditions.join(") AND ("));
        let names = || ids.iter().map(|&id| db.name(Person, id));
        let (answer, sql) = match asks {
            Asks::Table => {
                let columns = &FRONTIER_TABLE_COLUMNS;
                let mut rows = Vec::new();
                for &id in ids {
                    let mut row = Vec::new();
                    for path in columns {
                        let (value, stated) = db.follow(Person, id, path)?;
                        row.push(value);
                        cells.extend(stated);
                    }
                    rows.push(row);
                }
                rows.sort();
                let (columns_text, metrics) = self.headers_of(Person, columns)?;
                let mut query = Query::new(db, Person);
                for path in columns {
                    query.join_path(Person, path);
                }
                let select: Vec<String> = columns
                    .iter()
                    .map(|p| query.col(p.end(Person), p.column))
                    .collect();
                let answer = Answer::Table {
                    columns: columns_text,
                    metrics,
                    rows,
                };
                let sql = format!(
                    "SELECT {} {} WHERE {condition}",
                    select.join(", "),
                    query.from()
                );
                (answer, sql)
            }
            Asks::One | Asks::All => {
                cells.extend(ids.iter().map(|&id| db.cell(Person, id, C::Name)));
                let answer = if asks == Asks::One {
                    Answer::Text(names().next()?)
                } else {
                    let mut names: Vec<String> = names().collect();
                    names.sort();
                    Answer::List(names)
                };
                let sql = format!(
                    "SELECT p.{} FROM {} p WHERE {condition}",
                    db.column(Person, C::Name).name,
                    db.table(Person).name,
                );
                (answer, sql)
            }
        };
        let theme = &self.world.theme;
        let nouns = Nouns {
            settlement: &theme.settlement.singular,
            organisation: &theme.organisation.singular,
        };
        let text = blurred::write(hints, nouns);
        (blurred::parse(&text).as_deref() == Some(hints)).then(|| Body {
            slots: vec![("clues", text)],
            answer,
            cells,
            sql,
        })
    }
}

/// How many people a name-all frontier question names.
pub(super) const FRONTIER_SET_SIZE: RangeInclusive<usize> = 2..=4;
/// How many rows a frontier table has.
pub(super) const FRONTIER_TABLE_SIZE: RangeInclusive<usize> = 15..=40;

/// What a frontier question asks for about the people its clues fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Asks {
    /// The one person (kind `identify`).
    One,
    /// Every one of [`FRONTIER_SET_SIZE`] people, named (kind `aggregate`).
    All,
    /// Every one of [`FRONTIER_TABLE_SIZE`] people, tabulated (kind `table`).
    Table,
}

impl Asks {
    /// How many people the clues may fit.
    fn people(self) -> RangeInclusive<usize> {
        match self {
            Asks::One => 1..=1,
            Asks::All => FRONTIER_SET_SIZE,
            Asks::Table => FRONTIER_TABLE_SIZE,
        }
    }
}

/// Chooses clues until only `want` people are left, `me` among them: at each step one of the
/// two clues (of kinds not yet used) that leave the fewest people while leaving at least
/// `want`'s least, drawn, then further clues up to [`CLUES`]'s least; `None` when the pool
/// cannot narrow to `want` within [`CLUES`]. With the clues, the people they leave.
fn choose(
    mut pool: Vec<(Hint, BitSet)>,
    n: usize,
    me: usize,
    want: &RangeInclusive<usize>,
    rng: &mut WorldRng,
) -> Option<(Vec<(Hint, BitSet)>, BitSet)> {
    let mut left: BitSet = (0..n).collect();
    let mut chosen: Vec<(Hint, BitSet)> = Vec::new();
    let (least, most) = (*want.start(), *want.end());
    while chosen.len() < CLUES.1 && (left.len() > most || chosen.len() < CLUES.0) {
        let remaining = left.len();
        let mut ranked: Vec<(bool, usize, usize)> = pool
            .iter()
            .enumerate()
            .map(|(i, (hint, holders))| (listed(hint), left.intersection(holders).count(), i))
            .filter(|&(_, size, _)| size >= least && (size < remaining || remaining <= most))
            .collect();
        if ranked.is_empty() {
            return None;
        }
        ranked.sort_unstable();
        let pick = ranked[rng.random_range(0..ranked.len().min(2))].2;
        let (hint, holders) = pool.swap_remove(pick);
        pool.retain(|(h, _)| kind(h) != kind(&hint));
        left.intersect_with(&holders);
        chosen.push((hint, holders));
    }
    (want.contains(&left.len()) && left.contains(me)).then_some((chosen, left))
}

/// Whether some list names a clue's holders (a category, a settlement's natives, an
/// organisation's people): clues no list gives (birth and death years) narrow first, so that
/// the clues an agent can enumerate leave it many candidates.
fn listed(hint: &Hint) -> bool {
    !matches!(
        hint,
        Hint::BornIn(_)
            | Hint::BornBefore(_)
            | Hint::BornSince(_)
            | Hint::DiedIn(_)
            | Hint::DiedBefore(_)
            | Hint::DiedSince(_)
    )
}

/// A clue's kind: a question gives at most one clue of each.
fn kind(hint: &Hint) -> u8 {
    match hint {
        Hint::BornIn(_) | Hint::BornBefore(_) | Hint::BornSince(_) => 0,
        Hint::WorkedIn(_) => 1,
        Hint::BirthplaceOver(_) | Hint::BirthplaceUnder(_) => 2,
        Hint::BirthplaceBefore(_) | Hint::BirthplaceSince(_) => 3,
        Hint::BirthplaceHosts(_) => 4,
        Hint::Founded(_) => 5,
        Hint::BelongedOver(_) => 6,
        Hint::BelongedTo(_) => 7,
        Hint::HeldOffice => 8,
        Hint::DiedIn(_) | Hint::DiedBefore(_) | Hint::DiedSince(_) => 9,
        Hint::JoinedBefore(_) | Hint::JoinedSince(_) => 10,
        Hint::BelongedToMaker { .. } => 11,
    }
}

/// Whether a year lies in one of the decades (their first years).
fn in_decades(year: i64, decades: &[i64]) -> bool {
    decades.iter().any(|d| (*d..=d + 9).contains(&year))
}

/// The smallest candidate set any two clues leave together; `None` for fewer than two clues.
fn after_two(sets: &[&BitSet]) -> Option<usize> {
    let mut least = None;
    for (i, a) in sets.iter().enumerate() {
        for b in &sets[i + 1..] {
            let n = a.intersection(b).count();
            least = Some(least.map_or(n, |l: usize| l.min(n)));
        }
    }
    least
}

/// The people who fail exactly one clue.
fn near_misses(sets: &[&BitSet], n: usize) -> usize {
    (0..n)
        .filter(|&i| sets.iter().filter(|s| !s.contains(i)).count() == 1)
        .count()
}

/// The clues true of a person, several blurrings of each kind, drawn with the world's RNG.
fn hints_of(
    people: &People,
    me: &Profile,
    theme: &fabula_world::theme::Theme,
    rng: &mut WorldRng,
) -> Vec<Hint> {
    let mut out = Vec::new();
    for span in 2..=4_i64 {
        out.extend(
            me.birth_year
                .map(|y| Hint::BornIn(decades_around(y, span, rng))),
        );
        out.extend(me.died.map(|y| Hint::DiedIn(decades_around(y, span, rng))));
    }
    if let Some(job) = &me.occupation {
        let fields = theme.person.fields.iter();
        out.extend(
            fields
                .filter(|f| f.members.contains(job))
                .cloned()
                .map(Hint::WorkedIn),
        );
    }
    if let Some(place) = me.birthplace {
        birthplace_hints(people, place, theme, rng, &mut out);
    }
    let fields = &theme.organisation.fields;
    let mine = |orgs: &[i64]| -> Vec<&String> {
        orgs.iter().filter_map(|o| people.category(*o)).collect()
    };
    let belonged: Vec<i64> = me.belonged.iter().map(|b| b.2).collect();
    out.extend(fields_of(&mine(&me.founded), fields).map(Hint::Founded));
    out.extend(fields_of(&mine(&belonged), fields).map(Hint::BelongedTo));
    let most = me.belonged.iter().filter_map(|b| people.members(b.2)).max();
    for _ in 0..2 {
        // A bound under MIN_MEMBER_BOUND ("a band of more than 1 members") says next to nothing
        // and reads oddly; the draw is made either way, so the rest of the stream is unchanged.
        let bound = most
            .and_then(|m| round_bound(m, true, &people.taken.members, rng))
            .filter(|&b| b >= MIN_MEMBER_BOUND);
        out.extend(bound.map(Hint::BelongedOver));
    }
    if !me.offices.is_empty() {
        out.push(Hint::HeldOffice);
    }
    let made: Vec<i64> = belonged
        .iter()
        .flat_map(|o| people.orgs.get(o).into_iter().flat_map(|o| &o.works))
        .map(|w| w.1)
        .collect();
    if let (Some(&year), Some(verb)) = (made.choose(rng), &theme.work.verb) {
        for span in 2..=3_i64 {
            out.push(Hint::BelongedToMaker {
                verb: verb.clone(),
                work: theme.work.singular.clone(),
                decades: decades_around(year, span, rng),
            });
        }
    }
    if let Some(&(_, joined)) = me.joined.choose(rng) {
        let bounds = [Hint::JoinedBefore, Hint::JoinedSince];
        out.extend(decade_hints(joined, &people.taken.joined, bounds, rng));
    }
    // Decade bounds on birth and death years: in a small world a few decades hold too few.
    if let Some(born) = me.birth_year {
        let bounds = [Hint::BornBefore, Hint::BornSince];
        out.extend(decade_hints(born, &people.taken.births, bounds, rng));
    }
    if let Some(died) = me.died {
        let bounds = [Hint::DiedBefore, Hint::DiedSince];
        out.extend(decade_hints(died, &people.taken.deaths, bounds, rng));
    }
    out
}

/// Up to three clues that a year lies before a decade (the first of `bounds`) or in it or
/// later (the second), drawn as [`decade_bounds`] draws them.
fn decade_hints(
    year: i64,
    taken: &BTreeSet<i64>,
    bounds: [fn(i64) -> Hint; 2],
    rng: &mut WorldRng,
) -> impl Iterator<Item = Hint> {
    let [before, since] = bounds;
    decade_bounds(year, taken, rng)
        .into_iter()
        .map(move |(is_before, d)| if is_before { before(d) } else { since(d) })
}

/// `span` consecutive decades, one of which holds `year`, drawn.
fn decades_around(year: i64, span: i64, rng: &mut WorldRng) -> Vec<i64> {
    let first = year.div_euclid(10) * 10 - 10 * rng.random_range(0..span);
    (0..span).map(|i| first + 10 * i).collect()
}

/// Up to three decade bounds a year lies before (`true`) or at or after (`false`), drawn, none
/// equal to a value of `taken`.
fn decade_bounds(year: i64, taken: &BTreeSet<i64>, rng: &mut WorldRng) -> Vec<(bool, i64)> {
    let decade = year.div_euclid(10) * 10;
    let mut bounds = Vec::new();
    for _ in 0..3 {
        let before = rng.random_bool(0.5);
        let bound = if before {
            decade + 10 * rng.random_range(1..=8_i64)
        } else {
            decade - 10 * rng.random_range(0..=6_i64)
        };
        if !taken.contains(&bound) {
            bounds.push((before, bound));
        }
    }
    bounds
}

/// The clues about a person's birthplace: its present population, its founding and the
/// categories of the organisations based there.
fn birthplace_hints(
    people: &People,
    place: i64,
    theme: &fabula_world::theme::Theme,
    rng: &mut WorldRng,
    out: &mut Vec<Hint>,
) {
    let populations = &people.taken.populations;
    if let Some(&pop) = people.population.get(&place) {
        for over in [true, false, true, false] {
            let bound = round_bound(pop, over, populations, rng);
            out.extend(bound.map(|b| {
                if over {
                    Hint::BirthplaceOver(b)
                } else {
                    Hint::BirthplaceUnder(b)
                }
            }));
        }
    }
    if let Some(&founded) = people.founded.get(&place) {
        let years = &people.taken.founded;
        let bounds = [Hint::BirthplaceBefore, Hint::BirthplaceSince];
        out.extend(decade_hints(founded, years, bounds, rng));
    }
    let hosted: Vec<&String> = people.hosted(place).collect();
    let fields = fields_of(&hosted, &theme.organisation.fields);
    out.extend(fields.map(Hint::BirthplaceHosts));
}

/// The fields that cover at least one of `mine`, in the theme's order.
fn fields_of<'a>(mine: &'a [&String], fields: &'a [Field]) -> impl Iterator<Item = Field> + 'a {
    fields
        .iter()
        .filter(|f| mine.iter().any(|m| f.members.contains(m)))
        .cloned()
}

/// The least member count a clue may bound: "more than 1 members" says little and reads oddly.
const MIN_MEMBER_BOUND: i64 = 2;

/// A round bound below (`over`) or above a value, within a factor of 4 of it, that equals no
/// value of `taken`; `None` when there is none.
fn round_bound(value: i64, over: bool, taken: &BTreeSet<i64>, rng: &mut WorldRng) -> Option<i64> {
    const MANTISSAS: [i64; 9] = [10, 15, 20, 25, 30, 40, 50, 60, 75];
    let mut bounds = Vec::new();
    let mut scale = 1_i64;
    while scale <= 10_000_000 {
        for m in MANTISSAS {
            let bound = m * scale / 10;
            let near = if over {
                bound < value && bound * 4 >= value
            } else {
                bound > value && bound <= value * 4
            };
            if bound > 0 && near && !taken.contains(&bound) {
                bounds.push(bound);
            }
        }
        scale *= 10;
    }
    bounds.dedup();
    bounds.choose(rng).copied()
}

/// The cells that state a clue of person `x`; `None` when one is missing.
fn hint_cells(db: &Db, people: &People, x: i64, me: &Profile, hint: &Hint) -> Option<Vec<Cell>> {
    let (p, o, s) = (Person, Organisation, Settlement);
    let place = me.birthplace;
    let birthplace =
        |column| place.map(|id| vec![db.cell(p, x, C::Birthplace), db.cell(s, id, column)]);
    let org_in = |orgs: &[i64], field: &Field| {
        orgs.iter().copied().find(|&org| {
            people
                .category(org)
                .is_some_and(|c| field.members.contains(c))
        })
    };
    let link_cells = |(link, row, org): (TableRole, i64, i64), column| {
        vec![
            db.cell(link, row, C::Person),
            db.cell(link, row, C::Organisation),
            db.cell(o, org, column),
        ]
    };
    match hint {
        Hint::BornIn(_) | Hint::BornBefore(_) | Hint::BornSince(_) => {
            Some(vec![db.cell(p, x, C::BirthYear)])
        }
        Hint::DiedIn(_) | Hint::DiedBefore(_) | Hint::DiedSince(_) => {
            Some(vec![db.cell(p, x, C::DeathYear)])
        }
        Hint::JoinedBefore(d) | Hint::JoinedSince(d) => {
            let before = matches!(hint, Hint::JoinedBefore(_));
            let &(row, _) = me.joined.iter().find(|j| (j.1 < *d) == before)?;
            Some(vec![
                db.cell(Membership, row, C::Person),
                db.cell(Membership, row, C::Organisation),
                db.cell(Membership, row, C::Joined),
            ])
        }
        Hint::WorkedIn(_) => Some(vec![db.cell(p, x, C::Occupation)]),
        Hint::BirthplaceOver(_) | Hint::BirthplaceUnder(_) => birthplace(C::Population),
        Hint::BirthplaceBefore(_) | Hint::BirthplaceSince(_) => birthplace(C::Founded),
        Hint::BirthplaceHosts(field) => {
            let based: Vec<i64> = people
                .orgs
                .iter()
                .filter(|(_, o)| o.home == place)
                .map(|(id, _)| *id)
                .collect();
            let org = org_in(&based, field)?;
            Some(vec![
                db.cell(p, x, C::Birthplace),
                db.cell(o, org, C::Home),
                db.cell(o, org, C::Category),
            ])
        }
        Hint::Founded(field) => {
            let org = org_in(&me.founded, field)?;
            Some(vec![
                db.cell(o, org, C::Founder),
                db.cell(o, org, C::Category),
            ])
        }
        Hint::BelongedOver(n) => {
            let b = me
                .belonged
                .iter()
                .find(|b| people.members(b.2).is_some_and(|m| m > *n))?;
            Some(link_cells(*b, C::MemberCount))
        }
        Hint::BelongedTo(field) => {
            let b = me.belonged.iter().find(|b| {
                people
                    .category(b.2)
                    .is_some_and(|c| field.members.contains(c))
            })?;
            Some(link_cells(*b, C::Category))
        }
        Hint::HeldOffice => {
            let row = *me.offices.first()?;
            Some(vec![
                db.cell(Tenure, row, C::Person),
                db.cell(Tenure, row, C::Seat),
            ])
        }
        Hint::BelongedToMaker { decades, .. } => {
            let ((link, row, _), work) = me
                .belonged
                .iter()
                .find_map(|b| Some((*b, people.made_in(b.2, decades)?)))?;
            Some(vec![
                db.cell(link, row, C::Person),
                db.cell(link, row, C::Organisation),
                db.cell(Work, work, C::Organisation),
                db.cell(Work, work, C::Year),
            ])
        }
    }
}

/// The condition of a clue on the person table, aliased `p`.
fn hint_sql(db: &Db, hint: &Hint) -> String {
    let table = |role: TableRole| db.table(role).name.clone();
    let col = |role: TableRole, column: C| db.column(role, column).name.clone();
    let (p, o, s) = (Person, Organisation, Settlement);
    let list = |items: &[String]| {
        let quoted: Vec<String> = items.iter().map(|i| lit(i)).collect();
        format!("({})", quoted.join(", "))
    };
    let birthplace_where = |condition: String| {
        format!(
            "p.{} IN (SELECT s.id FROM {} s WHERE s.{condition})",
            col(p, C::Birthplace),
            table(s)
        )
    };
    let belonged = |condition: String| {
        let links = [Membership, Tenure]
            .into_iter()
            .filter(|&link| db.has(link, C::Person) && db.has(link, C::Organisation));
        let exists: Vec<String> = links
            .map(|link| {
                format!(
                    "EXISTS (SELECT 1 FROM {} m JOIN {} o ON o.id = m.{} WHERE m.{} = p.id AND o.{condition})",
                    table(link),
                    table(o),
                    col(link, C::Organisation),
                    col(link, C::Person),
                )
            })
            .collect();
        format!("({})", exists.join(" OR "))
    };
    let (born, died) = (col(p, C::BirthYear), col(p, C::DeathYear));
    match hint {
        Hint::BornIn(decades) | Hint::DiedIn(decades) => {
            let column = if matches!(hint, Hint::BornIn(_)) {
                born
            } else {
                died
            };
            let first = decades.first().copied().unwrap_or_default();
            let last = decades.last().copied().unwrap_or_default() + 9;
            format!("p.{column} BETWEEN {first} AND {last}")
        }
        Hint::BornBefore(d) => format!("p.{born} < {d}"),
        Hint::BornSince(d) => format!("p.{born} >= {d}"),
        Hint::DiedBefore(d) => format!("p.{died} < {d}"),
        Hint::DiedSince(d) => format!("p.{died} >= {d}"),
        Hint::JoinedBefore(d) | Hint::JoinedSince(d) => {
            let op = if matches!(hint, Hint::JoinedBefore(_)) {
                "<"
            } else {
                ">="
            };
            format!(
                "EXISTS (SELECT 1 FROM {} m WHERE m.{} = p.id AND m.{} {op} {d})",
                table(Membership),
                col(Membership, C::Person),
                col(Membership, C::Joined)
            )
        }
        Hint::WorkedIn(field) => format!("p.{} IN {}", col(p, C::Occupation), list(&field.members)),
        Hint::BirthplaceOver(n) => birthplace_where(format!("{} > {n}", col(s, C::Population))),
        Hint::BirthplaceUnder(n) => birthplace_where(format!("{} < {n}", col(s, C::Population))),
        Hint::BirthplaceBefore(d) => birthplace_where(format!("{} < {d}", col(s, C::Founded))),
        Hint::BirthplaceSince(d) => birthplace_where(format!("{} >= {d}", col(s, C::Founded))),
        Hint::BirthplaceHosts(field) => format!(
            "p.{} IN (SELECT o.{} FROM {} o WHERE o.{} IN {})",
            col(p, C::Birthplace),
            col(o, C::Home),
            table(o),
            col(o, C::Category),
            list(&field.members)
        ),
        Hint::Founded(field) => format!(
            "EXISTS (SELECT 1 FROM {} o WHERE o.{} = p.id AND o.{} IN {})",
            table(o),
            col(o, C::Founder),
            col(o, C::Category),
            list(&field.members)
        ),
        Hint::BelongedOver(n) => belonged(format!("{} > {n}", col(o, C::MemberCount))),
        Hint::BelongedTo(field) => belonged(format!(
            "{} IN {}",
            col(o, C::Category),
            list(&field.members)
        )),
        Hint::HeldOffice => format!(
            "EXISTS (SELECT 1 FROM {} t WHERE t.{} = p.id)",
            table(Tenure),
            col(Tenure, C::Person)
        ),
        Hint::BelongedToMaker { decades, .. } => {
            let first = decades.first().copied().unwrap_or_default();
            let last = decades.last().copied().unwrap_or_default() + 9;
            belonged(format!(
                "id IN (SELECT w.{} FROM {} w WHERE w.{} BETWEEN {first} AND {last})",
                col(Work, C::Organisation),
                table(Work),
                col(Work, C::Year)
            ))
        }
    }
}

/// The rows a list or category page shows (`fabula_pages`'s lists go on over further pages).
const PAGE_ROWS: usize = 25;
/// The results a search page shows.
const SEARCH_PAGE: usize = 10;

/// The calls of the cheapest plan that finds the answer with certainty, for an agent that
/// knows every page layout. Lists and category pages name their rows and nothing else, 25 a
/// page, so an attribute is read on a row's own article. A plan either pages through the list
/// of people, or enumerates the holders of some clues from the other side (the category pages
/// of occupations or of organisations, the articles of every settlement, which list the people
/// born there and the organisations based there, the articles and people pages of
/// organisations), then opens the article of every candidate left, and the pages the other
/// clues need: each distinct birthplace's article, the category pages of a clue's categories
/// once, each distinct organisation's article for a member count. The cheapest over every
/// choice of clues to enumerate, or `cap` when none is cheaper: a choice whose enumeration and
/// candidates already cost the cheapest so far (or `cap`) is not verified further.
///
/// With [`Stop::First`] the plan is the one research agents play: they open the candidates
/// left one by one and stop at the first that fits every clue, so on average they open half
/// of them (and half of the pages their other clues need) before the answer.
///
/// A finite `cap` is a bound the caller only compares with: the first plan found below it is
/// returned at once. `usize::MAX` gives the cheapest plan exactly.
///
/// With the calls, whether that plan starts above the person: it enumerates some clue's
/// holders from the settlements, organisations, categories or dated news rather than paging
/// through the list of people (`false` when no plan is cheaper than `cap`).
fn cheapest_plan(
    people: &People,
    db: &Db,
    hints: &[Hint],
    sets: &[&BitSet],
    cap: usize,
    stop: Stop,
) -> (usize, bool) {
    let n = people.profiles.len();
    // The calls to enumerate each clue's holders, counted once for every choice below.
    let enumeration: Vec<Option<usize>> = hints
        .iter()
        .map(|h| enumeration_calls(people, db, h))
        .collect();
    let side: Vec<usize> = (0..hints.len())
        .filter(|&i| enumeration[i].is_some())
        .collect();
    // The settlements each clue about the birthplace fits, also read once.
    let place_sets: Vec<Option<BTreeSet<i64>>> = hints.iter().map(|h| people.places(h)).collect();
    // The one person every clue holds for: a plan that reads a partial list finds only
    // notable people there, so it finds no one else.
    let answer = sets.iter().skip(1).fold(
        sets.first().map_or_else(BitSet::new, |s| (*s).clone()),
        |mut all, s| {
            all.intersect_with(s);
            all
        },
    );
    let mut best = cap;
    let mut above = false;
    for mask in 0..(1_u32 << side.len()) {
        let enumerated: Vec<usize> = side
            .iter()
            .enumerate()
            .filter(|(bit, _)| mask & (1 << bit) != 0)
            .map(|(_, &i)| i)
            .collect();
        let mut candidates: BitSet = (0..n).collect();
        let mut calls = if enumerated.is_empty() { pages(n) } else { 0 };
        let mut places = Vec::new();
        let mut fit: Option<BTreeSet<i64>> = None;
        for &i in &enumerated {
            candidates.intersect_with(sets[i]);
            if let Some(set) = &place_sets[i] {
                places.push(&hints[i]);
                fit = Some(match fit {
                    Some(f) => f.intersection(set).copied().collect(),
                    None => set.clone(),
                });
            } else {
                calls += enumeration[i].unwrap_or(usize::MAX / 4);
            }
        }
        // Natives and members lists name notable people only: a plan that reads them never
        // meets anyone else, so it finds the answer only when the answer is notable.
        if enumerated.iter().any(|&i| partial(&hints[i])) {
            candidates.intersect_with(&people.notable);
            if !answer.is_subset(&candidates) {
                continue;
            }
        }
        // The clues about the birthplace narrow the settlements first, together.
        if let Some(fit) = fit {
            calls += birthplace_calls(people, db, &places, fit.len());
        }
        let rest: Vec<usize> = (0..hints.len())
            .filter(|i| !enumerated.contains(i))
            .collect();
        // Either open every candidate left, or first search their names a few at a time: the
        // snippets show each one's occupation and whether they died (not when).
        let glanced = glance(hints, sets, &rest, &candidates, &people.dead);
        let glance_calls = glanced
            .as_ref()
            .map(|g| candidates.len().div_ceil(NAMES_PER_SEARCH) + stop.share(g.len()));
        let open_calls = stop.share(candidates.len());
        let (calls_left, candidates) = match (glance_calls, glanced) {
            (Some(c), Some(g)) if c < open_calls => (c, g),
            _ => (open_calls, candidates),
        };
        calls += calls_left;
        if calls >= best {
            continue;
        }
        let rest: Vec<&Hint> = rest.iter().map(|&i| &hints[i]).collect();
        calls += stop.share(verification_calls(people, &rest, &candidates));
        if calls < best {
            best = calls;
            above = !enumerated.is_empty();
        }
        if best < cap && cap != usize::MAX {
            // Below the bound the builder asks about: it fails, however much cheaper.
            return (best, above);
        }
    }
    (best, above)
}

/// The candidate names a search can hold so that each one's article still shows in its
/// results (ten a page): research agents searched several names at once to read the snippets.
const NAMES_PER_SEARCH: usize = 5;

/// The candidates a search for their names leaves: a snippet shows a person's occupation and
/// whether a death is recorded (not its year), so the clues `rest` (indexes into `hints`) about
/// the field of work or a death drop those who fail them (`dead`: whose death is recorded).
/// `None` when no such clue is left to test.
fn glance(
    hints: &[Hint],
    sets: &[&BitSet],
    rest: &[usize],
    candidates: &BitSet,
    dead: &BitSet,
) -> Option<BitSet> {
    let mut left = candidates.clone();
    let mut any = false;
    for &i in rest {
        match &hints[i] {
            Hint::WorkedIn(_) => left.intersect_with(sets[i]),
            Hint::DiedIn(_) | Hint::DiedBefore(_) | Hint::DiedSince(_) => {
                left.intersect_with(dead);
            }
            _ => continue,
        }
        any = true;
    }
    any.then_some(left)
}

/// Where a plan stops opening candidates ([`cheapest_plan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// After every candidate: the answer is certain (and one only). The builder bounds
    /// [`Stop::First`] only, which bounds this too; both are stored as the task's effort.
    All,
    /// At the first candidate that fits, on average halfway through them.
    First,
}

impl Stop {
    /// The calls of opening `calls` pages' worth of candidates under this rule.
    fn share(self, calls: usize) -> usize {
        match self {
            Stop::All => calls,
            Stop::First => calls.div_ceil(2),
        }
    }
}

/// Whether the lists that name a clue's holders are partial (natives and members lists name
/// notable people only): the settlements' natives, the organisations' members. Office
/// holders, founders and occupations are listed in full.
fn partial(hint: &Hint) -> bool {
    matches!(
        hint,
        Hint::BirthplaceOver(_)
            | Hint::BirthplaceUnder(_)
            | Hint::BirthplaceBefore(_)
            | Hint::BirthplaceSince(_)
            | Hint::BirthplaceHosts(_)
            | Hint::BelongedOver(_)
            | Hint::BelongedTo(_)
            | Hint::BelongedToMaker { .. }
            | Hint::JoinedBefore(_)
            | Hint::JoinedSince(_)
    )
}

/// The pages a list of `rows` rows takes.
fn pages(rows: usize) -> usize {
    rows.div_ceil(PAGE_ROWS).max(1)
}

/// The calls that list every holder of a clue from the side of the settlements, occupations or
/// organisations it is about; `None` for a clue no page lists its holders by (birth years).
fn enumeration_calls(people: &People, db: &Db, hint: &Hint) -> Option<usize> {
    let settlements = people.population.len().max(people.founded.len());
    let orgs = db.ids(Organisation).len();
    Some(match hint {
        // The clues [`listed`] says no list gives.
        Hint::BornIn(_)
        | Hint::BornBefore(_)
        | Hint::BornSince(_)
        | Hint::DiedIn(_)
        | Hint::DiedBefore(_)
        | Hint::DiedSince(_) => return None,
        // Every organisation's people page lists its members with the years they joined.
        Hint::JoinedBefore(_) | Hint::JoinedSince(_) => pages(orgs) + orgs,
        Hint::WorkedIn(field) => field
            .members
            .iter()
            .map(|j| {
                let holders = people
                    .profiles
                    .iter()
                    .filter(|p| p.occupation.as_ref() == Some(j))
                    .count();
                pages(holders)
            })
            .sum(),
        // Every settlement's article: its population, founding and natives.
        Hint::BirthplaceOver(_)
        | Hint::BirthplaceUnder(_)
        | Hint::BirthplaceBefore(_)
        | Hint::BirthplaceSince(_) => pages(settlements) + settlements,
        Hint::BirthplaceHosts(field) => {
            let (calls, homes) = people.in_categories(&field.members);
            calls + homes.len()
        }
        Hint::Founded(field) => people.in_categories(&field.members).0,
        // Members are listed on each organisation's people page, after its article.
        Hint::BelongedTo(field) => 2 * people.in_categories(&field.members).0 - field.members.len(),
        Hint::BelongedOver(_) | Hint::HeldOffice => pages(orgs) + orgs,
        // The news tells when each work was made (a story per work, dated, its title naming
        // the work and not its maker): a search pages through them, ten a page, each work of
        // those decades is opened for its maker, and each maker's people page gives its
        // members. Research agents took the work's year from the story's date.
        Hint::BelongedToMaker { decades, .. } => {
            let years = || {
                people
                    .orgs
                    .values()
                    .flat_map(|o| o.works.iter().map(|w| w.1))
            };
            let made = years().filter(|&y| in_decades(y, decades)).count();
            let makers = people
                .orgs
                .keys()
                .filter(|&&o| people.made_in(o, decades).is_some())
                .count();
            years().count().div_ceil(SEARCH_PAGE).max(1) + made + makers
        }
    })
}

/// The calls that list the people born in the `fit` settlements every clue of `places` (clues
/// about a birthplace) fits, narrowing one level up: a census report gives every settlement's
/// population in one page, the category pages of a field's categories and the articles of
/// their organisations give the settlements that host them, and a founding year is read on a
/// settlement's article, so that clue has every article opened. Then the article of each
/// settlement left lists the people born there.
fn birthplace_calls(people: &People, db: &Db, places: &[&Hint], fit: usize) -> usize {
    let settlements = people.population.len().max(people.founded.len());
    let census = db.has_table(TableRole::Census);
    let population = places
        .iter()
        .any(|h| matches!(h, Hint::BirthplaceOver(_) | Hint::BirthplaceUnder(_)));
    let founding = places
        .iter()
        .any(|h| matches!(h, Hint::BirthplaceBefore(_) | Hint::BirthplaceSince(_)));
    let open_all = founding || (population && !census);
    let mut calls = 0;
    for hint in places {
        if let Hint::BirthplaceHosts(field) = hint {
            let (pages, _) = people.in_categories(&field.members);
            // With every article open, a settlement's organisations are named there and only
            // the category pages are read; else each organisation's article too.
            calls += if open_all { field.members.len() } else { pages };
        }
    }
    if open_all {
        calls + pages(settlements) + settlements
    } else {
        calls + usize::from(population && census) + fit
    }
}

/// The calls beyond each candidate's article that test the clues not enumerated.
fn verification_calls(people: &People, rest: &[&Hint], candidates: &BitSet) -> usize {
    let profiles = || candidates.iter().map(|i| &people.profiles[i]);
    let mut calls = 0;
    let about_birthplace = rest.iter().any(|h| {
        matches!(
            h,
            Hint::BirthplaceOver(_)
                | Hint::BirthplaceUnder(_)
                | Hint::BirthplaceBefore(_)
                | Hint::BirthplaceSince(_)
                | Hint::BirthplaceHosts(_)
        )
    });
    if about_birthplace {
        let places: BTreeSet<i64> = profiles().filter_map(|p| p.birthplace).collect();
        calls += places.len();
    }
    let mut categories: BTreeSet<&String> = BTreeSet::new();
    for hint in rest {
        if let Hint::Founded(field) | Hint::BelongedTo(field) | Hint::BirthplaceHosts(field) = hint
        {
            categories.extend(field.members.iter());
        }
    }
    calls += categories.len();
    let orgs: BTreeSet<i64> = profiles()
        .flat_map(|p| p.belonged.iter().map(|b| b.2))
        .collect();
    let maker = rest
        .iter()
        .any(|h| matches!(h, Hint::BelongedToMaker { .. }));
    if maker || rest.iter().any(|h| matches!(h, Hint::BelongedOver(_))) {
        calls += orgs.len();
    }
    if maker {
        // Each of those organisations' works, whose articles give their years.
        calls += orgs
            .iter()
            .filter_map(|o| people.orgs.get(o))
            .map(|o| o.works.len())
            .sum::<usize>();
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_fail_exactly_one_clue() {
        let a: BitSet = [0, 1, 2, 3].into_iter().collect();
        let b: BitSet = [0, 1, 4].into_iter().collect();
        let c: BitSet = [0, 2, 4, 5].into_iter().collect();
        // 0 fits all; 1 fails c; 2 fails b; 3 fails b and c; 4 fails a; 5 fails a and b.
        assert_eq!(near_misses(&[&a, &b, &c], 6), 3);
    }

    #[test]
    fn clues_single_out_one_person_one_of_each_kind() {
        let set = |ids: &[usize]| ids.iter().copied().collect::<BitSet>();
        let pool = vec![
            (Hint::BornIn(vec![2140]), set(&[0, 1, 2, 3])),
            (Hint::DiedIn(vec![2200]), set(&[0, 1, 4, 5])),
            (Hint::HeldOffice, set(&[0, 2, 4])),
            (Hint::BirthplaceOver(100), set(&[0, 3, 5])),
            (Hint::BirthplaceUnder(900), set(&[0, 1, 2, 3, 4])),
        ];
        let mut rng = fabula_world::seed::rng(1, 1, "test");
        for _ in 0..20 {
            let (chosen, answers) =
                choose(pool.clone(), 6, 0, &(1..=1), &mut rng).expect("clues that single 0 out");
            let mut left: BitSet = (0..6).collect();
            for (_, holders) in &chosen {
                left.intersect_with(holders);
            }
            assert_eq!(left, set(&[0]));
            assert_eq!(answers, left);
            assert!(chosen.len() >= CLUES.0, "{chosen:?}");
            let kinds: BTreeSet<u8> = chosen.iter().map(|(h, _)| kind(h)).collect();
            assert_eq!(
                kinds.len(),
                chosen.len(),
                "one clue of each kind: {chosen:?}"
            );
        }
        // Nothing singles out a person whom no clue narrows to.
        assert!(choose(pool[..2].to_vec(), 6, 0, &(1..=1), &mut rng).is_none());
    }

    #[test]
    fn clues_for_a_name_all_question_leave_two_to_four_with_the_person() {
        let set = |ids: &[usize]| ids.iter().copied().collect::<BitSet>();
        let pool = vec![
            (Hint::BornIn(vec![2140]), set(&[0, 1, 2, 3, 6, 7])),
            (Hint::DiedIn(vec![2200]), set(&[0, 1, 4, 5, 6])),
            (Hint::HeldOffice, set(&[0, 1, 2, 4, 6])),
            (Hint::BirthplaceOver(100), set(&[0, 1, 3, 5, 6, 7])),
            (Hint::BirthplaceUnder(900), set(&[0, 1, 2, 3, 4, 6])),
        ];
        let mut rng = fabula_world::seed::rng(1, 1, "test");
        for _ in 0..20 {
            let (chosen, answers) = choose(pool.clone(), 8, 0, &FRONTIER_SET_SIZE, &mut rng)
                .expect("clues that leave a few");
            assert!(FRONTIER_SET_SIZE.contains(&answers.len()), "{answers:?}");
            assert!(answers.contains(0));
            assert!(chosen.len() >= CLUES.0, "{chosen:?}");
            for (_, holders) in &chosen {
                assert!(answers.is_subset(holders));
            }
        }
    }

    #[test]
    fn a_glance_at_snippets_drops_the_living_and_other_trades() {
        let set = |ids: &[usize]| ids.iter().copied().collect::<BitSet>();
        let field = Field {
            phrase: "in a trade".into(),
            members: vec!["smith".into()],
        };
        let hints = [
            Hint::BornIn(vec![2140]),
            Hint::DiedIn(vec![2200]),
            Hint::WorkedIn(field),
        ];
        let (born, died, worked) = (set(&[0, 1]), set(&[0, 4]), set(&[0, 1, 2, 3]));
        let sets = [&born, &died, &worked];
        let candidates = set(&[0, 1, 2, 3, 4, 5]);
        let dead = set(&[0, 2, 4]);
        // A snippet shows that 0, 2 and 4 died (not when) and that 0 to 3 work in the field.
        assert_eq!(
            glance(&hints, &sets, &[1, 2], &candidates, &dead),
            Some(set(&[0, 2]))
        );
        assert_eq!(
            glance(&hints, &sets, &[1], &candidates, &dead),
            Some(dead.clone())
        );
        // A birth year is hidden in every snippet.
        assert_eq!(glance(&hints, &sets, &[0], &candidates, &dead), None);
    }

    #[test]
    fn round_bounds_avoid_taken_values_and_stay_near() {
        let mut rng = fabula_world::seed::rng(1, 1, "test");
        let taken: BTreeSet<i64> = [20_000].into();
        for _ in 0..50 {
            let over = round_bound(23_456, true, &taken, &mut rng).expect("a bound");
            assert!(
                over < 23_456 && over * 4 >= 23_456 && over != 20_000,
                "{over}"
            );
            let under = round_bound(23_456, false, &taken, &mut rng).expect("a bound");
            assert!(under > 23_456 && under <= 4 * 23_456, "{under}");
        }
        assert_eq!(round_bound(1, true, &taken, &mut rng), None);
    }
}
