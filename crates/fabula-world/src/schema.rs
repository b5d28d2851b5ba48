//! The SQL layout of a world: which tables and columns hold each role, and the rows as values.
//!
//! Table and column names come from the theme (`islands.area_km2`, `clubs.home_city_id`), while
//! the roles (`organisation`, `founded`, ...) are the same for every theme. Both are written into
//! the world file (`fabula_tables`, `fabula_columns`), so readers such as `fabula check` interpret
//! any world without the generator's code. The table, column and value types are those of
//! [`fabula_file`]; this module only decides which tables and columns a world has.

use fabula_file::{Column, ColumnRole, SqlType, Table, TableRole, Value};

use crate::model::{
    Alliance, AllianceMembership, Census, Event, Membership, Organisation, Participation, Person,
    Region, Settlement, Tenure, Work, World,
};
use crate::theme::{AGE, EntityShape, Extra};

/// The tables of one world.
#[derive(Debug, Clone)]
pub struct Layout {
    pub tables: Vec<Table>,
}

impl Layout {
    /// The table of a role. Panics when the world lacks that table, which is a bug in the caller.
    pub fn table(&self, role: TableRole) -> &Table {
        self.get(role)
            .unwrap_or_else(|| panic!("world has no {} table", role.as_str()))
    }

    /// The table of a role, if the world has one.
    pub fn get(&self, role: TableRole) -> Option<&Table> {
        self.tables.iter().find(|t| t.role == role)
    }
}

fn col(name: impl Into<String>, sql_type: SqlType, role: ColumnRole, label: &str) -> Column {
    Column {
        name: name.into(),
        sql_type,
        role,
        nullable: false,
        references: None,
        derived: None,
        label: label.to_string(),
    }
}

fn fk(name: impl Into<String>, role: ColumnRole, target: &str, label: &str) -> Column {
    Column {
        references: Some(target.to_string()),
        ..col(name, SqlType::Integer, role, label)
    }
}

fn nullable(mut c: Column) -> Column {
    c.nullable = true;
    c
}

fn entity_table(role: TableRole, shape: &EntityShape, mut columns: Vec<Column>) -> Table {
    let mut all = vec![
        col("id", SqlType::Integer, ColumnRole::Id, "id"),
        col("name", SqlType::Text, ColumnRole::Name, "name"),
    ];
    all.append(&mut columns);
    for extra in &shape.extras {
        let derived = ratio_rule(extra, &all);
        all.push(Column {
            derived,
            ..col(
                extra.column.clone(),
                SqlType::Integer,
                ColumnRole::Extra,
                &extra.label,
            )
        });
    }
    Table {
        role,
        name: shape.table.clone(),
        singular: shape.singular.clone(),
        plural: shape.plural.clone(),
        columns: all,
    }
}

/// The `ratio:SOURCE:LO..HI:MIN..MAX` rule of an extra drawn in proportion to another number of
/// its row, as `fabula_columns.derived_from` records it; the row's age is `present_year-COLUMN`
/// of its founding or year column, which precedes the extras.
fn ratio_rule(extra: &Extra, columns: &[Column]) -> Option<String> {
    let (per, [lo, hi]) = (extra.per.as_deref()?, extra.ratio?);
    let source = if per == AGE {
        let year = columns
            .iter()
            .find(|c| matches!(c.role, ColumnRole::Founded | ColumnRole::Year))
            .expect("the theme allows `age` only for tables with a year");
        format!("present_year-{}", year.name)
    } else {
        per.to_string()
    };
    Some(format!(
        "ratio:{source}:{lo}..{hi}:{}..{}",
        extra.min, extra.max
    ))
}

fn link_table(role: TableRole, name: &str, singular: &str, columns: Vec<Column>) -> Table {
    let mut all = vec![col("id", SqlType::Integer, ColumnRole::Id, "id")];
    all.extend(columns);
    Table {
        role,
        name: name.to_string(),
        singular: singular.to_string(),
        plural: format!("{singular}s"),
        columns: all,
    }
}

