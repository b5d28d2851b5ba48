//! Rule `tasks.fields`: every set of occupations or categories a frontier clue stands for (a
//! broader field, "in the rhythm section", whose query tests `IN ('drummer', 'bassist')`) is
//! defined inside its world, on a glossary page that lists exactly those values. A reader then
//! never has to guess which trades a phrase takes in.
//!
//! The checker's own reading, as for the rest of `fabula check`: glossary pages are the pages
//! titled `Glossary: ...` (written by `fabula-pages`), their values the first cell of each row
//! of their table, plain or as a link's text; a query's value sets are its `IN (...)` lists of
//! quoted literals (a subquery's `IN (SELECT ...)` is none).

use std::collections::BTreeSet;

use fabula_file::WorldFile;

/// The title every glossary page starts with.
const TITLE: &str = "Glossary: ";

/// The value sets the world's glossary pages define.
pub(crate) struct Glossaries(Vec<BTreeSet<String>>);

impl Glossaries {
    /// Reads the glossary pages of a world.
    pub(crate) fn read(file: &WorldFile) -> fabula_file::Result<Glossaries> {
        let pages = file.pages_titled(TITLE)?;
        Ok(Glossaries(
            pages.iter().map(|p| listed(&p.page.body)).collect(),
        ))
    }

    /// The value sets of a query that no glossary page defines.
    pub(crate) fn undefined(&self, sql: &str) -> Vec<BTreeSet<String>> {
        value_lists(sql)
            .into_iter()
            .filter(|set| !self.0.contains(set))
            .collect()
    }
}

/// The first cell of each row of a page's table (the header row and its rule excepted): a
/// link's text, or the plain cell.
fn listed(body: &str) -> BTreeSet<String> {
    let rows: Vec<&str> = body.lines().filter(|l| l.starts_with('|')).collect();
    rows.iter()
        .skip(2)
        .filter_map(|row| row.split('|').nth(1))
        .map(|cell| {
            let cell = cell.trim();
            match cell.strip_prefix('[').and_then(|c| c.split_once("](")) {
                Some((text, _)) => text.to_string(),
                None => cell.to_string(),
            }
        })
        .collect()
}

/// The `IN ('a', 'b', ...)` lists of quoted literals in a query, each as a set (`''` inside a
/// literal is one quote).
fn value_lists(sql: &str) -> Vec<BTreeSet<String>> {
    let mut out = Vec::new();
    let mut rest = sql;
    while let Some(at) = rest.find("IN (") {
        rest = &rest[at + 4..];
        let mut set = BTreeSet::new();
        let mut chars = rest.char_indices().peekable();
        let mut complete = false;
        loop {
            match chars.next() {
                Some((_, '\'')) => {
                    let mut value = String::new();
                    loop {
                        match chars.next() {
                            Some((_, '\'')) if chars.peek().map(|c| c.1) == Some('\'') => {
                                chars.next();
                                value.push('\'');
                            }
                            Some((_, '\'')) | None => break,
                            Some((_, c)) => value.push(c),
                        }
                    }
                    set.insert(value);
                }
                Some((_, ',' | ' ')) => {}
                Some((i, ')')) => {
                    complete = !set.is_empty();
                    rest = &rest[i + 1..];
                    break;
                }
                // A subquery or anything but literals: not a value list.
                _ => break,
            }
        }
        if complete {
            out.push(set);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(values: &[&str]) -> BTreeSet<String> {
        values.iter().map(|v| (*v).to_string()).collect()
    }

    #[test]
    fn value_lists_are_the_quoted_literal_lists_only() {
        let sql = "SELECT p.name FROM people p WHERE (p.occupation IN ('drummer', 'bassist')) \
                   AND (p.birthplace IN (SELECT s.id FROM towns s WHERE s.population > 5000)) \
                   AND (EXISTS (SELECT 1 FROM bands o WHERE o.category IN ('rock''n''roll', 'jazz')))";
        assert_eq!(
            value_lists(sql),
            vec![set(&["drummer", "bassist"]), set(&["rock'n'roll", "jazz"])]
        );
        assert!(value_lists("SELECT 1 WHERE x IN ()").is_empty());
    }

    #[test]
    fn a_glossary_lists_the_first_cells_of_its_table() {
        let body = "# Glossary: a band in the rhythm section\n\nIn X, ...\n\n| Occupation |\n|---|\n\
                    | [drummer](https://w/wiki/Category:Drummer) |\n| bassist |\n";
        assert_eq!(listed(body), set(&["drummer", "bassist"]));
        let glossaries = Glossaries(vec![listed(body)]);
        let sql =
            "WHERE (p.occupation IN ('bassist', 'drummer')) AND (o.category IN ('jazz', 'rock'))";
        assert_eq!(glossaries.undefined(sql), vec![set(&["jazz", "rock"])]);
    }
}
