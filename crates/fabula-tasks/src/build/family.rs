//! The task families: one value per template of `templates/tasks/questions.toml`, saying what
//! the question is about, where its answer is read in the world and what shape the answer has.
//!
//! A family names tables by role and columns by column role (`founded`, `birthplace`), the same
//! names the world file records, so one description yields both the gold answer and the SQL
//! query that recomputes it. The driver in `draft.rs` turns a family and a candidate into a
//! draft.

use fabula_world::schema::TableRole::{
    self, Alliance, AllianceMembership, Event, Organisation, Participation, Person, Region,
    Settlement, Tenure, Work,
};

/// A reference followed from one row to another: the column holding the id and the table it
/// points at.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hop {
    pub(super) column: &'static str,
    pub(super) target: TableRole,
}

/// A value reached from a row: references followed in turn, then a column of the last row.
#[derive(Debug, Clone, Copy)]
pub(super) struct Path {
    pub(super) hops: &'static [Hop],
    pub(super) column: &'static str,
}

impl Path {
    /// Whether the path reads the starting row's own name.
    pub(super) fn is_own_name(&self) -> bool {
        self.hops.is_empty() && self.column == "name"
    }

    /// The table the path ends in, starting from `from`.
    pub(super) fn end(&self, from: TableRole) -> TableRole {
        self.hops.last().map_or(from, |h| h.target)
    }
}

/// Which end of a column's order answers the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Order {
    /// The smallest value (the oldest, the earliest).
    Smallest,
    /// The largest value (the largest, the most).
    Largest,
}

/// Which pairs of rows a comparison asks about.
#[derive(Debug, Clone, Copy)]
pub(super) enum Pairs {
    /// Up to 24 random pairs.
    Any,
    /// Pairs of near-namesakes (one family name) first, then four random pairs.
    NamesakesFirst,
}

/// The rows a question groups together, and how it names the group.
#[derive(Debug, Clone, Copy)]
pub(super) enum Group {
    /// Every row of the table; the question names the world.
    World,
    /// The rows whose reference points at one row of the target table, named in slot `slot`.
    Parent { hop: Hop, slot: &'static str },
    /// The rows with one of the values the theme lists for a text column (an organisation
    /// category, an occupation), named in the slot of the column's name.
    Value { column: &'static str },
}

/// Which rows a table task lists.
#[derive(Debug, Clone, Copy)]
pub(super) enum Rows {
    /// The rows of one group, when there are 5 to 40 of them.
    Group(Group),
    /// The rows with a year column before a year chosen so that 5 to 40 rows qualify.
    Before(&'static str),
    /// The rows with a year column after a year chosen so that 5 to 40 rows qualify.
    After(&'static str),
}

/// The value at the end of `path`, starting from a row named in slot `slot`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Follow {
    pub(super) subject: TableRole,
    pub(super) slot: &'static str,
    pub(super) path: Path,
}

/// The value at the end of `path`, starting from the one `link` row that points at the row
/// named in slot `slot` and whose `result` column is 1 (the winner of an event).
#[derive(Debug, Clone, Copy)]
pub(super) struct Winner {
    pub(super) link: TableRole,
    pub(super) subject: Hop,
    pub(super) slot: &'static str,
    pub(super) result: &'static str,
    pub(super) path: Path,
}

/// Which of two rows, named in slots `a` and `b`, has the smaller or larger value.
#[derive(Debug, Clone, Copy)]
pub(super) struct Compare {
    pub(super) role: TableRole,
    pub(super) column: &'static str,
    pub(super) order: Order,
    pub(super) pairs: Pairs,
}

/// The row of a group with the smallest or largest value, when no other row ties with it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Extreme {
    pub(super) role: TableRole,
    pub(super) column: &'static str,
    pub(super) order: Order,
    pub(super) group: Group,
}

/// The total of `column` over the rows of a group whose `year` lies before a chosen year.
#[derive(Debug, Clone, Copy)]
pub(super) struct SumBefore {
    pub(super) role: TableRole,
    pub(super) column: &'static str,
    pub(super) year: &'static str,
    pub(super) group: Group,
}

/// The row `answer` points at from the one `link` row (a term with `start_year` and
/// `end_year`) that points at the row named in slot `slot`, covers a chosen year and shares
/// the values of `keys` with the term the question names.
#[derive(Debug, Clone, Copy)]
pub(super) struct Term {
    pub(super) link: TableRole,
    pub(super) subject: Hop,
    pub(super) slot: &'static str,
    pub(super) keys: &'static [&'static str],
    pub(super) answer: Hop,
}

/// A table of rows, one column per path, keyed by the rows' names. `slots` lists the slots its
/// question fills, from `world`, `year`, `extra` (the label of the first extra column) and the
/// slot of its group.
#[derive(Debug, Clone, Copy)]
pub(super) struct Table {
    pub(super) role: TableRole,
    pub(super) columns: &'static [Path],
    pub(super) rows: Rows,
    pub(super) slots: &'static [&'static str],
}

