//! The SQL layout of a world: which tables and columns hold each role, and the rows as values.
//!
//! Table and column names come from the theme (`islands.area_km2`, `clubs.home_city_id`), while
//! the roles (`organisation`, `founded`, ...) are the same for every theme. Both are written into
//! the world file (`fabula_tables`, `fabula_columns`), so readers such as `fabula check` interpret
//! any world without the generator's code.

use crate::model::World;
use crate::theme::EntityShape;

/// The role a table plays in every world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TableRole {
    Region,
    Settlement,
    Person,
    Organisation,
    Membership,
    Tenure,
    Work,
    Event,
    Participation,
    Alliance,
    AllianceMembership,
}

impl TableRole {
    /// Every role, in the order tables are created.
    pub const ALL: [TableRole; 11] = [
        TableRole::Region,
        TableRole::Settlement,
        TableRole::Person,
        TableRole::Organisation,
        TableRole::Membership,
        TableRole::Tenure,
        TableRole::Work,
        TableRole::Event,
        TableRole::Participation,
        TableRole::Alliance,
        TableRole::AllianceMembership,
    ];

    /// The role's name as stored in `fabula_tables.role`.
    pub fn as_str(self) -> &'static str {
        match self {
            TableRole::Region => "region",
            TableRole::Settlement => "settlement",
            TableRole::Person => "person",
            TableRole::Organisation => "organisation",
            TableRole::Membership => "membership",
            TableRole::Tenure => "tenure",
            TableRole::Work => "work",
            TableRole::Event => "event",
            TableRole::Participation => "participation",
            TableRole::Alliance => "alliance",
            TableRole::AllianceMembership => "alliance_membership",
        }
    }

    /// Parses a stored role name.
    pub fn parse(s: &str) -> Option<TableRole> {
        TableRole::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Whether rows of this role are named entities (as opposed to links between them).
    pub fn is_entity(self) -> bool {
        matches!(
            self,
            TableRole::Region
                | TableRole::Settlement
                | TableRole::Person
                | TableRole::Organisation
                | TableRole::Work
                | TableRole::Event
                | TableRole::Alliance
        )
    }
}

/// The SQL type of a column; every table is STRICT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlType {
    Integer,
    Text,
}

impl SqlType {
    pub fn as_str(self) -> &'static str {
        match self {
            SqlType::Integer => "INTEGER",
            SqlType::Text => "TEXT",
        }
    }
}

/// One column of a domain table.
#[derive(Debug, Clone)]
pub struct ColumnDef {
    pub name: String,
    pub sql_type: SqlType,
    /// What the column means in every theme: `id`, `name`, `founded`, `founder`, `extra`, ...
    pub role: &'static str,
    pub nullable: bool,
    /// The table a foreign key points at.
    pub references: Option<String>,
    /// How a derived column is computed: `sum:TABLE.COLUMN` or `count:TABLE`.
    pub derived: Option<String>,
    /// A human label for pages and overviews ("area (km²)").
    pub label: String,
}

/// One domain table.
#[derive(Debug, Clone)]
pub struct TableDef {
    pub role: TableRole,
    pub name: String,
    pub singular: String,
    pub plural: String,
    pub columns: Vec<ColumnDef>,
}

impl TableDef {
    /// The column with a role. Panics when the role is not one this table has, which is a bug.
    pub fn column(&self, role: &str) -> &ColumnDef {
        self.columns
            .iter()
            .find(|c| c.role == role)
            .unwrap_or_else(|| panic!("table {} has no `{role}` column", self.name))
    }

    /// The CREATE TABLE statement.
    pub fn create_sql(&self) -> String {
        let mut parts = Vec::new();
        for c in &self.columns {
            let mut part = format!("{} {}", c.name, c.sql_type.as_str());
            if c.role == "id" {
                part.push_str(" PRIMARY KEY");
            } else if !c.nullable {
                part.push_str(" NOT NULL");
            }
            if c.role == "name" {
                part.push_str(" UNIQUE");
            }
            if let Some(target) = &c.references {
                part.push_str(&format!(" REFERENCES {target}(id)"));
            }
            parts.push(part);
        }
        format!(
            "CREATE TABLE {} (\n  {}\n) STRICT",
            self.name,
            parts.join(",\n  ")
        )
    }
}

/// A cell value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Text(String),
    Null,
}

/// The tables of one world.
#[derive(Debug, Clone)]
pub struct Layout {
    pub tables: Vec<TableDef>,
}

impl Layout {
    /// The table of a role. Panics when the world lacks that table, which is a bug in the caller.
    pub fn table(&self, role: TableRole) -> &TableDef {
        self.get(role)
            .unwrap_or_else(|| panic!("world has no {} table", role.as_str()))
    }

