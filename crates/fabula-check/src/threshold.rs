//! The threshold rule of `fabula check` (`tasks.threshold`): a number that a task's SQL
//! compares a column with (`p.born < 2664`, `founded > 2106`) equals no value that column
//! holds in the world, so a question's "before" or "after" reads the same strictly or not.
//!
//! The query is read as tokens (string literals skipped); a comparison is a column, bare or
//! qualified by an alias or table, then `<`, `>`, `<=` or `>=`, then an integer (or the same
//! the other way round). The column is resolved through the tables the query's `FROM` and
//! `JOIN` clauses name (an alias naming two tables in two subqueries stands for both); a column
//! no named table has is looked up in every domain table, and a name no domain table has is
//! no column.

use std::collections::{BTreeMap, BTreeSet};

use fabula_file::{ColumnRole, SqlType, Value, WorldFile};

/// Every integer value of every domain column, with the first row that holds it.
pub(crate) struct Values {
    /// Table name to its columns' names.
    tables: BTreeMap<String, BTreeSet<String>>,
    /// (table, column) to value to the first row id holding it.
    held: BTreeMap<(String, String), BTreeMap<i64, i64>>,
}

impl Values {
    pub(crate) fn read(file: &WorldFile) -> fabula_file::Result<Values> {
        let mut values = Values {
            tables: BTreeMap::new(),
            held: BTreeMap::new(),
        };
        for table in file.tables()? {
            let names = table.columns.iter().map(|c| c.name.clone()).collect();
            values.tables.insert(table.name.clone(), names);
            let rows = file.table_rows(&table)?;
            let id_at = table.columns.iter().position(|c| c.role == ColumnRole::Id);
            for (i, column) in table.columns.iter().enumerate() {
                if column.sql_type != SqlType::Integer {
                    continue;
                }
                let held = values
                    .held
                    .entry((table.name.clone(), column.name.clone()))
                    .or_default();
                for (n, row) in (1..).zip(&rows) {
                    let id = match id_at.map(|at| &row[at]) {
                        Some(Value::Int(id)) => *id,
                        _ => n,
                    };
                    if let Value::Int(v) = row[i] {
                        held.entry(v).or_insert(id);
                    }
                }
            }
        }
        Ok(values)
    }

    /// The first row of `table` whose `column` holds `value`.
    fn row_holding(&self, table: &str, column: &str, value: i64) -> Option<i64> {
        let key = (table.to_owned(), column.to_owned());
        self.held.get(&key)?.get(&value).copied()
    }

    /// The domain tables among `named` that have `column`, or every domain table that has it
    /// when none of them does.
    fn owners<'a>(&'a self, named: &'a BTreeSet<String>, column: &str) -> Vec<&'a str> {
        let has = |t: &&String| self.tables.get(*t).is_some_and(|c| c.contains(column));
        let among: Vec<&str> = named.iter().filter(has).map(String::as_str).collect();
        if !among.is_empty() {
            return among;
        }
        self.tables.keys().filter(has).map(String::as_str).collect()
    }

    /// Each comparison of `sql` whose number a row holds in the compared column, in words:
    /// "`p.born < 2664`: persons.born of row 12 is 2664".
    pub(crate) fn on_values(&self, sql: &str) -> Vec<String> {
        let tokens = tokens(sql);
        let aliases = aliases(&tokens);
        let all_named: BTreeSet<String> = aliases.values().flatten().cloned().collect();
        let mut out = Vec::new();
        for c in comparisons(&tokens) {
            let named = match &c.alias {
                Some(alias) => aliases.get(alias).cloned().unwrap_or_default(),
                None => all_named.clone(),
            };
            for table in self.owners(&named, &c.column) {
                if let Some(row) = self.row_holding(table, &c.column, c.value) {
                    out.push(format!(
                        "`{}`: {table}.{} of row {row} is {}",
                        c.text, c.column, c.value
                    ));
                }
            }
        }
        out
    }
}

/// One token of a query; string literals keep no text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Number(i64),
    Op(String),
    Text,
    Punct(char),
}

