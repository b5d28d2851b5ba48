//! WideSearch's per-cell metrics and the preprocessing pipeline of each [`Metric`].
//!
//! Each metric takes the predicted cell (`response`) and the gold cell (`target`) after
//! preprocessing and returns 1.0 or 0.0. Where WideSearch gives two unusable values a score of
//! 1.0 whatever they say (two non-numbers in `number_near`, two non-dates in `date_near`, two
//! URL-free cells in `url_match`, an empty response in `in_match`), fabula asks instead that the
//! two cells agree under [`norm_name`], or for `in_match` that the response is not empty: a
//! reward must not pay for an empty or garbled cell.

use serde::{Deserialize, Serialize};

use fabula_date::{DatePrecision, parse_date};

use crate::date::norm_date;
use crate::normalize::{extract_number, norm_name, parse_extracted_number};

/// How one column of a gold table is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// [`norm_name`] on both cells, then [`exact_match`].
    #[serde(alias = "exact_match")]
    Exact,
    /// [`extract_number`] on both cells, then [`number_near`] with the column's tolerance.
    #[serde(alias = "number_near")]
    Number,
    /// `norm_date` on both cells, then [`date_near`].
    #[serde(alias = "date_near")]
    Date,
    /// [`norm_name`] on both cells, then [`in_match`].
    #[serde(alias = "in_match")]
    In,
    /// The raw cells, then [`url_match`].
    #[serde(alias = "url_match")]
    Url,
}

impl Metric {
    /// The name used in gold answers.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Exact => "exact",
            Metric::Number => "number",
            Metric::Date => "date",
            Metric::In => "in",
            Metric::Url => "url",
        }
    }
}

/// Scores one predicted cell against one gold cell: the metric's preprocessing, then the
/// metric. `tolerance` is the `number_near` criterion and is ignored by the other metrics.
///
/// ```
/// use fabula_score::metrics::{score_cell, Metric};
/// assert_eq!(score_cell(Metric::Number, "about 1,050", "1000", 0.05), 1.0);
/// assert_eq!(score_cell(Metric::Number, "1,050", "1000", 0.0), 0.0);
/// ```
pub fn score_cell(metric: Metric, response: &str, target: &str, tolerance: f64) -> f64 {
    match metric {
        Metric::Exact => exact_match(&norm_name(response), &norm_name(target)),
        Metric::Number => match (extract_number(response), extract_number(target)) {
            (None, None) => agree(response, target),
            (response_number, target_number) => number_near(
                response_number.as_deref().unwrap_or("NULL"),
                target_number.as_deref().unwrap_or("NULL"),
                tolerance,
            ),
        },
        Metric::Date => {
            let (response_date, target_date) = (norm_date(response), norm_date(target));
            if parse_date(&response_date).is_none() && parse_date(&target_date).is_none() {
                return agree(response, target);
            }
            date_near(&response_date, &target_date)
        }
        Metric::In => in_match(&norm_name(response), &norm_name(target)),
        Metric::Url => url_match(response, target),
    }
}

/// 1.0 when the two cells agree under [`norm_name`]; fabula's answer for two unusable values.
fn agree(response: &str, target: &str) -> f64 {
    score(norm_name(response) == norm_name(target))
}

/// Turns a verdict into a cell score.
fn score(verdict: bool) -> f64 {
    if verdict { 1.0 } else { 0.0 }
}

/// WideSearch's `exact_match`: case-insensitive equality.
pub fn exact_match(response: &str, target: &str) -> f64 {
    score(response.to_lowercase() == target.to_lowercase())
}

/// WideSearch's `number_near`: 1.0 when `|r - t| <= |t| * criterion`, where a value with `%` is
/// divided by 100. With the default criterion 0.0 this is exact numeric equality, so `12345`
/// and `12345.0` agree and `12346` does not. When neither side is a number the two strings must
/// agree under [`norm_name`]; when only one is, the score is 0.0.
pub fn number_near(response: &str, target: &str, criterion: f64) -> f64 {
    match (
        parse_extracted_number(response),
        parse_extracted_number(target),
    ) {
        (Some(response), Some(target)) => {
            score((response - target).abs() <= target.abs() * criterion)
        }
        (None, None) => agree(response, target),
        _ => 0.0,
    }
}

/// WideSearch's `date_near`: 1.0 when the two dates are at most 31 days apart.
///
/// fabula's deterministic reading of partial dates: a month reads as its first day; when the
/// gold date is a bare year, any prediction in that year scores 1.0; when only the prediction is
/// a bare year it reads as 1 January. Two non-dates must agree under [`norm_name`]; one date and
/// one non-date score 0.0.
pub fn date_near(response: &str, target: &str) -> f64 {
    match (parse_date(response), parse_date(target)) {
        (Some(response), Some(target)) if target.precision == DatePrecision::Year => {
            score(response.year == target.year)
        }
        (Some(response), Some(target)) => score((response.days() - target.days()).abs() <= 31),
        (None, None) => agree(response, target),
        _ => 0.0,
    }
}

