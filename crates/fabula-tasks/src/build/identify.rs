//! Identify tasks, in the manner of BrowseComp: a person described by 3 to 5 clues, each true
//! of several people on its own and, together, of exactly one.
//!
//! Clues read different tables (where a person was born and in which region that lies, what
//! they worked as, when they were born, what they founded and where it is based, which seats
//! they held, where the organisations they belonged to are based), so their facts sit on
//! different pages: the person's article, their birthplace's article, the article of an
//! organisation they founded or joined, its home's article, its people page.
//! The query is one `SELECT` of the person's name with one condition per clue. The person
//! founded nothing and held no seat, so no list of natives or members names them (those lists
//! name notable people only), and the clues about founding and seats hold for others only.

use std::collections::BTreeSet;

use rand::RngExt;
use rand::seq::SliceRandom;

use fabula_file::ColumnRole;
use fabula_file::TableRole::{self, Membership, Organisation, Person, Region, Settlement, Tenure};
use fabula_world::seed::WorldRng;

use crate::clues::{self, Said};

use super::db::{Cell, Db, lit};
use super::draft::Body;
use super::threshold;
use super::{Answer, Builder};

/// The fewest and most clues a question gives.
const CLUES: (usize, usize) = (3, 5);
/// The fewest clues whose facts lie off the person's own article.
const MIN_CROSSING: usize = 2;
/// How far a year clue's year lies from the person's birth year, at most.
const YEAR_SPREAD: i64 = 40;

/// One clue about a person.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Clue {
    /// Born in a settlement of this region (its id).
    BornInRegion(i64),
    Occupation(String),
    BornBefore(i64),
    BornAfter(i64),
    /// Founded an organisation of this category.
    FoundedCategory(String),
    /// Founded an organisation based in a settlement of this region (its id).
    FoundedInRegion(i64),
    /// Held a seat with this title.
    Seat(String),
    /// Belonged to an organisation based in a settlement of this region (its id): as a
    /// member or as the holder of one of its seats, not as its founder, as the clause says.
    MemberInRegion(i64),
}

impl Clue {
    /// Whether the clue's facts lie off the person's own article.
    fn crosses(&self) -> bool {
        !matches!(
            self,
            Clue::Occupation(_) | Clue::BornBefore(_) | Clue::BornAfter(_)
        )
    }
}

/// What the clues can say about one person.
pub(super) struct Profile {
    birth_region: Option<i64>,
    occupation: Option<String>,
    birth_year: Option<i64>,
    /// (organisation id, category, home region) of each organisation the person founded.
    founded: Vec<(i64, Option<String>, Option<i64>)>,
    /// (tenure id, seat) of each seat the person held.
    seats: Vec<(i64, String)>,
    /// (membership or tenure table, row id, organisation id, its home region) of each
    /// organisation the person belonged to.
    memberships: Vec<(TableRole, i64, i64, Option<i64>)>,
}

impl Profile {
    fn holds(&self, clue: &Clue) -> bool {
        match clue {
            Clue::BornInRegion(r) => self.birth_region == Some(*r),
            Clue::Occupation(o) => self.occupation.as_ref() == Some(o),
            Clue::BornBefore(y) => self.birth_year.is_some_and(|b| b < *y),
            Clue::BornAfter(y) => self.birth_year.is_some_and(|b| b > *y),
            Clue::FoundedCategory(c) => self.founded.iter().any(|f| f.1.as_ref() == Some(c)),
            Clue::FoundedInRegion(r) => self.founded.iter().any(|f| f.2 == Some(*r)),
            Clue::Seat(s) => self.seats.iter().any(|(_, seat)| seat == s),
            Clue::MemberInRegion(r) => self.memberships.iter().any(|m| m.3 == Some(*r)),
        }
    }
}

