//! The task families: one value per template of `templates/tasks/questions.toml`, saying what
//! the question is about, where its answer is read in the world and what shape the answer has.
//!
//! A family names tables by [`TableRole`] and columns by [`ColumnRole`] (`founded`,
//! `birthplace`), the roles the world file records, so one description yields both the gold
//! answer and the SQL query that recomputes it. The driver in `draft.rs` turns a family and a candidate into a
//! draft.

use fabula_file::TableRole::{
    self, Alliance, Event, Organisation, Participation, Person, Region, Settlement, Tenure, Work,
};
use fabula_file::{ColumnRole, TaskKind};

/// A reference followed from one row to another: the column holding the id and the table it
/// points at.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hop {
    pub(super) column: ColumnRole,
    pub(super) target: TableRole,
}

/// A value reached from a row: references followed in turn, then a column of the last row.
#[derive(Debug, Clone, Copy)]
pub(super) struct Path {
    pub(super) hops: &'static [Hop],
    pub(super) column: ColumnRole,
}

impl Path {
    /// Whether the path reads the starting row's own name.
    pub(super) fn is_own_name(&self) -> bool {
        self.hops.is_empty() && self.column == ColumnRole::Name
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
    /// The rows whose reference points at one row of the target table, named in slot `slot`.
    Parent { hop: Hop, slot: &'static str },
    /// The rows with one of the values the theme lists for a text column (an organisation
    /// category, an occupation), named in the slot of the column's name.
    Value { column: ColumnRole },
}

/// Which rows a table task lists.
#[derive(Debug, Clone, Copy)]
pub(super) enum Rows {
    /// The rows of one group, when their number is within the family's size.
    Group(Group),
    /// The rows with a year column before a year chosen so that the family's size qualifies.
    Before(ColumnRole),
    /// The rows with a year column after a year chosen so that the family's size qualifies.
    After(ColumnRole),
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
    pub(super) result: ColumnRole,
    pub(super) path: Path,
}

/// Which of `options` rows (2 to 4), named in slots `a`, `b`, `c` and `d`, has the smallest or
/// largest value.
#[derive(Debug, Clone, Copy)]
pub(super) struct Compare {
    pub(super) role: TableRole,
    pub(super) column: ColumnRole,
    pub(super) order: Order,
    pub(super) pairs: Pairs,
    pub(super) options: usize,
}

/// What a [`Count`] answers about the rows it gathers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tally {
    /// The sum of a column over the rows ("How many members do the guilds based in the towns
    /// of this province have together?").
    Total(ColumnRole),
    /// The rows' names, a set answer scored by item F1 ("Name every scholar born in the towns
    /// of this province before 1850.").
    Names,
}

/// The rows of `role` that reach the row named in slot `slot` (of table `via.target`): the
/// references of `hops` followed from each row, then `via`. "How many people were born in the
/// towns of this province?" With `before`, only the rows whose year column lies before a
/// chosen year count ("... born before 1850?"). `tally` says what the answer is: their number,
/// a total or their names.
#[derive(Debug, Clone, Copy)]
pub(super) struct Count {
    pub(super) role: TableRole,
    pub(super) hops: &'static [Hop],
    pub(super) via: Hop,
    pub(super) slot: &'static str,
    pub(super) before: Option<ColumnRole>,
    pub(super) tally: Tally,
}

impl Count {
    /// The references followed from a counted row: `hops`, then `via`.
    pub(super) fn steps(&self) -> impl Iterator<Item = &Hop> {
        self.hops.iter().chain([&self.via])
    }
}

/// How many rows of `role` lead, by the references of `hops`, to a row whose `column` lies
/// before a year chosen per task: "How many albums were released by bands founded before
/// 2040?" The rows counted come from the whole world, so the count ranges widely.
#[derive(Debug, Clone, Copy)]
pub(super) struct CountBefore {
    pub(super) role: TableRole,
    pub(super) hops: &'static [Hop],
    pub(super) column: ColumnRole,
}

/// The row of a group with the smallest or largest value, when no other row ties with it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Extreme {
    pub(super) role: TableRole,
    pub(super) column: ColumnRole,
    pub(super) order: Order,
    pub(super) group: Group,
}