/// WideSearch's `in_match`: 1.0 when the response is a substring of the gold cell. An empty
/// response scores 0.0 (WideSearch would give 1.0).
pub fn in_match(response: &str, target: &str) -> f64 {
    score(!response.is_empty() && target.contains(response))
}

/// WideSearch's `url_match`: 1.0 when the two cells name the same set of hosts. URLs are found
/// with WideSearch's pattern (`http://` or `https://` followed by URL characters); hosts compare
/// case-insensitively. Two cells without any URL must agree under [`norm_name`].
pub fn url_match(response: &str, target: &str) -> f64 {
    let (response_hosts, target_hosts) = (url_hosts(response), url_hosts(target));
    if response_hosts.is_empty() && target_hosts.is_empty() {
        return agree(response, target);
    }
    score(response_hosts == target_hosts)
}

/// The set of hosts (`netloc`, lowercased) of the URLs in a cell.
fn url_hosts(text: &str) -> std::collections::BTreeSet<String> {
    let mut hosts = std::collections::BTreeSet::new();
    let mut rest = text;
    while let Some(found) = rest.find("http") {
        let candidate = &rest[found..];
        let after_scheme = candidate
            .strip_prefix("https://")
            .or_else(|| candidate.strip_prefix("http://"));
        let Some(after_scheme) = after_scheme else {
            rest = &candidate[4..];
            continue;
        };
        let url_len = after_scheme
            .find(|c: char| !is_url_char(c))
            .unwrap_or(after_scheme.len());
        let url = &after_scheme[..url_len];
        if !url.is_empty() {
            let host_len = url.find(['/', '?', '#']).unwrap_or(url.len());
            hosts.insert(url[..host_len].to_lowercase());
        }
        rest = &after_scheme[url_len..];
    }
    hosts
}

/// The characters of WideSearch's URL pattern:
/// `[a-zA-Z]|[0-9]|[$-_@.&+]|[!*\(\),]` (the range `$-_` spans 0x24 to 0x5F).
fn is_url_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || ('$'..='_').contains(&c)
        || matches!(c, '!' | '*' | '(' | ')' | ',')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_near_follows_widesearch() {
        assert_eq!(number_near("105", "100", 0.05), 1.0);
        assert_eq!(number_near("105.1", "100", 0.05), 0.0);
        assert_eq!(number_near("12.5%", "0.125", 0.0), 1.0);
        assert_eq!(number_near("12.5", "0.125", 0.0), 0.0);
        assert_eq!(number_near("0", "0", 0.0), 1.0);
        assert_eq!(number_near("NULL", "5", 0.1), 0.0);
    }

    #[test]
    fn date_near_reads_partial_dates() {
        assert_eq!(date_near("1987-03-05", "1987-04-05"), 1.0);
        assert_eq!(date_near("1987-03-05", "1987-04-06"), 0.0);
        assert_eq!(date_near("1987-11-30", "1987"), 1.0);
        assert_eq!(date_near("1987", "1987-01-20"), 1.0);
        assert_eq!(date_near("1987", "1987-06-01"), 0.0);
        assert_eq!(date_near("soon", "1987"), 0.0);
        assert_eq!(date_near("n/a", "N/A"), 1.0);
    }

    #[test]
    fn url_match_compares_hosts() {
        assert_eq!(
            url_match("see https://Vess.test/a?b", "http://vess.test/"),
            1.0
        );
        assert_eq!(url_match("[x](https://a.test/p)", "https://a.test"), 1.0);
        assert_eq!(
            url_match("https://a.test https://b.test", "https://a.test"),
            0.0
        );
        assert_eq!(url_match("none", "https://a.test"), 0.0);
        assert_eq!(url_match("none", "None"), 1.0);
    }

    #[test]
    fn in_match_needs_a_non_empty_response() {
        assert_eq!(in_match("guild", "coastguild"), 1.0);
        assert_eq!(in_match("", "coastguild"), 0.0);
        assert_eq!(in_match("coastguilds", "coastguild"), 0.0);
    }

    #[test]
    fn score_cell_applies_the_pipeline() {
        assert_eq!(
            score_cell(Metric::Exact, "**Vel Arun**", "vel arun", 0.0),
            1.0
        );
        assert_eq!(
            score_cell(Metric::Number, "12,345 people", "12345", 0.0),
            1.0
        );
        assert_eq!(score_cell(Metric::Number, "n/a", "unknown", 0.0), 0.0);
        assert_eq!(score_cell(Metric::Number, "", "", 0.0), 1.0);
        assert_eq!(
            score_cell(Metric::Date, "March 20, 1987", "1987-03-05", 0.0),
            1.0
        );
        assert_eq!(
            score_cell(Metric::In, "Coast Guild", "The Coast Guild of Vess", 0.0),
            1.0
        );
    }
}