/// What a family asks and how its answer is found.
#[derive(Debug, Clone, Copy)]
pub(super) enum Shape {
    Follow(Follow),
    Winner(Winner),
    Compare(Compare),
    Extreme(Extreme),
    SumBefore(SumBefore),
    Term(Term),
    Table(Table),
}

/// One task template: its phrasing-bank key (`kind.name`) and its shape.
#[derive(Debug, Clone, Copy)]
pub(super) struct Family {
    pub(super) kind: &'static str,
    pub(super) name: &'static str,
    pub(super) shape: Shape,
}

/// The family of template `kind.name`, if there is one.
pub(super) fn family(kind: &str, name: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.kind == kind && f.name == name)
}

const fn hop(column: &'static str, target: TableRole) -> Hop {
    Hop { column, target }
}

const fn own(column: &'static str) -> Path {
    Path { hops: &[], column }
}

const fn via(hops: &'static [Hop], column: &'static str) -> Path {
    Path { hops, column }
}

const fn follow(kind: &'static str, name: &'static str, subject: TableRole, path: Path) -> Family {
    let slot = match subject {
        Person => "person",
        Organisation => "org",
        Settlement => "settlement",
        Work => "work",
        Event => "event",
        Alliance => "alliance",
        _ => panic!("no lookup slot for this table"),
    };
    let shape = Shape::Follow(Follow {
        subject,
        slot,
        path,
    });
    Family { kind, name, shape }
}

const fn compare(
    name: &'static str,
    role: TableRole,
    column: &'static str,
    order: Order,
    pairs: Pairs,
) -> Family {
    let shape = Shape::Compare(Compare {
        role,
        column,
        order,
        pairs,
    });
    Family {
        kind: "compare",
        name,
        shape,
    }
}

const fn extreme(
    name: &'static str,
    role: TableRole,
    column: &'static str,
    order: Order,
    group: Group,
) -> Family {
    let shape = Shape::Extreme(Extreme {
        role,
        column,
        order,
        group,
    });
    Family {
        kind: "aggregate",
        name,
        shape,
    }
}

const fn table(
    name: &'static str,
    role: TableRole,
    columns: &'static [Path],
    rows: Rows,
    slots: &'static [&'static str],
) -> Family {
    let shape = Shape::Table(Table {
        role,
        columns,
        rows,
        slots,
    });
    Family {
        kind: "table",
        name,
        shape,
    }
}

const FOUNDER: Hop = hop("founder", Person);
const BIRTHPLACE: Hop = hop("birthplace", Settlement);
const HOME: Hop = hop("home", Settlement);
const HOST: Hop = hop("host", Settlement);
const REGION: Hop = hop("region", Region);
const ORG: Hop = hop("organisation", Organisation);
const IN_REGION: Group = Group::Parent {
    hop: REGION,
    slot: "region",
};

