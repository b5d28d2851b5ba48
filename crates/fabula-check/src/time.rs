//! The time rules of `fabula check`: years within range, things in time order across the tables
//! that join them, and terms of one seat that do not overlap. Each rule is SQL over the roles the
//! world file declares and returns the ids of the offending rows.

use fabula_file::{ColumnRole, Table, TableRole};

use super::{Checked, Roles, Violation, ids_of, q};

/// One rule as a query that returns the ids of the offending rows.
struct TimeRule {
    table: String,
    rule: &'static str,
    detail: &'static str,
    sql: String,
}

fn rule(table: &str, rule: &'static str, detail: &'static str, sql: String) -> TimeRule {
    TimeRule {
        table: table.to_string(),
        rule,
        detail,
        sql,
    }
}

/// Runs every time order and range rule.
pub(super) fn check_time(w: &Checked<'_>, present: i64, out: &mut Vec<Violation>) {
    for rule in time_rules(&w.roles, present) {
        match ids_of(w.conn, &rule.sql) {
            Ok(ids) => {
                for id in ids {
                    out.push(w.violation(&rule.table, Some(id), rule.rule, rule.detail));
                }
            }
            Err(e) => out.push(w.query_failed(&e)),
        }
    }
}

/// The time order and range rules, as SQL over the roles the file declares.
fn time_rules(roles: &Roles, present: i64) -> Vec<TimeRule> {
    let mut rules = range_rules(roles, present);
    let Some(core) = Core::of(roles) else {
        return rules;
    };
    person_rules(&core, present, &mut rules);
    census_rules(roles, &core, present, &mut rules);
    let Some(founding) = &core.founding else {
        return rules;
    };
    organisation_rules(&core, founding, &mut rules);
    membership_rules(roles, &core, founding, &mut rules);
    tenure_rules(roles, &core, founding, &mut rules);
    work_rules(roles, &core, founding, &mut rules);
    event_rules(roles, &core, founding, &mut rules);
    alliance_rules(roles, &core, founding, &mut rules);
    rules
}

/// A column of a role, quoted.
fn col(table: &Table, role: ColumnRole) -> Option<String> {
    table.get(role).map(|c| q(&c.name))
}

/// Nothing happens after the present year, or absurdly long before it; populations, counts and
/// placings are in range.
fn range_rules(roles: &Roles, present: i64) -> Vec<TimeRule> {
    let mut rules = Vec::new();
    let oldest = present.saturating_sub(2000);
    for table in &roles.tables {
        let (name, t) = (table.name.as_str(), q(&table.name));
        for c in &table.columns {
            let c_q = q(&c.name);
            if ColumnRole::YEARS.contains(&c.role) {
                rules.push(rule(
                    name,
                    "time.future",
                    "a year lies after present_year",
                    format!("SELECT id FROM {t} WHERE {c_q} > {present}"),
                ));
                rules.push(rule(
                    name,
                    "range.year",
                    "a year lies over 2,000 years before present_year",
                    format!("SELECT id FROM {t} WHERE {c_q} < {oldest}"),
                ));
            }
            if c.role == ColumnRole::Extra {
                rules.push(rule(
                    name,
                    "range.extra",
                    "negative count or amount",
                    format!("SELECT id FROM {t} WHERE {c_q} < 0"),
                ));
            }
        }
        if let Some(c) = col(table, ColumnRole::Population) {
            rules.push(rule(
                name,
                "range.population",
                "population outside 1..=100,000,000",
                format!("SELECT id FROM {t} WHERE {c} < 1 OR {c} > 100000000"),
            ));
        }
        if let Some(c) = col(table, ColumnRole::Result) {
            rules.push(rule(
                name,
                "range.result",
                "placing below 1",
                format!("SELECT id FROM {t} WHERE {c} < 1"),
            ));
        }
    }
    rules
}

/// The tables and quoted columns the cross-table rules join on: people with their birth, death
/// and birthplace, settlements with their founding year, and organisations.
struct Core<'a> {
    person: &'a Table,
    org: &'a Table,
    /// Quoted names of the person, settlement and organisation tables.
    pt: String,
    st: String,
    ot: String,
    birth: String,
    death: String,
    place: String,
    sfounded: String,
    /// The organisation columns every later rule needs, if the table has them all.
    founding: Option<Founding>,
}

