//! The plausibility rules of `fabula check`: people act at the ages their theme allows, nobody
//! holds two offices of one title at once or more offices at once than the theme allows, and
//! numbers drawn in proportion to another number of their row keep their ratio. The limits come
//! from the file (the `limit.*` rows of `fabula_meta`, read as [`Limits`], and the `ratio:` rules
//! of `fabula_columns`); each rule is SQL over the roles the file declares and returns the ids of
//! the offending rows. A file that records no limits is held to the title rule and its ratios only.

use fabula_file::{AgeRange, ColumnRole, Limits, Table, TableRole, WorldFile};

use super::{Checked, Violation, ids_of, q, sql_str};

/// One rule as a query that returns the ids of the offending rows.
struct Rule {
    table: String,
    rule: &'static str,
    detail: String,
    sql: String,
}

/// Runs every plausibility rule on one world file.
pub(super) fn check_plausible(
    w: &Checked<'_>,
    file: &WorldFile,
    present: i64,
    out: &mut Vec<Violation>,
) {
    let limits = match file.meta_rows().map(|rows| Limits::from_rows(&rows)) {
        Ok(Ok(limits)) => limits,
        Ok(Err(reason)) => {
            out.push(w.violation("fabula_meta", None, "meta", &reason));
            None
        }
        Err(e) => {
            out.push(w.violation("fabula_meta", None, "format", &e.to_string()));
            None
        }
    };
    let mut rules = Vec::new();
    if let Some(people) = People::of(w) {
        if let Some(limits) = &limits {
            age_rules(&people, limits, &mut rules);
        }
        office_rules(&people, limits.as_ref(), &mut rules);
    }
    for table in &w.roles.tables {
        for column in &table.columns {
            let Some(rule) = column
                .derived
                .as_deref()
                .and_then(|r| r.strip_prefix("ratio:"))
            else {
                continue;
            };
            match ratio_rule(table, &column.name, rule, present) {
                Some(rule) => rules.push(rule),
                None => {
                    let detail = format!("cannot read rule `ratio:{rule}`");
                    out.push(w.violation(&table.name, None, "ratio", &detail));
                }
            }
        }
    }
    for rule in rules {
        match ids_of(w.conn, &rule.sql) {
            Ok(ids) => {
                for id in ids {
                    out.push(w.violation(&rule.table, Some(id), rule.rule, &rule.detail));
                }
            }
            Err(e) => out.push(w.query_failed(&e)),
        }
    }
}

/// A column of a role, quoted.
fn col(table: &Table, role: ColumnRole) -> Option<String> {
    table.get(role).map(|c| q(&c.name))
}

/// The person table and the tables that say what people did, with the quoted columns the rules
/// join on; a table the world lacks, or one without the columns a rule needs, is `None`.
struct People<'a> {
    /// The quoted person table and its birth year column.
    pt: String,
    birth: String,
    /// Organisations with their founder and founding year columns.
    founding: Option<(&'a Table, String, String)>,
    /// Memberships with their person and joining year columns.
    joining: Option<(&'a Table, String, String)>,
    tenure: Option<Tenures<'a>>,
}

/// The tenure table and its quoted person, seat, start and end columns.
struct Tenures<'a> {
    table: &'a Table,
    person: String,
    seat: String,
    start: String,
    end: String,
}

impl<'a> People<'a> {
    fn of(w: &'a Checked<'_>) -> Option<People<'a>> {
        let person = w.roles.table(TableRole::Person)?;
        let founding = w.roles.table(TableRole::Organisation).and_then(|t| {
            Some((
                t,
                col(t, ColumnRole::Founder)?,
                col(t, ColumnRole::Founded)?,
            ))
        });
        let joining = w
            .roles
            .table(TableRole::Membership)
            .and_then(|t| Some((t, col(t, ColumnRole::Person)?, col(t, ColumnRole::Joined)?)));
        let tenure = w.roles.table(TableRole::Tenure).and_then(|table| {
            Some(Tenures {
                table,
                person: col(table, ColumnRole::Person)?,
                seat: col(table, ColumnRole::Seat)?,
                start: col(table, ColumnRole::StartYear)?,
                end: col(table, ColumnRole::EndYear)?,
            })
        });
        Some(People {
            pt: q(&person.name),
            birth: col(person, ColumnRole::BirthYear)?,
            founding,
            joining,
            tenure,
        })
    }
}

/// Founders, members and office holders are of the theme's age when they act.
fn age_rules(c: &People<'_>, limits: &Limits, rules: &mut Vec<Rule>) {
    let People { pt, birth, .. } = c;
    let outside = |age: &str, r: AgeRange| format!("({age} < {} OR {age} > {})", r.min, r.max);
    if let Some((t, founder, founded)) = &c.founding {
        let age = format!("o.{founded} - p.{birth}");
        rules.push(Rule {
            table: t.name.clone(),
            rule: "age.founder",
            detail: format!(
                "founder's age at the founding outside {}",
                limits.founder_age
            ),
            sql: format!(
                "SELECT o.id FROM {} o JOIN {pt} p ON p.id = o.{founder} WHERE {}",
                q(&t.name),
                outside(&age, limits.founder_age)
            ),
        });
    }
    if let Some((t, person, joined)) = &c.joining {
        let age = format!("m.{joined} - p.{birth}");
        rules.push(Rule {
            table: t.name.clone(),
            rule: "age.member",
            detail: format!("member's age on joining outside {}", limits.member_age),
            sql: format!(
                "SELECT m.id FROM {} m JOIN {pt} p ON p.id = m.{person} WHERE {}",
                q(&t.name),
                outside(&age, limits.member_age)
            ),
        });
    }
    if let Some(t) = &c.tenure {
        rules.push(office_age_rule(c, t, limits));
    }
}

