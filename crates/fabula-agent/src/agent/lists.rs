//! Reading list pages as a reader must now: they go on over pages ("Next page: ...") and name
//! their rows and nothing else, so a step that filters or tabulates a list's rows by a column
//! first reads that column off each row's own article (its infobox or prose, or its own site).
//!
//! [`needed_columns`] says which columns a step reads off the open list; `Run::complete_list`
//! rebuilds the open list as one table of the row names and those columns.

use super::plan::Step;
use super::{Run, read};
use crate::Result;

/// The columns a step reads off the open list (slots unfilled), `None` when it reads none.
/// `rest` are the plan's later steps: rows gathered by `rows` are tabulated by the next
/// `table` step, whose header (after the name) says which columns they need.
pub(super) fn needed_columns(step: &Step, rest: &[Step]) -> Option<Vec<String>> {
    match step {
        Step::Column { name, filter, .. } => {
            let mut columns = vec![name.clone()];
            columns.extend(filter.as_deref().map(upper_first));
            Some(columns)
        }
        Step::Rows { .. } => {
            let header = rest.iter().find_map(|s| match s {
                Step::Table { header } => Some(header.clone()),
                _ => None,
            })?;
            // The rows' values are tabulated in the header's order, so the list keeps it.
            Some(header.into_iter().skip(1).collect())
        }
        Step::CountRows { column, .. }
        | Step::EachRow { column, .. }
        | Step::EachMatch { column, .. } => Some(vec![column.clone()]),
        _ => None,
    }
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

impl Run<'_> {
    /// Rebuilds the open list as one table of its rows' names and `columns` (slots filled), in
    /// that order: a column the list has is kept, a missing one is read off each row's page.
    pub(super) fn complete_list(&mut self, columns: &[String]) -> Result<()> {
        let Some(content) = self.content() else {
            return Ok(());
        };
        let records = read::records(content);
        let wanted: Vec<String> = columns
            .iter()
            .map(|c| upper_first(&self.fill_slots(c)))
            .collect();
        let has = |name: &str| {
            records
                .first()
                .is_some_and(|row| row.iter().any(|(h, _)| h.eq_ignore_ascii_case(name)))
        };
        if records.is_empty() || wanted.iter().all(|c| has(c)) {
            return Ok(());
        }
        let first = records[0]
            .first()
            .map(|(h, _)| h.clone())
            .unwrap_or_default();
        let mut lines = vec![
            format!("| {first} | {} |", wanted.join(" | ")),
            format!("|---|{}", "---|".repeat(wanted.len())),
        ];
        for row in &records {
            let Some((_, name)) = row.first() else {
                continue;
            };
            let page = match read::link_url(name) {
                Some(url) => Some(self.extract(&url)?.1),
                None => None,
            };
            let cells: Vec<String> = wanted
                .iter()
                .map(|column| {
                    let kept = row.iter().find(|(h, _)| h.eq_ignore_ascii_case(column));
                    kept.map(|(_, c)| c.clone())
                        .or_else(|| self.page_value(page.as_deref()?, column))
                        .unwrap_or_default()
                })
                .collect();
            lines.push(format!("| {name} | {} |", cells.join(" | ")));
        }
        if let Some(open) = self.page.as_mut() {
            open.content = lines.join("\n") + "\n";
        }
        Ok(())
    }

    /// A column's value on a row's page: the infobox row or prose of that label, else the
    /// subject's own site.
    fn page_value(&self, page: &str, column: &str) -> Option<String> {
        let label = column.to_lowercase();
        let cell = read::infobox_cell(page, &label, false).or_else(|| {
            let site = read::own_site_url(page)?;
            let (_, about) = self.extract(&site).ok()?;
            read::infobox_cell(&about, &label, false)
        })?;
        Some(read::cell_value(&cell))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::plan::Step;

    #[test]
    fn steps_name_the_list_columns_they_read() {
        let steps = |texts: &[&str]| -> Vec<Step> {
            texts
                .iter()
                .map(|t| Step::parse(t).expect("a step"))
                .collect()
        };
        let plan = steps(&[
            "rows before Founded",
            "table {settlement_noun}|{region_noun}|Founded|Population",
        ]);
        assert_eq!(
            needed_columns(&plan[0], &plan[1..]),
            Some(vec![
                "{region_noun}".to_owned(),
                "Founded".to_owned(),
                "Population".to_owned()
            ])
        );
        let plan = steps(&["column Founded min category"]);
        assert_eq!(
            needed_columns(&plan[0], &[]),
            Some(vec!["Founded".to_owned(), "Category".to_owned()])
        );
        let plan = steps(&["each_match occupation Occupation|Born"]);
        assert_eq!(
            needed_columns(&plan[0], &[]),
            Some(vec!["Occupation".to_owned()])
        );
        assert_eq!(needed_columns(&steps(&["people"])[0], &[]), None);
    }
}