/// Every family, in the order of the phrasing file.
#[rustfmt::skip]
pub(super) const FAMILIES: &[Family] = &[
    follow("lookup", "person_birth_year", Person, own("birth_year")),
    follow("lookup", "person_birthplace", Person, via(&[BIRTHPLACE], "name")),
    follow("lookup", "person_death_year", Person, own("death_year")),
    follow("lookup", "org_founded", Organisation, own("founded")),
    follow("lookup", "org_founder", Organisation, via(&[FOUNDER], "name")),
    follow("lookup", "org_home", Organisation, via(&[HOME], "name")),
    follow("lookup", "settlement_founded", Settlement, own("founded")),
    follow("lookup", "settlement_population", Settlement, own("population")),
    follow("lookup", "work_year", Work, own("year")),
    follow("lookup", "event_host", Event, via(&[HOST], "name")),
    follow("lookup", "alliance_seat", Alliance, via(&[HOME], "name")),
    follow("multi_hop", "founder_birthplace", Organisation, via(&[FOUNDER, BIRTHPLACE], "name")),
    follow("multi_hop", "founder_birth_year", Organisation, via(&[FOUNDER], "birth_year")),
    follow("multi_hop", "founder_birth_region", Organisation, via(&[FOUNDER, BIRTHPLACE, REGION], "name")),
    follow("multi_hop", "home_population", Organisation, via(&[HOME], "population")),
    follow("multi_hop", "home_region", Organisation, via(&[HOME, REGION], "name")),
    follow("multi_hop", "work_maker_founder", Work, via(&[ORG, FOUNDER], "name")),
    follow("multi_hop", "work_maker_home", Work, via(&[ORG, HOME], "name")),
    follow("multi_hop", "event_host_region", Event, via(&[HOST, REGION], "name")),
    Family {
        kind: "multi_hop",
        name: "event_winner_founder",
        shape: Shape::Winner(Winner {
            link: Participation,
            subject: hop("event", Event),
            slot: "event",
            result: "result",
            path: via(&[ORG, FOUNDER], "name"),
        }),
    },
    follow("multi_hop", "alliance_seat_region", Alliance, via(&[HOME, REGION], "name")),
    compare("settlement_older", Settlement, "founded", Order::Smallest, Pairs::Any),
    compare("settlement_larger", Settlement, "population", Order::Largest, Pairs::Any),
    compare("person_older", Person, "birth_year", Order::Smallest, Pairs::NamesakesFirst),
    compare("org_older", Organisation, "founded", Order::Smallest, Pairs::Any),
    compare("org_more_members", Organisation, "member_count", Order::Largest, Pairs::Any),
    extreme("region_largest_settlement", Settlement, "population", Order::Largest, IN_REGION),
    extreme("region_oldest_settlement", Settlement, "founded", Order::Smallest, IN_REGION),
    Family {
        kind: "aggregate",
        name: "region_population_before",
        shape: Shape::SumBefore(SumBefore {
            role: Settlement,
            column: "population",
            year: "founded",
            group: IN_REGION,
        }),
    },
    extreme("category_oldest_org", Organisation, "founded", Order::Smallest, Group::Value { column: "category" }),
    extreme("most_populous_region", Region, "population", Order::Largest, Group::World),
    Family {
        kind: "temporal",
        name: "seat_holder",
        shape: Shape::Term(Term {
            link: Tenure,
            subject: ORG,
            slot: "org",
            keys: &["seat"],
            answer: hop("person", Person),
        }),
    },
    Family {
        kind: "temporal",
        name: "alliance_member_of",
        shape: Shape::Term(Term {
            link: AllianceMembership,
            subject: ORG,
            slot: "org",
            keys: &[],
            answer: hop("alliance", Alliance),
        }),
    },
    table(
        "settlements_in_region",
        Settlement,
        &[own("name"), own("founded"), own("population"), own("extra")],
        Rows::Group(IN_REGION),
        &["region", "extra"],
    ),
    table(
        "settlements_before",
        Settlement,
        &[own("name"), via(&[REGION], "name"), own("founded"), own("population")],
        Rows::Before("founded"),
        &["world", "year"],
    ),
    table(
        "orgs_after",
        Organisation,
        &[own("name"), via(&[FOUNDER], "name"), own("founded"), via(&[HOME], "name")],
        Rows::After("founded"),
        &["year"],
    ),
    table(
        "people_by_occupation",
        Person,
        &[own("name"), own("birth_year"), via(&[BIRTHPLACE], "name"), via(&[BIRTHPLACE, REGION], "name")],
        Rows::Group(Group::Value { column: "occupation" }),
        &["occupation"],
    ),
    table(
        "works_after",
        Work,
        &[own("name"), via(&[ORG], "name"), own("year"), own("extra")],
        Rows::After("year"),
        &["year", "extra"],
    ),
];