    /// The table of a role, if the world has one.
    pub fn get(&self, role: TableRole) -> Option<&TableDef> {
        self.tables.iter().find(|t| t.role == role)
    }
}

fn col(name: impl Into<String>, sql_type: SqlType, role: &'static str, label: &str) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        sql_type,
        role,
        nullable: false,
        references: None,
        derived: None,
        label: label.to_string(),
    }
}

fn fk(name: impl Into<String>, role: &'static str, target: &str, label: &str) -> ColumnDef {
    ColumnDef {
        references: Some(target.to_string()),
        ..col(name, SqlType::Integer, role, label)
    }
}

fn nullable(mut c: ColumnDef) -> ColumnDef {
    c.nullable = true;
    c
}

fn entity_table(role: TableRole, shape: &EntityShape, mut columns: Vec<ColumnDef>) -> TableDef {
    let mut all = vec![
        col("id", SqlType::Integer, "id", "id"),
        col("name", SqlType::Text, "name", "name"),
    ];
    all.append(&mut columns);
    for extra in &shape.extras {
        all.push(col(
            extra.column.clone(),
            SqlType::Integer,
            "extra",
            &extra.label,
        ));
    }
    TableDef {
        role,
        name: shape.table.clone(),
        singular: shape.singular.clone(),
        plural: shape.plural.clone(),
        columns: all,
    }
}

fn link_table(role: TableRole, name: &str, singular: &str, columns: Vec<ColumnDef>) -> TableDef {
    let mut all = vec![col("id", SqlType::Integer, "id", "id")];
    all.extend(columns);
    TableDef {
        role,
        name: name.to_string(),
        singular: singular.to_string(),
        plural: format!("{singular}s"),
        columns: all,
    }
}