/// The total of `column` over the rows of a group whose `year` lies before a chosen year.
#[derive(Debug, Clone, Copy)]
pub(super) struct SumBefore {
    pub(super) role: TableRole,
    pub(super) column: ColumnRole,
    pub(super) year: ColumnRole,
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
    pub(super) keys: &'static [ColumnRole],
    pub(super) answer: Hop,
}

/// The population that the census of a chosen year counted in the settlement reached from the
/// row named in slot `slot` by `hops` (no hops: the row is the settlement). The settlement's
/// own page states its present population, and the other census reports other counts: the
/// question is about a value as of a date.
#[derive(Debug, Clone, Copy)]
pub(super) struct Census {
    pub(super) subject: TableRole,
    pub(super) slot: &'static str,
    pub(super) hops: &'static [Hop],
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
    /// The fewest and most rows the table may have.
    pub(super) size: (usize, usize),
}

/// What a family asks and how its answer is found.
#[derive(Debug, Clone, Copy)]
pub(super) enum Shape {
    Follow(Follow),
    Winner(Winner),
    Compare(Compare),
    Extreme(Extreme),
    SumBefore(SumBefore),
    Count(Count),
    CountBefore(CountBefore),
    Term(Term),
    Census(Census),
    /// A person described by clues (see `identify.rs`).
    Identify,
    /// A person described by blurred clues that name no entity (see `frontier.rs`).
    Frontier,
    /// Two to four people the same kind of blurred clues describe, all to be named.
    FrontierSet,
    /// A few people the same kind of blurred clues describe, tabulated with a value read on
    /// another entity's page ([`FRONTIER_TABLE_COLUMNS`]).
    FrontierTable,
    Table(Table),
}

/// One task template: its phrasing-bank key (`kind.name`) and its shape.
#[derive(Debug, Clone, Copy)]
pub(super) struct Family {
    pub(super) kind: TaskKind,
    pub(super) name: &'static str,
    pub(super) shape: Shape,
}

impl Family {
    /// Whether the family asks for a WideSearch-scale table (at least 30 rows).
    pub(super) fn is_wide(&self) -> bool {
        matches!(self.shape, Shape::Table(t) if t.size.0 >= WIDE_ROWS.0)
    }

    /// The fewest evidence pages a task of the family must need: a count is asked over many
    /// pages, and an identify question's clues come from several pages (the person's article,
    /// their birthplace's, an organisation's, its home's, ...).
    pub(super) fn min_pages(&self) -> usize {
        match self.shape {
            Shape::Count(_) | Shape::CountBefore(_) => 4,
            Shape::Identify => 5,
            // A frontier question's facts may sit on a few pages; what makes it hard is finding
            // them among many candidates (see `frontier.rs`).
            Shape::Frontier | Shape::FrontierSet | Shape::FrontierTable => 2,
            _ => 1,
        }
    }

    /// Whether the family is a frontier one ([`FRONTIER`], [`FRONTIER_SET`],
    /// [`FRONTIER_TABLE`]).
    pub(super) fn is_frontier(&self) -> bool {
        matches!(
            self.shape,
            Shape::Frontier | Shape::FrontierSet | Shape::FrontierTable
        )
    }
}

/// The name of the frontier family (kind `identify`): see `frontier.rs`.
pub(super) const FRONTIER: &str = "person_by_blurred_clues";
/// The name of the frontier's name-all family (kind `aggregate`) and of its table family (kind
/// `table`).
pub(super) const FRONTIER_SET: &str = "people_by_blurred_clues";
pub(super) const FRONTIER_TABLE: &str = "people_by_blurred_clues";

/// The family of template `kind.name`, if there is one.
pub(super) fn family(kind: &str, name: &str) -> Option<&'static Family> {
    FAMILIES
        .iter()
        .find(|f| f.kind.as_str() == kind && f.name == name)
}

const fn hop(column: ColumnRole, target: TableRole) -> Hop {
    Hop { column, target }
}

const fn own(column: ColumnRole) -> Path {
    Path { hops: &[], column }
}

const fn via(hops: &'static [Hop], column: ColumnRole) -> Path {
    Path { hops, column }
}