/// Computes the layout of a world from its theme and table groups.
pub fn layout(world: &World) -> Layout {
    let keys = Keys::of(world);
    let mut tables = vec![
        region_table(world),
        settlement_table(world, &keys),
        person_table(world, &keys),
        organisation_table(world, &keys),
        membership_table(world, &keys),
        tenure_table(world, &keys),
    ];
    if world.groups.works {
        tables.push(work_table(world, &keys));
    }
    if world.groups.events {
        tables.extend(event_tables(world, &keys));
    }
    if world.groups.alliances {
        tables.extend(alliance_tables(world, &keys));
    }
    if !world.censuses.is_empty() {
        tables.push(census_table(world, &keys));
    }
    Layout { tables }
}

/// The stems of the foreign-key column names that point at the core tables (`isle` in
/// `isle_id`), and the name of the membership table.
struct Keys {
    region: String,
    settlement: String,
    person: String,
    organisation: String,
    membership_table: String,
}

impl Keys {
    fn of(world: &World) -> Keys {
        let t = &world.theme;
        Keys {
            region: t.region.key_stem(),
            settlement: t.settlement.key_stem(),
            person: t.person.key_stem(),
            organisation: t.organisation.key_stem(),
            membership_table: format!("{}_members", t.organisation.table),
        }
    }
}

/// The `…_id` column that points at the world's organisation table.
fn organisation_fk(world: &World, keys: &Keys) -> Column {
    let org = &world.theme.organisation;
    fk(
        format!("{}_id", keys.organisation),
        ColumnRole::Organisation,
        &org.table,
        &org.singular,
    )
}

fn region_table(world: &World) -> Table {
    let t = &world.theme;
    entity_table(
        TableRole::Region,
        &t.region,
        vec![Column {
            derived: Some(format!("sum:{}.population", t.settlement.table)),
            ..col(
                "population",
                SqlType::Integer,
                ColumnRole::Population,
                "population",
            )
        }],
    )
}

fn settlement_table(world: &World, keys: &Keys) -> Table {
    let t = &world.theme;
    entity_table(
        TableRole::Settlement,
        &t.settlement,
        vec![
            fk(
                format!("{}_id", keys.region),
                ColumnRole::Region,
                &t.region.table,
                &t.region.singular,
            ),
            col(
                "founded_year",
                SqlType::Integer,
                ColumnRole::Founded,
                "founded",
            ),
            col(
                "population",
                SqlType::Integer,
                ColumnRole::Population,
                "population",
            ),
        ],
    )
}

fn person_table(world: &World, keys: &Keys) -> Table {
    let t = &world.theme;
    entity_table(
        TableRole::Person,
        &t.person,
        vec![
            col(
                "birth_year",
                SqlType::Integer,
                ColumnRole::BirthYear,
                "born",
            ),
            nullable(col(
                "death_year",
                SqlType::Integer,
                ColumnRole::DeathYear,
                "died",
            )),
            fk(
                format!("birth_{}_id", keys.settlement),
                ColumnRole::Birthplace,
                &t.settlement.table,
                "birthplace",
            ),
            col(
                "occupation",
                SqlType::Text,
                ColumnRole::Occupation,
                "occupation",
            ),
        ],
    )
}

fn organisation_table(world: &World, keys: &Keys) -> Table {
    let t = &world.theme;
    entity_table(
        TableRole::Organisation,
        &t.organisation,
        vec![
            col("category", SqlType::Text, ColumnRole::Category, "category"),
            fk(
                format!("home_{}_id", keys.settlement),
                ColumnRole::Home,
                &t.settlement.table,
                &format!("home {}", t.settlement.singular),
            ),
            fk(
                "founder_id",
                ColumnRole::Founder,
                &t.person.table,
                "founder",
            ),
            col(
                "founded_year",
                SqlType::Integer,
                ColumnRole::Founded,
                "founded",
            ),
            Column {
                derived: Some(format!("count:{}", keys.membership_table)),
                ..col(
                    "member_count",
                    SqlType::Integer,
                    ColumnRole::MemberCount,
                    "members",
                )
            },
        ],
    )
}

fn membership_table(world: &World, keys: &Keys) -> Table {
    let person = &world.theme.person;
    link_table(
        TableRole::Membership,
        &keys.membership_table,
        "membership",
        vec![
            fk(
                format!("{}_id", keys.person),
                ColumnRole::Person,
                &person.table,
                &person.singular,
            ),
            organisation_fk(world, keys),
            col("role", SqlType::Text, ColumnRole::MemberRole, "role"),
            col(
                "joined_year",
                SqlType::Integer,
                ColumnRole::Joined,
                "joined",
            ),
        ],
    )
}