/// Computes the layout of a world from its theme and table groups.
pub fn layout(world: &World) -> Layout {
    let t = &world.theme;
    let (region, settlement, person, org) = (&t.region, &t.settlement, &t.person, &t.organisation);
    let (rs, ss, ps, os) = (
        region.key_stem(),
        settlement.key_stem(),
        person.key_stem(),
        org.key_stem(),
    );
    let membership_table = format!("{}_members", org.table);
    let mut tables = vec![
        entity_table(
            TableRole::Region,
            region,
            vec![ColumnDef {
                derived: Some(format!("sum:{}.population", settlement.table)),
                ..col("population", SqlType::Integer, "population", "population")
            }],
        ),
        entity_table(
            TableRole::Settlement,
            settlement,
            vec![
                fk(
                    format!("{rs}_id"),
                    "region",
                    &region.table,
                    &region.singular,
                ),
                col("founded_year", SqlType::Integer, "founded", "founded"),
                col("population", SqlType::Integer, "population", "population"),
            ],
        ),
        entity_table(
            TableRole::Person,
            person,
            vec![
                col("birth_year", SqlType::Integer, "birth_year", "born"),
                nullable(col("death_year", SqlType::Integer, "death_year", "died")),
                fk(
                    format!("birth_{ss}_id"),
                    "birthplace",
                    &settlement.table,
                    "birthplace",
                ),
                col("occupation", SqlType::Text, "occupation", "occupation"),
            ],
        ),
        entity_table(
            TableRole::Organisation,
            org,
            vec![
                col("category", SqlType::Text, "category", "category"),
                fk(
                    format!("home_{ss}_id"),
                    "home",
                    &settlement.table,
                    &format!("home {}", settlement.singular),
                ),
                fk("founder_id", "founder", &person.table, "founder"),
                col("founded_year", SqlType::Integer, "founded", "founded"),
                ColumnDef {
                    derived: Some(format!("count:{membership_table}")),
                    ..col("member_count", SqlType::Integer, "member_count", "members")
                },
            ],
        ),
    ];
    tables.push(link_table(
        TableRole::Membership,
        &membership_table,
        "membership",
        vec![
            fk(
                format!("{ps}_id"),
                "person",
                &person.table,
                &person.singular,
            ),
            fk(
                format!("{os}_id"),
                "organisation",
                &org.table,
                &org.singular,
            ),
            col("role", SqlType::Text, "member_role", "role"),
            col("joined_year", SqlType::Integer, "joined", "joined"),
        ],
    ));
    tables.push(link_table(
        TableRole::Tenure,
        &format!("{}_office_holders", os),
        "tenure",
        vec![
            fk(
                format!("{os}_id"),
                "organisation",
                &org.table,
                &org.singular,
            ),
            fk(format!("{ps}_id"), "person", &person.table, "holder"),
            col("seat", SqlType::Text, "seat", "seat"),
            col("start_year", SqlType::Integer, "start_year", "from"),
            nullable(col("end_year", SqlType::Integer, "end_year", "to")),
        ],
    ));
    if world.groups.works {
        let work = &t.work;
        let year_column = work.year_column.clone().unwrap_or_else(|| "year".into());
        let verb = work.verb.clone().unwrap_or_default();
        tables.push(entity_table(
            TableRole::Work,
            work,
            vec![
                fk(
                    format!("{os}_id"),
                    "organisation",
                    &org.table,
                    &org.singular,
                ),
                col(year_column, SqlType::Integer, "year", &verb),
            ],
        ));
    }
    if world.groups.events {
        let event = &t.event;
        tables.push(entity_table(
            TableRole::Event,
            event,
            vec![
                col("year", SqlType::Integer, "year", "year"),
                fk(
                    format!("host_{ss}_id"),
                    "host",
                    &settlement.table,
                    &format!("host {}", settlement.singular),
                ),
            ],
        ));
        let result_label = t
            .participation
            .result_label
            .clone()
            .unwrap_or_else(|| "result".into());
        tables.push(link_table(
            TableRole::Participation,
            &t.participation.table,
            "participation",
            vec![
                fk(
                    format!("{}_id", event.key_stem()),
                    "event",
                    &event.table,
                    &event.singular,
                ),
                fk(
                    format!("{os}_id"),
                    "organisation",
                    &org.table,
                    &org.singular,
                ),
                col(
                    result_label.replace(' ', "_"),
                    SqlType::Integer,
                    "result",
                    &result_label,
                ),
            ],
        ));
    }
    if world.groups.alliances {
        let alliance = &t.alliance;
        tables.push(entity_table(
            TableRole::Alliance,
            alliance,
            vec![
                col("founded_year", SqlType::Integer, "founded", "founded"),
                fk(
                    format!("seat_{ss}_id"),
                    "home",
                    &settlement.table,
                    &format!("seat {}", settlement.singular),
                ),
            ],
        ));
        tables.push(link_table(
            TableRole::AllianceMembership,
            &t.alliance_membership.table,
            "alliance membership",
            vec![
                fk(
                    format!("{}_id", alliance.key_stem()),
                    "alliance",
                    &alliance.table,
                    &alliance.singular,
                ),
                fk(
                    format!("{os}_id"),
                    "organisation",
                    &org.table,
                    &org.singular,
                ),
                col("start_year", SqlType::Integer, "start_year", "from"),
                nullable(col("end_year", SqlType::Integer, "end_year", "to")),
            ],
        ));
    }
    Layout { tables }
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
        TableRole::Region => world
            .regions
            .iter()
            .map(|r| with_extras(vec![int(r.id), text(&r.name), int(r.population)], &r.extras))
            .collect(),
        TableRole::Settlement => world
            .settlements
            .iter()
            .map(|s| {
                let row = vec![
                    int(s.id),
                    text(&s.name),
                    int(s.region),
                    int(s.founded),
                    int(s.population),
                ];
                with_extras(row, &s.extras)
            })
            .collect(),
        TableRole::Person => world
            .people
            .iter()
            .map(|p| {
                vec![
                    int(p.id),
                    text(&p.name),
                    int(p.birth_year),
                    opt(p.death_year),
                    int(p.birthplace),
                    text(&p.occupation),
                ]
            })
            .collect(),
        TableRole::Organisation => world
            .organisations
            .iter()
            .map(|o| {
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
            })
            .collect(),
        TableRole::Membership => world
            .memberships
            .iter()
            .map(|m| {
                vec![
                    int(m.id),
                    int(m.person),
                    int(m.organisation),
                    text(&m.role),
                    int(m.joined),
                ]
            })
            .collect(),
        TableRole::Tenure => world
            .tenures
            .iter()
            .map(|t| {
                vec![
                    int(t.id),
                    int(t.organisation),
                    int(t.person),
                    text(&t.seat),
                    int(t.start),
                    opt(t.end),
                ]
            })
            .collect(),
        TableRole::Work => world
            .works
            .iter()
            .map(|w| {
                with_extras(
                    vec![int(w.id), text(&w.name), int(w.organisation), int(w.year)],
                    &w.extras,
                )
            })
            .collect(),
        TableRole::Event => world
            .events
            .iter()
            .map(|e| vec![int(e.id), text(&e.name), int(e.year), int(e.host)])
            .collect(),
        TableRole::Participation => world
            .participations
            .iter()
            .map(|p| vec![int(p.id), int(p.event), int(p.organisation), int(p.result)])
            .collect(),
        TableRole::Alliance => world
            .alliances
            .iter()
            .map(|a| vec![int(a.id), text(&a.name), int(a.founded), int(a.seat)])
            .collect(),
        TableRole::AllianceMembership => world
            .alliance_memberships
            .iter()
            .map(|m| {
                vec![
                    int(m.id),
                    int(m.alliance),
                    int(m.organisation),
                    int(m.start),
                    opt(m.end),
                ]
            })
            .collect(),
    }
}