/// The name of the row at the end of `hops`.
const fn name_via(hops: &'static [Hop]) -> Path {
    via(hops, ColumnRole::Name)
}

/// The starting row's own name.
const OWN_NAME: Path = own(ColumnRole::Name);

/// The columns of a frontier table: the person, the birth year, the birthplace and its
/// population today, read on the birthplace's page.
pub(super) const FRONTIER_TABLE_COLUMNS: [Path; 4] = [
    OWN_NAME,
    own(ColumnRole::BirthYear),
    name_via(&[BIRTHPLACE]),
    via(&[BIRTHPLACE], ColumnRole::Population),
];

const fn follow(kind: TaskKind, name: &'static str, subject: TableRole, path: Path) -> Family {
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

const fn lookup(name: &'static str, subject: TableRole, path: Path) -> Family {
    follow(TaskKind::Lookup, name, subject, path)
}

const fn multi_hop(name: &'static str, subject: TableRole, path: Path) -> Family {
    follow(TaskKind::MultiHop, name, subject, path)
}

const fn compare(
    name: &'static str,
    role: TableRole,
    column: ColumnRole,
    order: Order,
    pairs: Pairs,
) -> Family {
    compare_of(name, role, column, order, pairs, 2)
}

/// A comparison over `options` rows named in the question.
const fn compare_of(
    name: &'static str,
    role: TableRole,
    column: ColumnRole,
    order: Order,
    pairs: Pairs,
    options: usize,
) -> Family {
    let shape = Shape::Compare(Compare {
        role,
        column,
        order,
        pairs,
        options,
    });
    Family {
        kind: TaskKind::Compare,
        name,
        shape,
    }
}

const fn extreme(
    name: &'static str,
    role: TableRole,
    column: ColumnRole,
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
        kind: TaskKind::Aggregate,
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
    wide_table(name, role, columns, rows, slots, TABLE_ROWS)
}

/// The fewest and most rows of a table task. A list of fewer than 12 rows is left to the
/// wide families: with lists that name their rows only, a table of a few rows already needs
/// many pages, and the hard tier's tables are meant to be WideSearch's size.
const TABLE_ROWS: (usize, usize) = (12, 40);
/// The rows of a region's settlements: a region holds a few of them.
const REGION_ROWS: (usize, usize) = (5, 40);
/// The fewest and most rows of a WideSearch-scale table task.
const WIDE_ROWS: (usize, usize) = (30, 95);
/// The fewest and most rows of a table of organisations, cut by a year (a world has 15 to 25).
const ORG_ROWS: (usize, usize) = (10, 40);
/// The fewest and most rows of a table of works, cut by a year (a world has 20 to 45).
const WORK_ROWS: (usize, usize) = (12, 45);
/// The fewest and most rows of a wide table of works, with columns read on their makers' pages.
const WIDE_WORK_ROWS: (usize, usize) = (20, 45);

/// A table task whose size lies in `size`.
const fn wide_table(
    name: &'static str,
    role: TableRole,
    columns: &'static [Path],
    rows: Rows,
    slots: &'static [&'static str],
    size: (usize, usize),
) -> Family {
    let shape = Shape::Table(Table {
        role,
        columns,
        rows,
        slots,
        size,
    });
    Family {
        kind: TaskKind::Table,
        name,
        shape,
    }
}

/// The census count of the settlement at the end of `hops` from a row of `subject`.
const fn census(
    kind: TaskKind,
    name: &'static str,
    subject: TableRole,
    slot: &'static str,
    hops: &'static [Hop],
) -> Family {
    let shape = Shape::Census(Census {
        subject,
        slot,
        hops,
    });
    Family { kind, name, shape }
}

/// A [`Count`] family: `tally` of the rows of `role` that reach the row named in `slot`.
const fn count(
    name: &'static str,
    role: TableRole,
    hops: &'static [Hop],
    via: Hop,
    slot: &'static str,
    before: Option<ColumnRole>,
    tally: Tally,
) -> Family {
    let shape = Shape::Count(Count {
        role,
        hops,
        via,
        slot,
        before,
        tally,
    });
    Family {
        kind: TaskKind::Aggregate,
        name,
        shape,
    }
}