/// A holder's age when a term starts lies in its seat's range; a seat without one is an error.
fn office_age_rule(c: &People<'_>, t: &Tenures<'_>, limits: &Limits) -> Rule {
    let People { pt, birth, .. } = c;
    let ranges: Vec<String> = limits
        .office_age
        .iter()
        .map(|(seat, r)| format!("({}, {}, {})", sql_str(seat), r.min, r.max))
        .collect();
    let table = q(&t.table.name);
    let (person, seat, start) = (&t.person, &t.seat, &t.start);
    let sql = if ranges.is_empty() {
        format!("SELECT id FROM {table}")
    } else {
        format!(
            "WITH ages(seat, lo, hi) AS (VALUES {})
             SELECT t.id FROM {table} t JOIN {pt} p ON p.id = t.{person}
             LEFT JOIN ages a ON a.seat = t.{seat}
             WHERE a.seat IS NULL OR t.{start} - p.{birth} < a.lo OR t.{start} - p.{birth} > a.hi",
            ranges.join(", ")
        )
    };
    let detail = "holder's age at the start of the term outside the range of its seat";
    Rule {
        table: t.table.name.clone(),
        rule: "age.office",
        detail: detail.to_string(),
        sql,
    }
}

/// One person never holds two offices of one title at once (in any organisations), nor more
/// offices at once than the theme allows. Terms are half-open: one ending in a year and another
/// starting in it do not overlap.
fn office_rules(c: &People<'_>, limits: Option<&Limits>, rules: &mut Vec<Rule>) {
    let Some(t) = &c.tenure else {
        return;
    };
    let table = q(&t.table.name);
    let (person, seat, start, end) = (&t.person, &t.seat, &t.start, &t.end);
    rules.push(Rule {
        table: t.table.name.clone(),
        rule: "offices.same_title",
        detail: "holder holds another office of the same title at the same time".to_string(),
        sql: format!(
            "SELECT DISTINCT b.id FROM {table} a JOIN {table} b
               ON a.{person} = b.{person} AND a.{seat} = b.{seat} AND a.id < b.id
             WHERE b.{start} < COALESCE(a.{end}, 1e18) AND a.{start} < COALESCE(b.{end}, 1e18)
             ORDER BY b.id"
        ),
    });
    let Some(limits) = limits else {
        return;
    };
    // The most terms held at once is reached where one of them starts.
    let n = limits.offices_at_once;
    rules.push(Rule {
        table: t.table.name.clone(),
        rule: "offices.at_once",
        detail: format!("holder holds more than {n} offices at once when this term starts"),
        sql: format!(
            "SELECT a.id FROM {table} a
             WHERE (SELECT count(*) FROM {table} b WHERE b.{person} = a.{person}
                    AND b.{start} <= a.{start} AND a.{start} < COALESCE(b.{end}, 1e18)) > {n}
             ORDER BY a.id"
        ),
    });
}

/// The query of a `ratio:SOURCE:LO..HI:MIN..MAX` rule (given without its `ratio:`): the value lies
/// in `MIN..=MAX`, and within rounding of SOURCE times `LO..=HI`, except that a value raised to
/// MIN may exceed it and one lowered to MAX may fall short of it. `None` when the rule cannot be
/// read or names a column the table lacks.
fn ratio_rule(table: &Table, column: &str, rule: &str, present: i64) -> Option<Rule> {
    let mut parts = rule.split(':');
    let (source, ratio, bounds) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (lo, hi) = ratio.split_once("..")?;
    let (lo, hi): (f64, f64) = (lo.parse().ok()?, hi.parse().ok()?);
    let (min, max) = bounds.split_once("..")?;
    let (min, max): (i64, i64) = (min.parse().ok()?, max.parse().ok()?);
    let has = |name: &str| table.columns.iter().any(|c| c.name == name);
    let source = match source.strip_prefix("present_year-") {
        Some(year) if has(year) => format!("({present} - {})", q(year)),
        None if has(source) => q(source),
        _ => return None,
    };
    let v = q(column);
    // Rounding moves a value by at most a half; the margin absorbs floating point error.
    let sql = format!(
        "SELECT id FROM {} WHERE {v} < {min} OR {v} > {max}
           OR ({v} < {max} AND {v} < {source} * {lo} - 0.500001)
           OR ({v} > {min} AND {v} > {source} * {hi} + 0.500001)
         ORDER BY id",
        q(&table.name)
    );
    Some(Rule {
        table: table.name.clone(),
        rule: "ratio",
        detail: format!("{column} breaks its rule ratio:{rule}"),
        sql,
    })
}
