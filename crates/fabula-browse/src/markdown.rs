//! A page's Markdown as HTML, with the cells it states marked and linked to their rows.
//!
//! pulldown-cmark parses; every piece of raw HTML in a page body is turned into text, so it is
//! escaped like any other text taken from a world file. Text outside links is scanned for the
//! exact `shown` strings of the page's provenance rows (longest first, at word boundaries), and
//! each occurrence becomes `<mark><a href=...>`; inside a link only the `<mark>` is added, since
//! links do not nest. Link destinations go through a caller-supplied rewrite, so links between
//! pages stay inside the browser.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd, html};

/// One stated value to mark: its exact text, where it links and a tooltip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Highlight {
    pub shown: String,
    pub href: String,
    pub title: String,
}

/// Renders `body` to HTML, marking `highlights` and rewriting link destinations with `link`.
pub(crate) fn render(
    body: &str,
    highlights: &[Highlight],
    link: &dyn Fn(&str) -> String,
) -> String {
    let mut marks: Vec<&Highlight> = highlights.iter().filter(|h| !h.shown.is_empty()).collect();
    marks.sort_by(|a, b| {
        b.shown
            .len()
            .cmp(&a.shown.len())
            .then(a.shown.cmp(&b.shown))
    });
    marks.dedup_by(|a, b| a.shown == b.shown);
    let mut events = Vec::new();
    let mut in_link = 0usize;
    // Text arrives in pieces (split at entities and inline HTML); a stated value may span them.
    let mut text = String::new();
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(body, options) {
        match event {
            Event::Html(piece) | Event::InlineHtml(piece) | Event::Text(piece) => {
                text.push_str(&piece);
                continue;
            }
            _ if !text.is_empty() => {
                mark_text(&text, &marks, in_link > 0, &mut events);
                text.clear();
            }
            _ => {}
        }
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                in_link += 1;
                let dest_url = CowStr::from(link(&dest_url));
                events.push(Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }));
            }
            Event::End(TagEnd::Link) => {
                in_link = in_link.saturating_sub(1);
                events.push(Event::End(TagEnd::Link));
            }
            Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => {}
            other => events.push(other),
        }
    }
    if !text.is_empty() {
        mark_text(&text, &marks, in_link > 0, &mut events);
    }
    let mut out = String::with_capacity(body.len() * 2);
    html::push_html(&mut out, events.into_iter());
    out
}

/// Splits `text` into plain runs and marked occurrences of `marks`.
fn mark_text<'a>(text: &str, marks: &[&Highlight], in_link: bool, events: &mut Vec<Event<'a>>) {
    let mut plain_from = 0;
    let mut at = 0;
    while at < text.len() {
        let found = at_word_start(text, at)
            .then(|| {
                marks.iter().find(|mark| {
                    text[at..].starts_with(&mark.shown) && ends_word(text, at + mark.shown.len())
                })
            })
            .flatten();
        let Some(mark) = found else {
            at += text[at..].chars().next().map_or(1, char::len_utf8);
            continue;
        };
        if plain_from < at {
            events.push(Event::Text(CowStr::from(text[plain_from..at].to_owned())));
        }
        events.push(Event::InlineHtml(CowStr::from(open_mark(mark, in_link))));
        events.push(Event::Text(CowStr::from(mark.shown.clone())));
        let close = if in_link { "</mark>" } else { "</a></mark>" };
        events.push(Event::InlineHtml(CowStr::from(close)));
        at += mark.shown.len();
        plain_from = at;
    }
    if plain_from < text.len() {
        events.push(Event::Text(CowStr::from(text[plain_from..].to_owned())));
    }
}

fn open_mark(mark: &Highlight, in_link: bool) -> String {
    let title = escape(&mark.title);
    if in_link {
        format!("<mark class=\"fact\" title=\"{title}\">")
    } else {
        let href = escape(&mark.href);
        format!("<mark class=\"fact\"><a href=\"{href}\" title=\"{title}\">")
    }
}

fn at_word_start(text: &str, at: usize) -> bool {
    !text[..at]
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric)
}

fn ends_word(text: &str, end: usize) -> bool {
    !text[end..]
        .chars()
        .next()
        .is_some_and(char::is_alphanumeric)
}

/// Escapes text for an HTML attribute or element.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(body: &str, marks: &[(&str, &str)], expect: &str) {
        let highlights: Vec<Highlight> = marks
            .iter()
            .map(|(shown, href)| Highlight {
                shown: (*shown).to_owned(),
                href: (*href).to_owned(),
                title: format!("cell {shown}"),
            })
            .collect();
        let html = render(body, &highlights, &|url| format!("/go?u={url}"));
        assert_eq!(html.trim_end(), expect, "{body}");
    }

    #[test]
    fn stated_values_are_marked_at_word_boundaries_longest_first() {
        check(
            "Kest has 1,200 people; Kesta is 12,000.",
            &[("Kest", "/r/1"), ("1,200", "/r/1#p"), ("Kesta", "/r/2")],
            "<p><mark class=\"fact\"><a href=\"/r/1\" title=\"cell Kest\">Kest</a></mark> has \
             <mark class=\"fact\"><a href=\"/r/1#p\" title=\"cell 1,200\">1,200</a></mark> people; \
             <mark class=\"fact\"><a href=\"/r/2\" title=\"cell Kesta\">Kesta</a></mark> is 12,000.</p>",
        );
        check(
            "Kest Line runs.",
            &[("Kest", "/a"), ("Kest Line", "/b")],
            "<p><mark class=\"fact\"><a href=\"/b\" title=\"cell Kest Line\">Kest Line</a></mark> runs.</p>",
        );
    }

    #[test]
    fn raw_html_is_escaped_and_links_are_rewritten_without_nesting() {
        check(
            "<script>alert(1)</script>\n\nSee [Kest](https://x.org/wiki/Kest) <b>now</b>.",
            &[("Kest", "/r/1")],
            "&lt;script&gt;alert(1)&lt;/script&gt;\n<p>See <a href=\"/go?u=https://x.org/wiki/Kest\">\
             <mark class=\"fact\" title=\"cell Kest\">Kest</mark></a> &lt;b&gt;now&lt;/b&gt;.</p>",
        );
    }

    #[test]
    fn tables_render_and_attributes_are_escaped() {
        check(
            "| a | b |\n|---|---|\n| \"q\" | 5 |",
            &[("\"q\"", "/r?a=1&b=2")],
            "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody>\n<tr><td>\
             <mark class=\"fact\"><a href=\"/r?a=1&amp;b=2\" title=\"cell &quot;q&quot;\">\"q\"</a></mark>\
             </td><td>5</td></tr>\n</tbody></table>",
        );
    }
}