const FOUNDER: Hop = hop(ColumnRole::Founder, Person);
const BIRTHPLACE: Hop = hop(ColumnRole::Birthplace, Settlement);
const HOME: Hop = hop(ColumnRole::Home, Settlement);
const HOST: Hop = hop(ColumnRole::Host, Settlement);
const REGION: Hop = hop(ColumnRole::Region, Region);
const ORG: Hop = hop(ColumnRole::Organisation, Organisation);
const IN_REGION: Group = Group::Parent {
    hop: REGION,
    slot: "region",
};

/// Every family, in the order of the phrasing file.
#[rustfmt::skip]
pub(super) const FAMILIES: &[Family] = &[
    lookup("person_birth_year", Person, own(ColumnRole::BirthYear)),
    lookup("person_birthplace", Person, name_via(&[BIRTHPLACE])),
    lookup("person_death_year", Person, own(ColumnRole::DeathYear)),
    lookup("org_founded", Organisation, own(ColumnRole::Founded)),
    lookup("org_founder", Organisation, name_via(&[FOUNDER])),
    lookup("org_home", Organisation, name_via(&[HOME])),
    lookup("settlement_founded", Settlement, own(ColumnRole::Founded)),
    lookup("settlement_population", Settlement, own(ColumnRole::Population)),
    lookup("work_year", Work, own(ColumnRole::Year)),
    lookup("event_host", Event, name_via(&[HOST])),
    lookup("alliance_seat", Alliance, name_via(&[HOME])),
    multi_hop("founder_birthplace", Organisation, name_via(&[FOUNDER, BIRTHPLACE])),
    multi_hop("founder_birth_year", Organisation, via(&[FOUNDER], ColumnRole::BirthYear)),
    multi_hop("founder_birth_region_population", Organisation, via(&[FOUNDER, BIRTHPLACE, REGION], ColumnRole::Population)),
    census(TaskKind::MultiHop, "home_census_population", Organisation, "org", &[HOME]),
    census(TaskKind::MultiHop, "founder_birthplace_census_population", Organisation, "org", &[FOUNDER, BIRTHPLACE]),
    multi_hop("home_population", Organisation, via(&[HOME], ColumnRole::Population)),
    multi_hop("work_maker_founder", Work, name_via(&[ORG, FOUNDER])),
    multi_hop("work_maker_home", Work, name_via(&[ORG, HOME])),
    Family {
        kind: TaskKind::MultiHop,
        name: "event_winner_founder",
        shape: Shape::Winner(Winner {
            link: Participation,
            subject: hop(ColumnRole::Event, Event),
            slot: "event",
            result: ColumnRole::Result,
            path: name_via(&[ORG, FOUNDER]),
        }),
    },
    multi_hop("work_maker_founder_birthplace", Work, name_via(&[ORG, FOUNDER, BIRTHPLACE])),
    multi_hop("work_maker_home_region_population", Work, via(&[ORG, HOME, REGION], ColumnRole::Population)),
    multi_hop("work_maker_founder_birth_region_population", Work, via(&[ORG, FOUNDER, BIRTHPLACE, REGION], ColumnRole::Population)),
    multi_hop("founder_birthplace_founded", Organisation, via(&[FOUNDER, BIRTHPLACE], ColumnRole::Founded)),
    census(TaskKind::MultiHop, "work_maker_founder_birthplace_census_population", Work, "work", &[ORG, FOUNDER, BIRTHPLACE]),
    compare("settlement_older", Settlement, ColumnRole::Founded, Order::Smallest, Pairs::Any),
    compare("settlement_larger", Settlement, ColumnRole::Population, Order::Largest, Pairs::Any),
    compare("person_older", Person, ColumnRole::BirthYear, Order::Smallest, Pairs::NamesakesFirst),
    compare("org_older", Organisation, ColumnRole::Founded, Order::Smallest, Pairs::Any),
    compare("org_more_members", Organisation, ColumnRole::MemberCount, Order::Largest, Pairs::Any),
    compare_of("settlement_oldest_of_three", Settlement, ColumnRole::Founded, Order::Smallest, Pairs::Any, 3),
    compare_of("settlement_largest_of_four", Settlement, ColumnRole::Population, Order::Largest, Pairs::Any, 4),
    compare_of("person_oldest_of_three", Person, ColumnRole::BirthYear, Order::Smallest, Pairs::Any, 3),
    compare_of("org_oldest_of_four", Organisation, ColumnRole::Founded, Order::Smallest, Pairs::Any, 4),
    compare_of("org_most_members_of_three", Organisation, ColumnRole::MemberCount, Order::Largest, Pairs::Any, 3),
    compare_of("person_oldest_of_four", Person, ColumnRole::BirthYear, Order::Smallest, Pairs::Any, 4),
    extreme("region_largest_settlement", Settlement, ColumnRole::Population, Order::Largest, IN_REGION),
    extreme("region_oldest_settlement", Settlement, ColumnRole::Founded, Order::Smallest, IN_REGION),
    Family {
        kind: TaskKind::Aggregate,
        name: "region_population_before",
        shape: Shape::SumBefore(SumBefore {
            role: Settlement,
            column: ColumnRole::Population,
            year: ColumnRole::Founded,
            group: IN_REGION,
        }),
    },
    extreme(
        "category_oldest_org",
        Organisation,
        ColumnRole::Founded,
        Order::Smallest,
        Group::Value { column: ColumnRole::Category },
    ),
    // Natives lists name notable people only, so no count is over a place's people; nor over
    // a region's organisations, a handful whose count a guesser hits.
    count("names_of_region_orgs_founded_before", Organisation, &[HOME], REGION, "region", Some(ColumnRole::Founded), Tally::Names),
    count("region_org_members", Organisation, &[HOME], REGION, "region", None, Tally::Total(ColumnRole::MemberCount)),
    Family {
        kind: TaskKind::Aggregate,
        name: "works_of_orgs_founded_before",
        shape: Shape::CountBefore(CountBefore {
            role: Work,
            hops: &[ORG],
            column: ColumnRole::Founded,
        }),
    },
    count("names_of_region_orgs", Organisation, &[HOME], REGION, "region", None, Tally::Names),
    census(TaskKind::Temporal, "census_population", Settlement, "settlement", &[]),
    Family {
        kind: TaskKind::Temporal,
        name: "seat_holder",
        shape: Shape::Term(Term {
            link: Tenure,
            subject: ORG,
            slot: "org",
            keys: &[ColumnRole::Seat],
            answer: hop(ColumnRole::Person, Person),
        }),
    },
    Family {
        kind: TaskKind::Identify,
        name: "person_by_clues",
        shape: Shape::Identify,
    },
    Family {
        kind: TaskKind::Identify,
        name: FRONTIER,
        shape: Shape::Frontier,
    },
    Family {
        kind: TaskKind::Aggregate,
        name: FRONTIER_SET,
        shape: Shape::FrontierSet,
    },
    Family {
        kind: TaskKind::Table,
        name: FRONTIER_TABLE,
        shape: Shape::FrontierTable,
    },
    wide_table(
        "settlements_in_region",
        Settlement,
        &[
            OWN_NAME,
            own(ColumnRole::Founded),
            own(ColumnRole::Population),
            own(ColumnRole::Extra),
        ],
        Rows::Group(IN_REGION),
        &["region", "extra"],
        REGION_ROWS,
    ),
    table(
        "settlements_before",
        Settlement,
        &[
            OWN_NAME,
            name_via(&[REGION]),
            own(ColumnRole::Founded),
            own(ColumnRole::Population),
        ],
        Rows::Before(ColumnRole::Founded),
        &["world", "year"],
    ),
    wide_table(
        "orgs_after",
        Organisation,
        &[
            OWN_NAME,
            name_via(&[FOUNDER]),
            own(ColumnRole::Founded),
            name_via(&[HOME]),
        ],
        Rows::After(ColumnRole::Founded),
        &["year"],
        ORG_ROWS,
    ),
    table(
        "people_by_occupation",
        Person,
        &[
            OWN_NAME,
            own(ColumnRole::BirthYear),
            name_via(&[BIRTHPLACE]),
            name_via(&[BIRTHPLACE, REGION]),
        ],
        Rows::Group(Group::Value { column: ColumnRole::Occupation }),
        &["occupation"],
    ),
    wide_table(
        "people_born_before",
        Person,
        &[
            OWN_NAME,
            own(ColumnRole::BirthYear),
            own(ColumnRole::Occupation),
            name_via(&[BIRTHPLACE]),
            name_via(&[BIRTHPLACE, REGION]),
        ],
        Rows::Before(ColumnRole::BirthYear),
        &["world", "year"],
        WIDE_ROWS,
    ),
    wide_table(
        "people_born_after",
        Person,
        &[
            OWN_NAME,
            own(ColumnRole::BirthYear),
            name_via(&[BIRTHPLACE]),
            own(ColumnRole::Occupation),
            via(&[BIRTHPLACE], ColumnRole::Population),
            name_via(&[BIRTHPLACE, REGION]),
        ],
        Rows::After(ColumnRole::BirthYear),
        &["world", "year"],
        WIDE_ROWS,
    ),
    wide_table(
        "works_after",
        Work,
        &[
            OWN_NAME,
            name_via(&[ORG]),
            own(ColumnRole::Year),
            own(ColumnRole::Extra),
        ],
        Rows::After(ColumnRole::Year),
        &["year", "extra"],
        WORK_ROWS,
    ),
    wide_table(
        "people_born_before_birthplace_region",
        Person,
        &[
            OWN_NAME,
            own(ColumnRole::BirthYear),
            name_via(&[BIRTHPLACE]),
            via(&[BIRTHPLACE], ColumnRole::Founded),
            name_via(&[BIRTHPLACE, REGION]),
            via(&[BIRTHPLACE, REGION], ColumnRole::Population),
        ],
        Rows::Before(ColumnRole::BirthYear),
        &["world", "year"],
        WIDE_ROWS,
    ),
    wide_table(
        "people_born_after_birthplace_founded",
        Person,
        &[
            OWN_NAME,
            own(ColumnRole::BirthYear),
            own(ColumnRole::Occupation),
            name_via(&[BIRTHPLACE]),
            via(&[BIRTHPLACE], ColumnRole::Founded),
            via(&[BIRTHPLACE], ColumnRole::Population),
            name_via(&[BIRTHPLACE, REGION]),
        ],
        Rows::After(ColumnRole::BirthYear),
        &["world", "year"],
        WIDE_ROWS,
    ),
    wide_table(
        "people_born_before_birthplace_extra",
        Person,
        &[
            OWN_NAME,
            own(ColumnRole::BirthYear),
            own(ColumnRole::Occupation),
            name_via(&[BIRTHPLACE]),
            via(&[BIRTHPLACE], ColumnRole::Extra),
            name_via(&[BIRTHPLACE, REGION]),
            via(&[BIRTHPLACE, REGION], ColumnRole::Population),
        ],
        Rows::Before(ColumnRole::BirthYear),
        &["world", "year", "extra"],
        WIDE_ROWS,
    ),
    wide_table(
        "orgs_before_founder",
        Organisation,
        &[
            OWN_NAME,
            own(ColumnRole::Founded),
            name_via(&[FOUNDER]),
            via(&[FOUNDER], ColumnRole::BirthYear),
            name_via(&[FOUNDER, BIRTHPLACE]),
            own(ColumnRole::MemberCount),
        ],
        Rows::Before(ColumnRole::Founded),
        &["year"],
        ORG_ROWS,
    ),
    wide_table(
        "works_after_maker",
        Work,
        &[
            OWN_NAME,
            name_via(&[ORG]),
            own(ColumnRole::Year),
            via(&[ORG], ColumnRole::Founded),
            name_via(&[ORG, HOME]),
            name_via(&[ORG, HOME, REGION]),
        ],
        Rows::After(ColumnRole::Year),
        &["year"],
        WIDE_WORK_ROWS,
    ),
    table(
        "settlements_after_region",
        Settlement,
        &[
            OWN_NAME,
            name_via(&[REGION]),
            via(&[REGION], ColumnRole::Population),
            own(ColumnRole::Founded),
            own(ColumnRole::Population),
        ],
        Rows::After(ColumnRole::Founded),
        &["world", "year"],
    ),
];
