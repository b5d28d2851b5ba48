//! The minijinja page templates and the page plans, compiled into the binary from
//! `templates/pages/`; the phrase banks there are `fabula_vocab::banks`.

use std::sync::OnceLock;

use fabula_vocab::banks::PHRASES;
pub use fabula_vocab::banks::banks;
use minijinja::Environment;

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

/// A fingerprint of every template and phrase, for the renderer version.
pub fn fingerprint() -> u32 {
    let templates = FILES.iter().map(|(_, t)| *t);
    fabula_vocab::fnv1a(templates.chain([PHRASES, NEWS, YEARBOOK, ARTICLES, LISTS]))
}
