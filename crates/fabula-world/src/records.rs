//! The non-domain rows a world file carries: rendered pages with their provenance, and tasks.
//!
//! Later stages of the pipeline (the page renderer, the task builder) produce these records from a
//! [`crate::World`]; only [`crate::write_world`] turns them into SQL.

/// What kind of value a fact is, which decides whether snippets may show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ValueKind {
    /// A count, size or amount.
    Number,
    /// A calendar year.
    Year,
    /// A full date.
    Date,
    /// The name of another entity that a reference points at.
    Entity,
    /// A word or phrase such as an occupation.
    Text,
    /// The page subject's own name.
    Name,
}

impl ValueKind {
    /// The stored spelling in `fabula_page_facts.value_kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            ValueKind::Number => "number",
            ValueKind::Year => "year",
            ValueKind::Date => "date",
            ValueKind::Entity => "entity",
            ValueKind::Text => "text",
            ValueKind::Name => "name",
        }
    }
}

/// One domain cell that a page states.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Fact {
    pub table: String,
    pub row_id: i64,
    pub column: String,
    /// The exact text the page uses for the value (`12,345`, or a referenced entity's name).
    pub shown: String,
    pub value_kind: ValueKind,
}

/// One rendered page.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRecord {
    pub url: String,
    pub title: String,
    /// `entity`, `list`, `category`, `news` or `history`.
    pub kind: String,
    /// ISO date for dated pages, None for reference pages.
    pub published: Option<String>,
    /// Markdown.
    pub body: String,
    pub facts: Vec<Fact>,
}

/// One task with its gold answer.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    pub id: String,
    pub kind: String,
    pub question: String,
    /// JSON: a string, a list of strings, or a table.
    pub answer: String,
    /// JSON list of page urls.
    pub evidence: String,
    pub hops: i64,
    /// A read-only SQL query over the domain tables that recomputes the answer, so `fabula check`
    /// can verify it without the task builder's code.
    pub sql: String,
}

/// Groups digits by thousands with commas, as pages write counts: `12345` becomes `12,345`.
pub fn group_thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}