fn tenure_table(world: &World, keys: &Keys) -> Table {
    link_table(
        TableRole::Tenure,
        &format!("{}_office_holders", keys.organisation),
        "tenure",
        vec![
            organisation_fk(world, keys),
            fk(
                format!("{}_id", keys.person),
                ColumnRole::Person,
                &world.theme.person.table,
                "holder",
            ),
            col("seat", SqlType::Text, ColumnRole::Seat, "seat"),
            col(
                "start_year",
                SqlType::Integer,
                ColumnRole::StartYear,
                "from",
            ),
            nullable(col("end_year", SqlType::Integer, ColumnRole::EndYear, "to")),
        ],
    )
}

fn work_table(world: &World, keys: &Keys) -> Table {
    let work = &world.theme.work;
    let year_column = work.year_column.clone().unwrap_or_else(|| "year".into());
    let verb = work.verb.clone().unwrap_or_default();
    entity_table(
        TableRole::Work,
        work,
        vec![
            organisation_fk(world, keys),
            col(year_column, SqlType::Integer, ColumnRole::Year, &verb),
        ],
    )
}

/// The event table and its participation table.
fn event_tables(world: &World, keys: &Keys) -> [Table; 2] {
    let t = &world.theme;
    let event = &t.event;
    let events = entity_table(
        TableRole::Event,
        event,
        vec![
            col("year", SqlType::Integer, ColumnRole::Year, "year"),
            fk(
                format!("host_{}_id", keys.settlement),
                ColumnRole::Host,
                &t.settlement.table,
                &format!("host {}", t.settlement.singular),
            ),
        ],
    );
    let result_label = t
        .participation
        .result_label
        .clone()
        .unwrap_or_else(|| "result".into());
    let participations = link_table(
        TableRole::Participation,
        &t.participation.table,
        "participation",
        vec![
            fk(
                format!("{}_id", event.key_stem()),
                ColumnRole::Event,
                &event.table,
                &event.singular,
            ),
            organisation_fk(world, keys),
            col(
                result_label.replace(' ', "_"),
                SqlType::Integer,
                ColumnRole::Result,
                &result_label,
            ),
        ],
    );
    [events, participations]
}

/// The alliance table and its membership table.
fn alliance_tables(world: &World, keys: &Keys) -> [Table; 2] {
    let t = &world.theme;
    let alliance = &t.alliance;
    let alliances = entity_table(
        TableRole::Alliance,
        alliance,
        vec![
            col(
                "founded_year",
                SqlType::Integer,
                ColumnRole::Founded,
                "founded",
            ),
            fk(
                format!("seat_{}_id", keys.settlement),
                ColumnRole::Home,
                &t.settlement.table,
                &format!("seat {}", t.settlement.singular),
            ),
        ],
    );
    let memberships = link_table(
        TableRole::AllianceMembership,
        &t.alliance_membership.table,
        "alliance membership",
        vec![
            fk(
                format!("{}_id", alliance.key_stem()),
                ColumnRole::Alliance,
                &alliance.table,
                &alliance.singular,
            ),
            organisation_fk(world, keys),
            col(
                "start_year",
                SqlType::Integer,
                ColumnRole::StartYear,
                "from",
            ),
            nullable(col("end_year", SqlType::Integer, ColumnRole::EndYear, "to")),
        ],
    );
    [alliances, memberships]
}

/// `city_censuses(id, city_id, census_year, population)`: one settlement's count at one census.
fn census_table(world: &World, keys: &Keys) -> Table {
    let s = &world.theme.settlement;
    let mut table = link_table(
        TableRole::Census,
        &format!("{}_censuses", keys.settlement),
        "census",
        vec![
            fk(
                format!("{}_id", keys.settlement),
                ColumnRole::Settlement,
                &s.table,
                &s.singular,
            ),
            col(
                "census_year",
                SqlType::Integer,
                ColumnRole::Year,
                "census year",
            ),
            col(
                "population",
                SqlType::Integer,
                ColumnRole::Population,
                "population",
            ),
        ],
    );
    table.plural = "censuses".to_string();
    table
}