fn tokens(sql: &str) -> Vec<Token> {
    let chars: Vec<char> = sql.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let run = |i: usize, keep: &dyn Fn(char) -> bool| {
        let mut j = i;
        while j < chars.len() && keep(chars[j]) {
            j += 1;
        }
        j
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '\'' || c == '"' {
            // A quote doubled inside stands for itself.
            let mut j = i + 1;
            while j < chars.len() && !(chars[j] == c && chars.get(j + 1) != Some(&c)) {
                j += if chars[j] == c { 2 } else { 1 };
            }
            let inner: String = chars[i + 1..j.min(chars.len())].iter().collect();
            out.push(if c == '"' {
                Token::Word(inner.replace("\"\"", "\""))
            } else {
                Token::Text
            });
            i = j + 1;
        } else if c.is_alphabetic() || c == '_' {
            let j = run(i, &|c| c.is_alphanumeric() || c == '_');
            out.push(Token::Word(chars[i..j].iter().collect()));
            i = j;
        } else if c.is_ascii_digit() {
            let j = run(i, &|c| c.is_ascii_digit());
            let text: String = chars[i..j].iter().collect();
            out.push(text.parse().map_or(Token::Text, Token::Number));
            i = j;
        } else if "<>=!".contains(c) {
            let j = run(i, &|c| "<>=!".contains(c));
            out.push(Token::Op(chars[i..j].iter().collect()));
            i = j;
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

/// Words that end a `FROM` or `JOIN` item instead of naming its alias.
const CLAUSE_WORDS: &[&str] = &[
    "where", "join", "on", "order", "group", "limit", "left", "inner", "cross", "natural", "union",
    "having", "window", "using",
];

/// Each alias (and each table name, standing for itself) with the tables it names in the
/// `FROM` and `JOIN` items of a query.
fn aliases(tokens: &[Token]) -> BTreeMap<String, BTreeSet<String>> {
    let word = |i: usize| match tokens.get(i) {
        Some(Token::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for i in 0..tokens.len() {
        let opens = word(i).is_some_and(|w| ["from", "join"].contains(&&*w.to_lowercase()));
        let Some(table) = word(i + 1).filter(|_| opens) else {
            continue;
        };
        out.entry(table.to_owned())
            .or_default()
            .insert(table.to_owned());
        let mut next = i + 2;
        if word(next).is_some_and(|w| w.eq_ignore_ascii_case("as")) {
            next += 1;
        }
        if let Some(alias) = word(next).filter(|w| !CLAUSE_WORDS.contains(&&*w.to_lowercase())) {
            out.entry(alias.to_owned())
                .or_default()
                .insert(table.to_owned());
        }
    }
    out
}

/// A column compared with an integer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Comparison {
    alias: Option<String>,
    column: String,
    value: i64,
    /// The comparison as written, for the violation's detail.
    text: String,
}

/// A column reference ending at token `end` (exclusive) or starting at `start`: `a.col` or a
/// bare `col` that no `.` qualifies or follows.
fn column_at(tokens: &[Token], start: usize) -> Option<(Option<String>, String, usize)> {
    let word = |i: usize| match tokens.get(i) {
        Some(Token::Word(w)) => Some(w.clone()),
        _ => None,
    };
    let dot = |i: usize| tokens.get(i) == Some(&Token::Punct('.'));
    let first = word(start)?;
    if dot(start + 1) {
        return Some((Some(first), word(start + 2)?, start + 3));
    }
    Some((None, first, start + 1))
}

/// The integer at token `i`, signed by a `-` before it; with the token after it.
fn number_at(tokens: &[Token], i: usize) -> Option<(i64, usize)> {
    match (tokens.get(i), tokens.get(i + 1)) {
        (Some(Token::Number(n)), _) => Some((*n, i + 1)),
        (Some(Token::Punct('-')), Some(Token::Number(n))) => Some((-n, i + 2)),
        _ => None,
    }
}

const ORDERINGS: [&str; 4] = ["<", ">", "<=", ">="];

fn ordering(token: Option<&Token>) -> Option<&str> {
    match token {
        Some(Token::Op(op)) if ORDERINGS.contains(&op.as_str()) => Some(op),
        _ => None,
    }
}

/// Every comparison of a column with an integer, in query order.
fn comparisons(tokens: &[Token]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for i in 0..tokens.len() {
        let after_dot = i > 0 && tokens[i - 1] == Token::Punct('.');
        if after_dot {
            continue;
        }
        // `column op number`
        if let Some((alias, column, j)) = column_at(tokens, i)
            && let Some(op) = ordering(tokens.get(j))
            && let Some((value, _)) = number_at(tokens, j + 1)
        {
            let name = alias
                .as_ref()
                .map_or(column.clone(), |a| format!("{a}.{column}"));
            let text = format!("{name} {op} {value}");
            out.push(Comparison {
                alias,
                column,
                value,
                text,
            });
        }
        // `number op column`
        let signed = i == 0 || tokens[i - 1] != Token::Punct('-');
        if let Some((value, j)) = number_at(tokens, i).filter(|_| signed)
            && let Some(op) = ordering(tokens.get(j))
            && let Some((alias, column, _)) = column_at(tokens, j + 1)
        {
            let name = alias
                .as_ref()
                .map_or(column.clone(), |a| format!("{a}.{column}"));
            let text = format!("{value} {op} {name}");
            out.push(Comparison {
                alias,
                column,
                value,
                text,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the comparisons read from `sql` (as written) and the tables each alias names.
    fn check(sql: &str, expect: &[&str], expect_aliases: &[(&str, &[&str])]) {
        let tokens = tokens(sql);
        let found: Vec<String> = comparisons(&tokens).into_iter().map(|c| c.text).collect();
        assert_eq!(found, expect, "{sql}");
        let aliases = aliases(&tokens);
        for (alias, tables) in expect_aliases {
            let named: Vec<&str> = aliases[*alias].iter().map(String::as_str).collect();
            assert_eq!(named, *tables, "{alias} in {sql}");
        }
    }

    #[test]
    fn comparisons_with_numbers_are_read() {
        check(
            "SELECT p.name FROM people p WHERE p.born < 2664 AND p.job = 'x < 5'",
            &["p.born < 2664"],
            &[("p", &["people"]), ("people", &["people"])],
        );
        check(
            "SELECT COUNT(*) OVER () AS answer, name FROM towns WHERE founded>=-12 ORDER BY name",
            &["founded >= -12"],
            &[("towns", &["towns"])],
        );
        check(
            "SELECT a.name FROM orgs a JOIN towns t ON t.id = a.home WHERE 2106 > t.founded \
             AND a.size = 40 AND (a.ended IS NULL OR a.ended >= 2650)",
            &["2106 > t.founded", "a.ended >= 2650"],
            &[("a", &["orgs"]), ("t", &["towns"])],
        );
        check(
            "SELECT p.n FROM people p WHERE EXISTS (SELECT 1 FROM members m WHERE m.p = p.id) \
             OR EXISTS (SELECT 1 FROM seats AS m WHERE m.p = p.id AND m.since <= 7)",
            &["m.since <= 7"],
            &[("m", &["members", "seats"])],
        );
        check(
            "SELECT name FROM \"odd \"\"table\"\"\" WHERE x <> 3 AND y = 4 AND 'a' < 'b'",
            &[],
            &[("odd \"table\"", &["odd \"table\""])],
        );
    }
}