/// Every person's profile, by id (index 0 is person 1).
fn profiles(db: &Db) -> Vec<Profile> {
    let (p, o, t) = (Person, Organisation, Tenure);
    let region_of = |settlement: Option<i64>| {
        settlement.and_then(|x| db.int(Settlement, x, ColumnRole::Region))
    };
    let mut out: Vec<Profile> = db
        .ids(p)
        .into_iter()
        .map(|id| Profile {
            birth_region: region_of(db.int(p, id, ColumnRole::Birthplace)),
            occupation: db.text(p, id, ColumnRole::Occupation),
            birth_year: db.int(p, id, ColumnRole::BirthYear),
            founded: Vec::new(),
            seats: Vec::new(),
            memberships: Vec::new(),
        })
        .collect();
    let slot = |id: i64| usize::try_from(id - 1).ok();
    for org in db.ids(o) {
        let Some(i) = db.int(o, org, ColumnRole::Founder).and_then(slot) else {
            continue;
        };
        let category = db.text(o, org, ColumnRole::Category);
        let region = region_of(db.int(o, org, ColumnRole::Home));
        out[i].founded.push((org, category, region));
    }
    let m = Membership;
    if db.has(m, ColumnRole::Person) {
        for membership in db.ids(m) {
            let person = db.int(m, membership, ColumnRole::Person).and_then(slot);
            if let (Some(i), Some(org)) = (person, db.int(m, membership, ColumnRole::Organisation))
            {
                let region = region_of(db.int(o, org, ColumnRole::Home));
                out[i].memberships.push((m, membership, org, region));
            }
        }
    }
    if db.has(t, ColumnRole::Seat) {
        for term in db.ids(t) {
            let person = db.int(t, term, ColumnRole::Person).and_then(slot);
            if let (Some(i), Some(seat)) = (person, db.text(t, term, ColumnRole::Seat)) {
                out[i].seats.push((term, seat));
            }
            let org = db
                .has(t, ColumnRole::Organisation)
                .then(|| db.int(t, term, ColumnRole::Organisation))
                .flatten();
            if let (Some(i), Some(org)) = (person, org) {
                let region = region_of(db.int(o, org, ColumnRole::Home));
                out[i].memberships.push((t, term, org, region));
            }
        }
    }
    out
}

