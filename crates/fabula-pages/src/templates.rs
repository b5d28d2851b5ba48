//! The minijinja page templates and the phrase banks, compiled into the binary from
//! `templates/pages/`.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use minijinja::Environment;
use serde::Deserialize;

const FILES: &[(&str, &str)] = &[
    (
        "entity.md.j2",
        include_str!("../../../templates/pages/entity.md.j2"),
    ),
    (
        "list.md.j2",
        include_str!("../../../templates/pages/list.md.j2"),
    ),
    (
        "news.md.j2",
        include_str!("../../../templates/pages/news.md.j2"),
    ),
    (
        "history.md.j2",
        include_str!("../../../templates/pages/history.md.j2"),
    ),
];
const PHRASES: &str = include_str!("../../../templates/pages/phrases.toml");
/// The plans of the news items (`news.rs`).
pub(crate) const NEWS: &str = include_str!("../../../templates/pages/news.toml");
/// The plans of the encyclopedia articles (`articles.rs`).
pub(crate) const ARTICLES: &str = include_str!("../../../templates/pages/articles.toml");
/// The plans of the list and category pages (`lists.rs`).
pub(crate) const LISTS: &str = include_str!("../../../templates/pages/lists.toml");
/// The plans of a yearbook's sections (`dated.rs`).
pub(crate) const YEARBOOK: &str = include_str!("../../../templates/pages/yearbook.toml");

/// The template environment, built once.
pub fn env() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        // Markdown is not HTML: values are inserted verbatim.
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        for (name, text) in FILES {
            env.add_template(name, text)
                .expect("page templates are valid");
        }
        env
    })
}

/// Renders a page template with a serialisable context.
pub fn render<S: serde::Serialize>(name: &str, ctx: S) -> String {
    let text = env()
        .get_template(name)
        .expect("known template")
        .render(minijinja::value::Serde(&ctx))
        .expect("templates render");
    tidy(&text)
}

/// Collapses runs of blank lines left by template control flow and ends with one newline.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string() + "\n"
}

/// One fact type's phrasings, and the infobox label of each placeholder that holds a value a
/// reader may look up by label (see [`crate::prose::read_stated`]).
#[derive(Deserialize)]
pub struct Bank {
    pub phrases: Vec<String>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
}

/// The phrase banks, by fact type.
pub fn banks() -> &'static BTreeMap<String, Bank> {
    static PHRASE_BANKS: OnceLock<BTreeMap<String, Bank>> = OnceLock::new();
    PHRASE_BANKS.get_or_init(|| toml::from_str(PHRASES).expect("phrases.toml is valid"))
}

/// A fingerprint of every template and phrase, for the renderer version (FNV-1a).
pub fn fingerprint() -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for text in FILES
        .iter()
        .map(|(_, t)| *t)
        .chain([PHRASES, NEWS, YEARBOOK, ARTICLES, LISTS])
    {
        for b in text.bytes() {
            hash ^= u32::from(b);
            hash = hash.wrapping_mul(0x0100_0193);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    /// Banks that state a fact: every one but the census report's opening, the filler pages'
    /// and the background sections' headings.
    fn states_a_fact(key: &str) -> bool {
        key != "census_intro" && !key.starts_with("filler_") && !key.starts_with("heading_")
    }

    #[test]
    fn every_fact_has_ten_phrasings_and_each_states_its_labelled_values() {
        for (key, bank) in super::banks() {
            let n = bank.phrases.len();
            assert!(n >= 3, "{key} has {n} phrasings");
            assert!(!states_a_fact(key) || n >= 10, "{key} has {n} phrasings");
            for phrasing in bank.phrases.iter().filter(|_| states_a_fact(key)) {
                // A sentence's first letter is upper-cased: a value there would no longer read
                // as the text its fact records ("mining" as "Mining").
                assert!(!phrasing.starts_with("{value}"), "{key}: {phrasing}");
            }
            for (slot, phrasing) in bank
                .labels
                .keys()
                .flat_map(|s| bank.phrases.iter().map(move |p| (s, p)))
            {
                let placeholder = format!("{{{slot}}}");
                assert!(
                    phrasing.contains(&placeholder),
                    "{key}: {phrasing} lacks {placeholder}"
                );
            }
        }
    }
}
