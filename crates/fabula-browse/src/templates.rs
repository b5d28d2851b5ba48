//! The browser's minijinja templates, compiled into the binary from `templates/browse/`, with
//! HTML auto-escaping for every one of them: every value from a world file is escaped, and
//! only the SVG and Markdown HTML built (and escaped) in Rust are inserted with `|safe`.

use minijinja::{AutoEscape, Environment};
use serde::Serialize;

use crate::error::Result;
use crate::markdown::escape;

const TEMPLATES: [(&str, &str); 12] = [
    (
        "base.html.j2",
        include_str!("../../../templates/browse/base.html.j2"),
    ),
    (
        "error.html.j2",
        include_str!("../../../templates/browse/error.html.j2"),
    ),
    (
        "dataset.html.j2",
        include_str!("../../../templates/browse/dataset.html.j2"),
    ),
    (
        "world.html.j2",
        include_str!("../../../templates/browse/world.html.j2"),
    ),
    (
        "page.html.j2",
        include_str!("../../../templates/browse/page.html.j2"),
    ),
    (
        "row.html.j2",
        include_str!("../../../templates/browse/row.html.j2"),
    ),
    (
        "task.html.j2",
        include_str!("../../../templates/browse/task.html.j2"),
    ),
    (
        "sessions.html.j2",
        include_str!("../../../templates/browse/sessions.html.j2"),
    ),
    (
        "search_form.html.j2",
        include_str!("../../../templates/browse/search_form.html.j2"),
    ),
    (
        "hits.html.j2",
        include_str!("../../../templates/browse/hits.html.j2"),
    ),
    (
        "search.html.j2",
        include_str!("../../../templates/browse/search.html.j2"),
    ),
    (
        "session.html.j2",
        include_str!("../../../templates/browse/session.html.j2"),
    ),
];

/// The loaded templates.
pub(crate) struct Templates {
    env: Environment<'static>,
}

impl Templates {
    pub(crate) fn new() -> Templates {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| AutoEscape::Html);
        // minijinja's HTML escaping also escapes `/`, which makes every href unreadable in the
        // page source; `& < > " '` are what HTML needs, in text and in quoted attributes.
        env.set_formatter(|out, _state, value| {
            if value.is_undefined() || value.is_none() {
                return Ok(());
            }
            let text = value.to_string();
            let text = if value.is_safe() { text } else { escape(&text) };
            out.write_str(&text).map_err(|_| {
                minijinja::Error::new(minijinja::ErrorKind::WriteFailure, "writing the page")
            })
        });
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Lenient);
        for (name, source) in TEMPLATES {
            env.add_template(name, source)
                .unwrap_or_else(|e| panic!("template {name} does not parse: {e}"));
        }
        Templates { env }
    }

    /// Renders one template with `context`.
    pub(crate) fn render(&self, name: &str, context: impl Serialize) -> Result<String> {
        let context = minijinja::value::Serde(context);
        Ok(self.env.get_template(name)?.render(context)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_parses_and_world_text_is_escaped() {
        let templates = Templates::new();
        let html = templates
            .render(
                "error.html.j2",
                serde_json::json!({"title": "t", "status": 404, "message": "<script>x</script>"}),
            )
            .unwrap();
        assert!(html.contains("&lt;script&gt;x&lt;/script&gt;"), "{html}");
        assert!(!html.contains("<script>"));
    }
}

/// WCAG 2 contrast checks of the colours `base.html.j2` declares, so text stays readable.
#[cfg(test)]
mod contrast {
    use super::TEMPLATES;

    /// The `--NAME: #rrggbb` colours of the base template's `:root`.
    fn colour(name: &str) -> [f64; 3] {
        let base = TEMPLATES[0].1;
        let at = base.find(&format!("--{name}: #")).unwrap() + name.len() + 5;
        let hex = &base[at..at + 6];
        let channel = |i: usize| f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap()) / 255.0;
        [channel(0), channel(2), channel(4)]
    }

    fn luminance(rgb: [f64; 3]) -> f64 {
        let linear = |c: f64| {
            if c <= 0.03928 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * linear(rgb[0]) + 0.7152 * linear(rgb[1]) + 0.0722 * linear(rgb[2])
    }

    fn ratio(a: [f64; 3], b: [f64; 3]) -> f64 {
        let (la, lb) = (luminance(a), luminance(b));
        (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
    }

    #[test]
    fn text_colours_meet_wcag_aa_on_their_backgrounds() {
        let white = [1.0, 1.0, 1.0];
        let check = |fg: &str, bg: [f64; 3], bg_name: &str, min: f64| {
            let r = ratio(colour(fg), bg);
            assert!(r >= min, "{fg} on {bg_name}: {r:.2} < {min}");
        };
        for fg in ["ink", "muted", "link"] {
            check(fg, white, "white", 4.5);
            check(fg, colour("soft"), "soft", 4.5);
        }
        check("ink", colour("mark"), "mark", 4.5);
        // Focus rings are non-text contrast: 3:1 against the page.
        check("focus", white, "white", 3.0);
        assert!(ratio(white, white) < 1.01);
    }
}