impl Builder<'_> {
    /// Whether the world has every table and column the clues read.
    pub(super) fn can_identify(&self) -> bool {
        let db = &self.db;
        [
            (Person, ColumnRole::Occupation),
            (Person, ColumnRole::Birthplace),
            (Organisation, ColumnRole::Category),
            (Organisation, ColumnRole::Home),
            (Organisation, ColumnRole::Founder),
            (Settlement, ColumnRole::Region),
        ]
        .iter()
        .all(|&(role, column)| db.has(role, column))
    }

    /// Describes person `x` by clues until they single the person out; `None` when the clues
    /// the person allows do not.
    pub(super) fn identify(&mut self, x: i64) -> Option<Body> {
        let profiles = self.people.get_or_init(|| profiles(&self.db));
        let rng = &mut self.rng;
        let me = profiles.get(usize::try_from(x - 1).ok()?)?;
        // The answer founded nothing and held no seat, as a frontier answer: lists of natives
        // and members name only such notable people, so no list hands the answer over.
        if !(me.founded.is_empty() && me.seats.is_empty()) {
            return None;
        }
        let born: BTreeSet<i64> = profiles.iter().filter_map(|p| p.birth_year).collect();
        let mut pool = clues_of(me, &born, rng);
        // A clue must leave several people on its own.
        pool.retain(|c| profiles.iter().filter(|p| p.holds(c)).count() >= 2);
        let wanted = rng.random_range(CLUES.0..=CLUES.1);
        let mut chosen: Vec<Clue> = Vec::new();
        let mut left: BTreeSet<usize> = (0..profiles.len()).collect();
        for clue in pool {
            let done = left.len() == 1 && chosen.len() >= wanted;
            if done || chosen.len() == CLUES.1 {
                break;
            }
            let narrowed: BTreeSet<usize> = left
                .iter()
                .copied()
                .filter(|&i| profiles[i].holds(&clue))
                .collect();
            // Skip a clue that narrows nothing unless more clues are needed anyway.
            if narrowed.len() == left.len() && left.len() > 1 {
                continue;
            }
            left = narrowed;
            chosen.push(clue);
        }
        let crossing = chosen.iter().filter(|c| c.crosses()).count();
        // The occupation, tried last, may have been needed to single the person out.
        if left.len() != 1 || chosen.len() < CLUES.0 || crossing < MIN_CROSSING {
            return None;
        }
        self.identify_body(x, me, &chosen)
    }

    fn identify_body(&self, x: i64, me: &Profile, clues: &[Clue]) -> Option<Body> {
        let db = &self.db;
        let name = db.name(Person, x);
        let mut cells = vec![db.cell(Person, x, ColumnRole::Name)];
        for clue in clues {
            cells.extend(self.clue_cells(x, me, clue));
        }
        let conditions: Vec<String> = clues.iter().map(|c| self.clue_sql(c)).collect();
        let sql = format!(
            "SELECT p.{} FROM {} p WHERE {}",
            db.column(Person, ColumnRole::Name).name,
            db.table(Person).name,
            conditions.join(" AND ")
        );
        let theme = &self.world.theme;
        let said: Vec<Said> = clues.iter().map(|c| self.said(c)).collect();
        let texts: Vec<String> = said
            .iter()
            .map(|c| c.text(&theme.settlement.singular, &theme.organisation.singular))
            .collect();
        let text = clues::join(&texts);
        // A name that reads as a clause boundary would garble the clues for every reader.
        (clues::parse(&text).as_ref() == Some(&said)).then(|| Body {
            slots: vec![("clues", text)],
            answer: Answer::Text(name),
            cells,
            sql,
        })
    }

    /// The cells that state a clue of person `x`.
    fn clue_cells(&self, x: i64, me: &Profile, clue: &Clue) -> Vec<Cell> {
        let db = &self.db;
        let (p, o, s, t) = (Person, Organisation, Settlement, Tenure);
        let region_cell =
            |settlement: Option<i64>| settlement.map(|id| db.cell(s, id, ColumnRole::Region));
        match clue {
            Clue::BornInRegion(_) => {
                let birthplace = db.int(p, x, ColumnRole::Birthplace);
                let mut cells = vec![db.cell(p, x, ColumnRole::Birthplace)];
                cells.extend(region_cell(birthplace));
                cells
            }
            Clue::Occupation(_) => vec![db.cell(p, x, ColumnRole::Occupation)],
            Clue::BornBefore(_) | Clue::BornAfter(_) => vec![db.cell(p, x, ColumnRole::BirthYear)],
            Clue::FoundedCategory(c) => {
                let org = me.founded.iter().find(|f| f.1.as_ref() == Some(c));
                org.map_or_else(Vec::new, |&(id, _, _)| {
                    vec![
                        db.cell(o, id, ColumnRole::Founder),
                        db.cell(o, id, ColumnRole::Category),
                    ]
                })
            }
            Clue::FoundedInRegion(r) => {
                let org = me.founded.iter().find(|f| f.2 == Some(*r));
                org.map_or_else(Vec::new, |&(id, _, _)| {
                    let mut cells = vec![
                        db.cell(o, id, ColumnRole::Founder),
                        db.cell(o, id, ColumnRole::Home),
                    ];
                    cells.extend(region_cell(db.int(o, id, ColumnRole::Home)));
                    cells
                })
            }
            Clue::Seat(seat) => {
                let term = me.seats.iter().find(|(_, s)| s == seat);
                term.map_or_else(Vec::new, |&(id, _)| {
                    vec![
                        db.cell(t, id, ColumnRole::Person),
                        db.cell(t, id, ColumnRole::Seat),
                    ]
                })
            }
            Clue::MemberInRegion(r) => {
                let membership = me.memberships.iter().find(|x| x.3 == Some(*r));
                membership.map_or_else(Vec::new, |&(link, id, org, _)| {
                    let mut cells = vec![
                        db.cell(link, id, ColumnRole::Person),
                        db.cell(link, id, ColumnRole::Organisation),
                        db.cell(o, org, ColumnRole::Home),
                    ];
                    cells.extend(region_cell(db.int(o, org, ColumnRole::Home)));
                    cells
                })
            }
        }
    }

    /// The condition of a clue on the person table, aliased `p`.
    fn clue_sql(&self, clue: &Clue) -> String {
        let db = &self.db;
        let table = |role: TableRole| db.table(role).name.clone();
        let col = |role: TableRole, column: ColumnRole| db.column(role, column).name.clone();
        let (p, o, s, r, t) = (Person, Organisation, Settlement, Region, Tenure);
        let in_region = |region: i64, settlement_id: String| {
            format!(
                "{settlement_id} IN (SELECT s.id FROM {} s JOIN {} r ON r.id = s.{} WHERE r.{} = {})",
                table(s),
                table(r),
                col(s, ColumnRole::Region),
                col(r, ColumnRole::Name),
                lit(&db.name(r, region))
            )
        };
        match clue {
            Clue::BornInRegion(region) => {
                in_region(*region, format!("p.{}", col(p, ColumnRole::Birthplace)))
            }
            Clue::Occupation(v) => format!("p.{} = {}", col(p, ColumnRole::Occupation), lit(v)),
            Clue::BornBefore(y) => format!("p.{} < {y}", col(p, ColumnRole::BirthYear)),
            Clue::BornAfter(y) => format!("p.{} > {y}", col(p, ColumnRole::BirthYear)),
            Clue::FoundedCategory(c) => format!(
                "EXISTS (SELECT 1 FROM {} o WHERE o.{} = p.id AND o.{} = {})",
                table(o),
                col(o, ColumnRole::Founder),
                col(o, ColumnRole::Category),
                lit(c)
            ),
            Clue::FoundedInRegion(region) => format!(
                "EXISTS (SELECT 1 FROM {} o WHERE o.{} = p.id AND {})",
                table(o),
                col(o, ColumnRole::Founder),
                in_region(*region, format!("o.{}", col(o, ColumnRole::Home)))
            ),
            Clue::Seat(seat) => format!(
                "EXISTS (SELECT 1 FROM {} t WHERE t.{} = p.id AND t.{} = {})",
                table(t),
                col(t, ColumnRole::Person),
                col(t, ColumnRole::Seat),
                lit(seat)
            ),
            Clue::MemberInRegion(region) => {
                let links = [Membership, t].into_iter().filter(|&link| {
                    db.has(link, ColumnRole::Person) && db.has(link, ColumnRole::Organisation)
                });
                let exists: Vec<String> = links
                    .map(|link| {
                        format!(
                            "EXISTS (SELECT 1 FROM {} m JOIN {} o ON o.id = m.{} WHERE m.{} = p.id AND {})",
                            table(link),
                            table(o),
                            col(link, ColumnRole::Organisation),
                            col(link, ColumnRole::Person),
                            in_region(*region, format!("o.{}", col(o, ColumnRole::Home)))
                        )
                    })
                    .collect();
                format!("({})", exists.join(" OR "))
            }
        }
    }

    /// A clue with the names the question states.
    fn said(&self, clue: &Clue) -> Said {
        let region = |id: i64| self.db.name(Region, id);
        match clue {
            Clue::BornInRegion(id) => Said::BornIn(region(*id)),
            Clue::Occupation(o) => Said::Occupation(o.clone()),
            Clue::BornBefore(y) => Said::BornBefore(*y),
            Clue::BornAfter(y) => Said::BornAfter(*y),
            Clue::FoundedCategory(c) => Said::FoundedCategory(c.clone()),
            Clue::FoundedInRegion(id) => Said::FoundedIn(region(*id)),
            Clue::Seat(seat) => Said::Seat(seat.clone()),
            Clue::MemberInRegion(id) => Said::MemberIn(region(*id)),
        }
    }
}

