//! Bar charts in SVG, drawn on the server: the timeline's events per decade and the dataset's
//! tiers and pages needed. Every bar carries its value as text and as a `<title>`, so the chart
//! reads without colour and a screen reader gets the numbers.

use std::fmt::Write;

use crate::markdown::escape;

const HEIGHT: usize = 160;
const TOP: usize = 22;
const BOTTOM: usize = 30;
const MIN_BAR: usize = 14;
const MAX_BAR: usize = 56;

/// A vertical bar chart of `bars` (label, value), at most `width` pixels wide unless the bars
/// need more; `title` names it for assistive technology.
pub(crate) fn bar_chart(title: &str, bars: &[(String, usize)], width: usize) -> String {
    let n = bars.len().max(1);
    let bar_w = (width / n).clamp(MIN_BAR, MAX_BAR);
    let width = (bar_w * n).max(120);
    let top_value = bars.iter().map(|(_, v)| *v).max().unwrap_or(0).max(1);
    let plot_h = HEIGHT - TOP - BOTTOM;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 {width} {HEIGHT}\" \
         width=\"{width}\" height=\"{HEIGHT}\" role=\"img\" aria-label=\"{title}\"><title>{title}</title>",
        title = escape(title),
    );
    let label_every = (n * 34).div_ceil(width).max(1);
    for (i, (label, value)) in bars.iter().enumerate() {
        let h = value * plot_h / top_value;
        let x = i * bar_w;
        let y = TOP + plot_h - h;
        let label = escape(label);
        let _ = write!(
            svg,
            "<g><title>{label}: {value}</title><rect class=\"bar\" x=\"{bx}\" y=\"{y}\" width=\"{w}\" height=\"{h}\"/>",
            bx = x + 2,
            w = bar_w.saturating_sub(4).max(1),
        );
        if *value > 0 && bar_w >= 22 {
            let _ = write!(
                svg,
                "<text x=\"{cx}\" y=\"{ty}\" text-anchor=\"middle\" class=\"bar-value\">{value}</text>",
                cx = x + bar_w / 2,
                ty = y.saturating_sub(4).max(10),
            );
        }
        if i % label_every == 0 {
            let _ = write!(
                svg,
                "<text x=\"{cx}\" y=\"{ly}\" text-anchor=\"middle\" class=\"bar-label\">{label}</text>",
                cx = x + bar_w / 2,
                ly = HEIGHT - BOTTOM + 16,
            );
        }
        svg.push_str("</g>");
    }
    let base = TOP + plot_h;
    let _ = write!(
        svg,
        "<line class=\"axis\" x1=\"0\" y1=\"{base}\" x2=\"{width}\" y2=\"{base}\"/>"
    );
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_value_and_carry_their_numbers() {
        let bars = vec![
            ("easy".to_owned(), 10),
            ("medium".to_owned(), 5),
            ("<hard>".to_owned(), 0),
        ];
        let svg = bar_chart("Tiers", &bars, 300);
        assert!(svg.contains("<title>easy: 10</title>"), "{svg}");
        assert!(svg.contains("height=\"108\""), "{svg}");
        assert!(svg.contains("height=\"54\""), "{svg}");
        assert!(svg.contains("&lt;hard&gt;: 0"), "{svg}");
        assert_eq!(svg.matches("class=\"bar\"").count(), 3);
    }

    #[test]
    fn an_empty_chart_still_draws() {
        let svg = bar_chart("nothing", &[], 300);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    }
}
