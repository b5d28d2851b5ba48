//! A world's history as a timeline: every year a row states (founded, born, died, joined, took
//! or left a seat, held an event, opened), from the columns' declared roles, so any theme's
//! tables read the same way.

use fabula_file::{ColumnRole, Value};
use serde::Serialize;

use crate::world::WorldData;

/// One dated fact of the world.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct Event {
    pub year: i64,
    pub table: String,
    pub row: i64,
    /// The row's name or label.
    pub subject: String,
    /// The column's label: "founded", "born", "from", ...
    pub what: String,
}

/// Every dated fact, by year, then table, row and label.
pub(crate) fn events(world: &WorldData) -> Vec<Event> {
    let mut events = Vec::new();
    for (table_idx, table) in world.tables.iter().enumerate() {
        for (col_idx, column) in table.columns.iter().enumerate() {
            if !ColumnRole::YEARS.contains(&column.role) {
                continue;
            }
            for row in &world.rows[table_idx] {
                let (Some(Value::Int(id)), Some(Value::Int(year))) =
                    (row.first(), row.get(col_idx))
                else {
                    continue;
                };
                events.push(Event {
                    year: *year,
                    table: table.name.clone(),
                    row: *id,
                    subject: world.label(table_idx, *id),
                    what: column.label.clone(),
                });
            }
        }
    }
    events.sort();
    events
}

/// Events per decade from the first to the last: (decade label, count), gaps included.
pub(crate) fn per_decade(events: &[Event]) -> Vec<(String, usize)> {
    let (Some(first), Some(last)) = (events.first(), events.last()) else {
        return Vec::new();
    };
    let decade = |year: i64| year.div_euclid(10) * 10;
    let mut bars = Vec::new();
    let mut at = decade(first.year);
    while at <= decade(last.year) {
        let count = events.iter().filter(|e| decade(e.year) == at).count();
        bars.push((format!("{at}s"), count));
        at += 10;
    }
    bars
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(year: i64) -> Event {
        Event {
            year,
            table: "t".into(),
            row: 1,
            subject: "x".into(),
            what: "founded".into(),
        }
    }

    #[test]
    fn decades_run_from_first_to_last_with_gaps() {
        let events = [event(1801), event(1809), event(1833)];
        assert_eq!(
            per_decade(&events),
            [
                ("1800s".to_owned(), 2),
                ("1810s".to_owned(), 0),
                ("1820s".to_owned(), 0),
                ("1830s".to_owned(), 1)
            ]
        );
        assert!(per_decade(&[]).is_empty());
    }
}