fn int(v: i64) -> Value {
    Value::Int(v)
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

fn opt(v: Option<i64>) -> Value {
    v.map_or(Value::Null, Value::Int)
}

fn with_extras(mut row: Vec<Value>, extras: &[i64]) -> Vec<Value> {
    row.extend(extras.iter().copied().map(Value::Int));
    row
}

/// The rows of one table as values, in the column order of [`layout`].
pub fn table_rows(world: &World, role: TableRole) -> Vec<Vec<Value>> {
    match role {
        TableRole::Region => rows(&world.regions, region_row),
        TableRole::Settlement => rows(&world.settlements, settlement_row),
        TableRole::Person => rows(&world.people, person_row),
        TableRole::Organisation => rows(&world.organisations, organisation_row),
        TableRole::Membership => rows(&world.memberships, membership_row),
        TableRole::Tenure => rows(&world.tenures, tenure_row),
        TableRole::Work => rows(&world.works, work_row),
        TableRole::Event => rows(&world.events, event_row),
        TableRole::Participation => rows(&world.participations, participation_row),
        TableRole::Alliance => rows(&world.alliances, alliance_row),
        TableRole::AllianceMembership => rows(&world.alliance_memberships, alliance_membership_row),
        TableRole::Census => rows(&world.censuses, census_row),
    }
}

fn rows<T>(items: &[T], row: fn(&T) -> Vec<Value>) -> Vec<Vec<Value>> {
    items.iter().map(row).collect()
}

fn region_row(r: &Region) -> Vec<Value> {
    with_extras(vec![int(r.id), text(&r.name), int(r.population)], &r.extras)
}

fn settlement_row(s: &Settlement) -> Vec<Value> {
    let row = vec![
        int(s.id),
        text(&s.name),
        int(s.region),
        int(s.founded),
        int(s.population),
    ];
    with_extras(row, &s.extras)
}

fn person_row(p: &Person) -> Vec<Value> {
    vec![
        int(p.id),
        text(&p.name),
        int(p.birth_year),
        opt(p.death_year),
        int(p.birthplace),
        text(&p.occupation),
    ]
}

fn organisation_row(o: &Organisation) -> Vec<Value> {
    let row = vec![
        int(o.id),
        text(&o.name),
        text(&o.category),
        int(o.home),
        int(o.founder),
        int(o.founded),
        int(o.member_count),
    ];
    with_extras(row, &o.extras)
}

fn membership_row(m: &Membership) -> Vec<Value> {
    vec![
        int(m.id),
        int(m.person),
        int(m.organisation),
        text(&m.role),
        int(m.joined),
    ]
}

fn tenure_row(t: &Tenure) -> Vec<Value> {
    vec![
        int(t.id),
        int(t.organisation),
        int(t.person),
        text(&t.seat),
        int(t.start),
        opt(t.end),
    ]
}

fn work_row(w: &Work) -> Vec<Value> {
    with_extras(
        vec![int(w.id), text(&w.name), int(w.organisation), int(w.year)],
        &w.extras,
    )
}

fn event_row(e: &Event) -> Vec<Value> {
    vec![int(e.id), text(&e.name), int(e.year), int(e.host)]
}

fn participation_row(p: &Participation) -> Vec<Value> {
    vec![int(p.id), int(p.event), int(p.organisation), int(p.result)]
}

fn alliance_row(a: &Alliance) -> Vec<Value> {
    vec![int(a.id), text(&a.name), int(a.founded), int(a.seat)]
}

fn alliance_membership_row(m: &AllianceMembership) -> Vec<Value> {
    vec![
        int(m.id),
        int(m.alliance),
        int(m.organisation),
        int(m.start),
        opt(m.end),
    ]
}

fn census_row(c: &Census) -> Vec<Value> {
    vec![int(c.id), int(c.settlement), int(c.year), int(c.population)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate_world, theme};

    /// Lays out a world and compares each table as `role name(column:role, ...)`, one per line.
    fn check(master_seed: u64, world_id: u32, expect: &str) {
        let world = generate_world(master_seed, world_id, &theme::all().unwrap());
        let layout = layout(&world);
        let lines: Vec<String> = layout
            .tables
            .iter()
            .map(|t| {
                let columns: Vec<String> = t
                    .columns
                    .iter()
                    .map(|c| {
                        let Column {
                            name,
                            sql_type: _,
                            role,
                            nullable,
                            references,
                            derived,
                            label: _,
                        } = c;
                        let mut s = format!("{name}:{role}");
                        if *nullable {
                            s.push('?');
                        }
                        if let Some(target) = references {
                            s.push_str(&format!("->{target}"));
                        }
                        if let Some(rule) = derived {
                            s.push_str(&format!("={rule}"));
                        }
                        s
                    })
                    .collect();
                format!("{} {}({})", t.role.as_str(), t.name, columns.join(", "))
            })
            .collect();
        assert_eq!(lines.join("\n"), expect.trim());
        // Every row has one value per column, in column order.
        for table in &layout.tables {
            for row in table_rows(&world, table.role) {
                assert_eq!(row.len(), table.columns.len(), "{}", table.name);
            }
        }
    }

    /// A guild world with alliances (a tithe drawn per inhabitant) and a research world with all
    /// twelve tables: works (citations drawn per year of age, an endowment per member), events,
    /// alliances and censuses.
    #[test]
    fn layouts_name_every_role() {
        check(
            123,
            1,
            r"
region provinces(id:id, name:name, population:population=sum:market_towns.population, tithe_crowns:extra=ratio:population:0.3..2:500..300000)
settlement market_towns(id:id, name:name, province_id:region->provinces, founded_year:founded, population:population, market_days:extra)
person artisans(id:id, name:name, birth_year:birth_year, death_year:death_year?, birth_market_town_id:birthplace->market_towns, occupation:occupation)
organisation guilds(id:id, name:name, category:category, home_market_town_id:home->market_towns, founder_id:founder->artisans, founded_year:founded, member_count:member_count=count:guilds_members, hall_capacity:extra)
membership guilds_members(id:id, artisan_id:person->artisans, guild_id:organisation->guilds, role:member_role, joined_year:joined)
tenure guild_office_holders(id:id, guild_id:organisation->guilds, artisan_id:person->artisans, seat:seat, start_year:start_year, end_year:end_year?)
alliance guild_leagues(id:id, name:name, founded_year:founded, seat_market_town_id:home->market_towns)
alliance_membership guild_league_members(id:id, guild_league_id:alliance->guild_leagues, guild_id:organisation->guilds, start_year:start_year, end_year:end_year?)
",
        );
        check(
            7,
            0,
            r"
region provinces(id:id, name:name, population:population=sum:campus_towns.population, research_budget:extra=ratio:population:2..25:10000..9000000)
settlement campus_towns(id:id, name:name, province_id:region->provinces, founded_year:founded, population:population, libraries:extra)
person scholars(id:id, name:name, birth_year:birth_year, death_year:death_year?, birth_campus_town_id:birthplace->campus_towns, occupation:occupation)
organisation institutes(id:id, name:name, category:category, home_campus_town_id:home->campus_towns, founder_id:founder->scholars, founded_year:founded, member_count:member_count=count:institutes_members, endowment:extra=ratio:member_count:5000..250000:5000..4000000)
membership institutes_members(id:id, scholar_id:person->scholars, institute_id:organisation->institutes, role:member_role, joined_year:joined)
tenure institute_office_holders(id:id, institute_id:organisation->institutes, scholar_id:person->scholars, seat:seat, start_year:start_year, end_year:end_year?)
work discoveries(id:id, name:name, institute_id:organisation->institutes, published_year:year, citations:extra=ratio:present_year-published_year:0.5..40:0..9000)
event symposia(id:id, name:name, year:year, host_campus_town_id:host->campus_towns)
participation symposium_delegations(id:id, symposium_id:event->symposia, institute_id:organisation->institutes, session_order:result)
alliance consortia(id:id, name:name, founded_year:founded, seat_campus_town_id:home->campus_towns)
alliance_membership consortium_members(id:id, consortium_id:alliance->consortia, institute_id:organisation->institutes, start_year:start_year, end_year:end_year?)
census campus_town_censuses(id:id, campus_town_id:settlement->campus_towns, census_year:year, population:population)
",
        );
    }
}