/// An organisation's founder, founding year and home settlement columns, quoted.
struct Founding {
    founder: String,
    founded: String,
    home: String,
}

impl<'a> Core<'a> {
    fn of(roles: &'a Roles) -> Option<Core<'a>> {
        let person = roles.table(TableRole::Person)?;
        let settlement = roles.table(TableRole::Settlement)?;
        let org = roles.table(TableRole::Organisation)?;
        let founding = match (
            col(org, ColumnRole::Founder),
            col(org, ColumnRole::Founded),
            col(org, ColumnRole::Home),
        ) {
            (Some(founder), Some(founded), Some(home)) => Some(Founding {
                founder,
                founded,
                home,
            }),
            _ => None,
        };
        Some(Core {
            birth: col(person, ColumnRole::BirthYear)?,
            death: col(person, ColumnRole::DeathYear)?,
            place: col(person, ColumnRole::Birthplace)?,
            sfounded: col(settlement, ColumnRole::Founded)?,
            pt: q(&person.name),
            st: q(&settlement.name),
            ot: q(&org.name),
            person,
            org,
            founding,
        })
    }
}

/// People live at most 110 years and are born where a settlement already stands.
fn person_rules(c: &Core<'_>, present: i64, rules: &mut Vec<TimeRule>) {
    let Core {
        pt,
        st,
        birth,
        death,
        place,
        sfounded,
        ..
    } = c;
    let person = c.person.name.as_str();
    rules.push(rule(
        person,
        "time.order",
        "died before being born, or lived over 110 years",
        format!(
            "SELECT id FROM {pt} WHERE {death} IS NOT NULL AND ({death} < {birth} OR {death} - {birth} > 110)"
        ),
    ));
    rules.push(rule(
        person,
        "time.order",
        "still alive at over 110 years",
        format!("SELECT id FROM {pt} WHERE {death} IS NULL AND {present} - {birth} > 110"),
    ));
    rules.push(rule(
        person,
        "time.birthplace",
        "born before the birthplace was founded",
        format!(
            "SELECT p.id FROM {pt} p JOIN {st} s ON s.id = p.{place} WHERE p.{birth} < s.{sfounded}"
        ),
    ));
}

/// Organisations are founded by living adults, in a settlement that already stands.
fn organisation_rules(c: &Core<'_>, f: &Founding, rules: &mut Vec<TimeRule>) {
    let Core {
        pt,
        st,
        ot,
        birth,
        death,
        sfounded,
        ..
    } = c;
    let Founding {
        founder,
        founded,
        home,
    } = f;
    let org = c.org.name.as_str();
    rules.push(rule(
        org,
        "time.founder",
        "founder not an adult or not alive at the founding",
        format!(
            "SELECT o.id FROM {ot} o JOIN {pt} p ON p.id = o.{founder}
                         WHERE o.{founded} < p.{birth} + 18 OR (p.{death} IS NOT NULL AND o.{founded} > p.{death})"
        ),
    ));
    rules.push(rule(
        org,
        "time.founded",
        "founded before its home settlement",
        format!(
            "SELECT o.id FROM {ot} o JOIN {st} s ON s.id = o.{home} WHERE o.{founded} < s.{sfounded}"
        ),
    ));
}

/// Members join after the founding, as adolescents or older, and while alive.
fn membership_rules(roles: &Roles, c: &Core<'_>, f: &Founding, rules: &mut Vec<TimeRule>) {
    let Some(m) = roles.table(TableRole::Membership) else {
        return;
    };
    let (Some(mp), Some(mo), Some(joined)) = (
        col(m, ColumnRole::Person),
        col(m, ColumnRole::Organisation),
        col(m, ColumnRole::Joined),
    ) else {
        return;
    };
    let Core {
        pt,
        ot,
        birth,
        death,
        ..
    } = c;
    let founded = &f.founded;
    rules.push(rule(
        &m.name,
        "time.membership",
        "joined before the founding, as a child, or after death",
        format!(
            "SELECT m.id FROM {} m JOIN {ot} o ON o.id = m.{mo} JOIN {pt} p ON p.id = m.{mp}
                                 WHERE m.{joined} < o.{founded} OR m.{joined} < p.{birth} + 14
                                 OR (p.{death} IS NOT NULL AND m.{joined} > p.{death})",
            q(&m.name)
        ),
    ));
}

/// Terms start after the founding with an adult holder, end after they start, and end by the
/// holder's death.
fn tenure_rules(roles: &Roles, c: &Core<'_>, f: &Founding, rules: &mut Vec<TimeRule>) {
    let Some(t) = roles.table(TableRole::Tenure) else {
        return;
    };
    let (Some(tp), Some(to), Some(start), Some(end)) = (
        col(t, ColumnRole::Person),
        col(t, ColumnRole::Organisation),
        col(t, ColumnRole::StartYear),
        col(t, ColumnRole::EndYear),
    ) else {
        return;
    };
    let Core {
        pt,
        ot,
        birth,
        death,
        ..
    } = c;
    let founded = &f.founded;
    rules.push(rule(
        &t.name,
        "time.tenure",
        "term starts before the founding, with a minor or dead holder, or ends after death",
        format!(
            "SELECT t.id FROM {} t JOIN {ot} o ON o.id = t.{to} JOIN {pt} p ON p.id = t.{tp}
                                 WHERE t.{start} < o.{founded} OR t.{start} < p.{birth} + 18
                                 OR (p.{death} IS NOT NULL AND (t.{start} > p.{death} OR t.{end} IS NULL OR t.{end} > p.{death}))",
            q(&t.name)
        ),
    ));
    rules.push(rule(
        &t.name,
        "time.order",
        "term ends before it starts",
        format!("SELECT id FROM {} WHERE {end} < {start}", q(&t.name)),
    ));
}

/// Works are made after their maker was founded.
fn work_rules(roles: &Roles, c: &Core<'_>, f: &Founding, rules: &mut Vec<TimeRule>) {
    let Some(wt) = roles.table(TableRole::Work) else {
        return;
    };
    let (Some(wo), Some(year)) = (col(wt, ColumnRole::Organisation), col(wt, ColumnRole::Year))
    else {
        return;
    };
    let (ot, founded) = (&c.ot, &f.founded);
    rules.push(rule(
        &wt.name,
        "time.work",
        "made before its maker was founded",
        format!(
            "SELECT w.id FROM {} w JOIN {ot} o ON o.id = w.{wo} WHERE w.{year} < o.{founded}",
            q(&wt.name)
        ),
    ));
}

/// Events are held in a settlement that already stands, by organisations already founded.
fn event_rules(roles: &Roles, c: &Core<'_>, f: &Founding, rules: &mut Vec<TimeRule>) {
    let (Some(et), Some(xt)) = (
        roles.table(TableRole::Event),
        roles.table(TableRole::Participation),
    ) else {
        return;
    };
    let (Some(year), Some(host), Some(pe), Some(po)) = (
        col(et, ColumnRole::Year),
        col(et, ColumnRole::Host),
        col(xt, ColumnRole::Event),
        col(xt, ColumnRole::Organisation),
    ) else {
        return;
    };
    let (st, ot, sfounded, founded) = (&c.st, &c.ot, &c.sfounded, &f.founded);
    rules.push(rule(
        &et.name,
        "time.event",
        "held before its host settlement was founded",
        format!(
            "SELECT e.id FROM {} e JOIN {st} s ON s.id = e.{host} WHERE e.{year} < s.{sfounded}",
            q(&et.name)
        ),
    ));
    rules.push(rule(
        &xt.name,
        "time.participation",
        "took part before being founded",
        format!(
            "SELECT x.id FROM {} x JOIN {} e ON e.id = x.{pe} JOIN {ot} o ON o.id = x.{po} WHERE e.{year} < o.{founded}",
            q(&xt.name),
            q(&et.name)
        ),
    ));
}

/// A census counts a settlement that already stands, before the present year (whose value is
/// the settlement's own population), once per census year, and finds people there.
fn census_rules(roles: &Roles, c: &Core<'_>, present: i64, rules: &mut Vec<TimeRule>) {
    let Some(ct) = roles.table(TableRole::Census) else {
        return;
    };
    let (Some(place), Some(year), Some(population)) = (
        col(ct, ColumnRole::Settlement),
        col(ct, ColumnRole::Year),
        col(ct, ColumnRole::Population),
    ) else {
        return;
    };
    let (t, st, sfounded) = (q(&ct.name), &c.st, &c.sfounded);
    rules.push(rule(
        &ct.name,
        "time.census",
        "counted before its settlement was founded, or in the present year",
        format!(
            "SELECT c.id FROM {t} c JOIN {st} s ON s.id = c.{place} \
             WHERE c.{year} <= s.{sfounded} OR c.{year} >= {present}"
        ),
    ));
    rules.push(rule(
        &ct.name,
        "time.census_twice",
        "a settlement counted twice in one census",
        format!(
            "SELECT c.id FROM {t} c JOIN {t} d ON d.{place} = c.{place} AND d.{year} = c.{year} \
             AND d.id < c.id"
        ),
    ));
    rules.push(rule(
        &ct.name,
        "time.census_empty",
        "a census counted nobody",
        format!("SELECT id FROM {t} WHERE {population} <= 0"),
    ));
}

/// Alliances are founded after their seat settlement; memberships start after both sides were
/// founded and end after they start.
fn alliance_rules(roles: &Roles, c: &Core<'_>, f: &Founding, rules: &mut Vec<TimeRule>) {
    let (Some(at), Some(amt)) = (
        roles.table(TableRole::Alliance),
        roles.table(TableRole::AllianceMembership),
    ) else {
        return;
    };
    let (Some(afounded), Some(seat), Some(ma), Some(mo), Some(start), Some(end)) = (
        col(at, ColumnRole::Founded),
        col(at, ColumnRole::Home),
        col(amt, ColumnRole::Alliance),
        col(amt, ColumnRole::Organisation),
        col(amt, ColumnRole::StartYear),
        col(amt, ColumnRole::EndYear),
    ) else {
        return;
    };
    let (st, ot, sfounded, founded) = (&c.st, &c.ot, &c.sfounded, &f.founded);
    rules.push(rule(
        &at.name,
        "time.founded",
        "founded before its seat settlement",
        format!(
            "SELECT a.id FROM {} a JOIN {st} s ON s.id = a.{seat} WHERE a.{afounded} < s.{sfounded}",
            q(&at.name)
        ),
    ));
    rules.push(rule(
        &amt.name,
        "time.alliance_membership",
        "joined before the founding of either side, or ended before starting",
        format!(
            "SELECT m.id FROM {} m JOIN {} a ON a.id = m.{ma} JOIN {ot} o ON o.id = m.{mo}
                                 WHERE m.{start} < a.{afounded} OR m.{start} < o.{founded} OR m.{end} < m.{start}",
            q(&amt.name),
            q(&at.name)
        ),
    ));
}

/// Terms of one seat, and one organisation's alliance memberships, must not overlap.
pub(super) fn check_overlaps(w: &Checked<'_>, out: &mut Vec<Violation>) {
    let pairs = [
        (
            TableRole::Tenure,
            &[ColumnRole::Organisation, ColumnRole::Seat][..],
        ),
        (
            TableRole::AllianceMembership,
            &[ColumnRole::Organisation][..],
        ),
    ];
    for (role, keys) in pairs {
        let Some(t) = w.roles.table(role) else {
            continue;
        };
        let cols: Option<Vec<String>> = keys.iter().map(|&k| col(t, k)).collect();
        let (Some(cols), Some(start), Some(end)) = (
            cols,
            col(t, ColumnRole::StartYear),
            col(t, ColumnRole::EndYear),
        ) else {
            continue;
        };
        let same = cols
            .iter()
            .map(|c| format!("a.{c} = b.{c}"))
            .collect::<Vec<_>>()
            .join(" AND ");
        let sql = format!(
            "SELECT DISTINCT b.id FROM {t} a JOIN {t} b ON {same} AND a.id < b.id
             WHERE b.{start} < COALESCE(a.{end}, 1e18) AND a.{start} < COALESCE(b.{end}, 1e18)
             ORDER BY b.id",
            t = q(&t.name)
        );
        match ids_of(w.conn, &sql) {
            Ok(ids) => {
                for id in ids {
                    let detail = "overlaps another term of the same seat";
                    out.push(w.violation(&t.name, Some(id), "time.overlap", detail));
                }
            }
            Err(e) => out.push(w.violation(&t.name, None, "format", &e.to_string())),
        }
    }
}
