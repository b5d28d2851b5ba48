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

#[derive(Deserialize)]
struct Bank {
    phrases: Vec<String>,
}

/// The phrase banks, by fact type.
pub fn phrases() -> &'static BTreeMap<String, Vec<String>> {
    static PHRASE_BANKS: OnceLock<BTreeMap<String, Vec<String>>> = OnceLock::new();
    PHRASE_BANKS.get_or_init(|| {
        let banks: BTreeMap<String, Bank> = toml::from_str(PHRASES).expect("phrases.toml is valid");
        banks.into_iter().map(|(k, v)| (k, v.phrases)).collect()
    })
}

/// A fingerprint of every template and phrase, for the renderer version (FNV-1a).
pub fn fingerprint() -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for text in FILES.iter().map(|(_, t)| *t).chain([PHRASES]) {
        for b in text.bytes() {
            hash ^= u32::from(b);
            hash = hash.wrapping_mul(0x0100_0193);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_bank_has_three_phrasings() {
        for (key, list) in super::phrases() {
            assert!(list.len() >= 3, "{key} has {} phrasings", list.len());
        }
    }
}
