//! The typed model of one world: the rows of every domain table, before they become SQL.
//!
//! Ids are 1-based and equal to the row's position plus one, so `world.settlement(id)` is a slice
//! index. Years are plain integers in the world's own calendar; `None` in an end year means the
//! relation still holds in the present year.

use crate::theme::Theme;

/// A generated world.
#[derive(Debug, Clone)]
pub struct World {
    pub id: u32,
    pub master_seed: u64,
    pub world_seed: u64,
    pub name: String,
    /// The invented word the world's name is built from; sites are named after it.
    pub root: String,
    pub theme: Theme,
    /// The year the world is observed in; nothing happens after it.
    pub present_year: i64,
    /// The earliest year any settlement was founded.
    pub earliest_year: i64,
    /// Which optional table groups this world has.
    pub groups: Groups,
    pub regions: Vec<Region>,
    pub settlements: Vec<Settlement>,
    pub people: Vec<Person>,
    pub organisations: Vec<Organisation>,
    pub memberships: Vec<Membership>,
    pub tenures: Vec<Tenure>,
    pub works: Vec<Work>,
    pub events: Vec<Event>,
    pub participations: Vec<Participation>,
    pub alliances: Vec<Alliance>,
    pub alliance_memberships: Vec<AllianceMembership>,
    /// Settlement populations as earlier censuses counted them; empty in a world without
    /// censuses.
    pub censuses: Vec<Census>,
}

/// The optional table groups of a world; together they set its table count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Groups {
    pub works: bool,
    pub events: bool,
    pub alliances: bool,
}

#[derive(Debug, Clone)]
pub struct Region {
    pub id: i64,
    pub name: String,
    /// The sum of its settlements' populations.
    pub population: i64,
    pub extras: Vec<i64>,
}

#[derive(Debug, Clone)]
pub struct Settlement {
    pub id: i64,
    pub name: String,
    pub region: i64,
    pub founded: i64,
    pub population: i64,
    pub extras: Vec<i64>,
}

#[derive(Debug, Clone)]
pub struct Person {
    pub id: i64,
    pub name: String,
    pub birth_year: i64,
    pub death_year: Option<i64>,
    pub birthplace: i64,
    pub occupation: String,
}

#[derive(Debug, Clone)]
pub struct Organisation {
    pub id: i64,
    pub name: String,
    pub category: String,
    pub home: i64,
    pub founder: i64,
    pub founded: i64,
    /// The number of its membership rows.
    pub member_count: i64,
    pub extras: Vec<i64>,
}

#[derive(Debug, Clone)]
pub struct Membership {
    pub id: i64,
    pub person: i64,
    pub organisation: i64,
    pub role: String,
    pub joined: i64,
}

#[derive(Debug, Clone)]
pub struct Tenure {
    pub id: i64,
    pub organisation: i64,
    pub person: i64,
    pub seat: String,
    pub start: i64,
    pub end: Option<i64>,
}

#[derive(Debug, Clone)]
pub struct Work {
    pub id: i64,
    pub name: String,
    pub organisation: i64,
    pub year: i64,
    pub extras: Vec<i64>,
}

#[derive(Debug, Clone)]
pub struct Event {
    pub id: i64,
    pub name: String,
    pub year: i64,
    pub host: i64,
}

#[derive(Debug, Clone)]
pub struct Participation {
    pub id: i64,
    pub event: i64,
    pub organisation: i64,
    /// The organisation's placing (or the theme's equivalent), 1 for the best.
    pub result: i64,
}

#[derive(Debug, Clone)]
pub struct Alliance {
    pub id: i64,
    pub name: String,
    pub founded: i64,
    pub seat: i64,
}

#[derive(Debug, Clone)]
pub struct AllianceMembership {
    pub id: i64,
    pub alliance: i64,
    pub organisation: i64,
    pub start: i64,
    pub end: Option<i64>,
}

/// One settlement's population as the census of `year` counted it. A settlement's own
/// `population` is its population in the present year; its censuses are older values of it.
#[derive(Debug, Clone)]
pub struct Census {
    pub id: i64,
    pub settlement: i64,
    pub year: i64,
    pub population: i64,
}

fn by_id<T>(rows: &[T], id: i64) -> &T {
    &rows[usize::try_from(id - 1).expect("ids are 1-based")]
}

impl World {
    pub fn region(&self, id: i64) -> &Region {
        by_id(&self.regions, id)
    }
    pub fn settlement(&self, id: i64) -> &Settlement {
        by_id(&self.settlements, id)
    }
    pub fn person(&self, id: i64) -> &Person {
        by_id(&self.people, id)
    }
    pub fn organisation(&self, id: i64) -> &Organisation {
        by_id(&self.organisations, id)
    }
    pub fn work(&self, id: i64) -> &Work {
        by_id(&self.works, id)
    }
    pub fn event(&self, id: i64) -> &Event {
        by_id(&self.events, id)
    }
    pub fn alliance(&self, id: i64) -> &Alliance {
        by_id(&self.alliances, id)
    }

    /// The number of domain rows over every table.
    pub fn n_rows(&self) -> usize {
        self.regions.len()
            + self.settlements.len()
            + self.people.len()
            + self.organisations.len()
            + self.memberships.len()
            + self.tenures.len()
            + self.works.len()
            + self.events.len()
            + self.participations.len()
            + self.alliances.len()
            + self.alliance_memberships.len()
            + self.censuses.len()
    }

    /// The number of domain tables.
    pub fn n_tables(&self) -> usize {
        6 + usize::from(self.groups.works)
            + 2 * usize::from(self.groups.events)
            + 2 * usize::from(self.groups.alliances)
            + usize::from(!self.censuses.is_empty())
    }

    /// The years of the world's censuses, oldest first; none without censuses.
    pub fn census_years(&self) -> Vec<i64> {
        let mut years: Vec<i64> = self.censuses.iter().map(|c| c.year).collect();
        years.sort_unstable();
        years.dedup();
        years
    }

    /// Whether a person is alive in a year.
    pub fn alive_in(&self, person: i64, year: i64) -> bool {
        let p = self.person(person);
        p.birth_year <= year && p.death_year.is_none_or(|d| year <= d)
    }
}