/// The clues true of a person, in the order they are tried: the clues off their article
/// shuffled (each sends a reader to another page), then one year clue (drawn before or after
/// their birth, on a year in which nobody of the world was born: `born` holds every birth
/// year), then their occupation.
fn clues_of(me: &Profile, born: &BTreeSet<i64>, rng: &mut WorldRng) -> Vec<Clue> {
    let mut pool = Vec::new();
    pool.extend(me.birth_region.map(Clue::BornInRegion));
    // The occupation is the one clue whose word a search of the question matches on the
    // person's own article, handing over the answer; it is offered only as a last resort.
    let occupation = me.occupation.clone().map(Clue::Occupation);
    let year = me.birth_year.and_then(|year| {
        let before = rng.random_bool(0.5);
        let offsets = threshold::free_offsets(born, year, YEAR_SPREAD, !before);
        let d = *offsets.get(rng.random_range(0..offsets.len().max(1)))?;
        Some(if before {
            Clue::BornBefore(year + d)
        } else {
            Clue::BornAfter(year - d)
        })
    });
    let categories: BTreeSet<&String> = me.founded.iter().filter_map(|f| f.1.as_ref()).collect();
    pool.extend(
        categories
            .into_iter()
            .map(|c| Clue::FoundedCategory(c.clone())),
    );
    let regions: BTreeSet<i64> = me.founded.iter().filter_map(|f| f.2).collect();
    pool.extend(regions.into_iter().map(Clue::FoundedInRegion));
    let seats: BTreeSet<&String> = me.seats.iter().map(|(_, s)| s).collect();
    pool.extend(seats.into_iter().map(|s| Clue::Seat(s.clone())));
    let member_regions: BTreeSet<i64> = me.memberships.iter().filter_map(|m| m.3).collect();
    pool.extend(member_regions.into_iter().map(Clue::MemberInRegion));
    pool.shuffle(rng);
    pool.extend(year);
    pool.extend(occupation);
    pool
}
