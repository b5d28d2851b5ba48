//! The scorer's readings of dates, over `fabula_date`'s parser: WideSearch's `norm_date`
//! preprocess, the canonical form of a short answer that is a date, and the test that infers a
//! gold column's `date` metric.

use fabula_date::{DatePrecision, parse_date};

/// WideSearch's `norm_date`: the date as `YYYY-MM-DD`, or the text unchanged when it is not a
/// date. A year alone stays `YYYY`, so that its precision survives into `date_near`.
pub(crate) fn norm_date(text: &str) -> String {
    match parse_date(text) {
        Some(date) if date.precision == DatePrecision::Year => format!("{:04}", date.year),
        Some(date) => date.iso(),
        None => text.to_string(),
    }
}

/// The canonical form of a short answer that is wholly a date with at least a month:
/// `YYYY-MM-DD` for a day, `YYYY-MM` for a month. A bare year is left to number normalisation.
pub(crate) fn answer_date(text: &str) -> Option<String> {
    let date = parse_date(text)?;
    match date.precision {
        DatePrecision::Year => None,
        DatePrecision::Month => Some(format!("{:04}-{:02}", date.year, date.month)),
        DatePrecision::Day => Some(date.iso()),
    }
}

/// Whether a gold cell is written as an ISO date `YYYY-MM-DD` or a bare four-digit year, the
/// test that infers the `date` metric for a column.
pub(crate) fn is_iso_date_or_year(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_digit);
    match bytes.len() {
        4 => digits(0..4),
        10 => {
            digits(0..4)
                && bytes[4] == b'-'
                && digits(5..7)
                && bytes[7] == b'-'
                && digits(8..10)
                && parse_date(text).is_some()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norm_date_keeps_years_and_unknowns() {
        assert_eq!(norm_date("March 1987"), "1987-03-01");
        assert_eq!(norm_date("1987"), "1987");
        assert_eq!(norm_date("unknown"), "unknown");
    }

    #[test]
    fn infers_iso_dates_and_years() {
        assert!(is_iso_date_or_year("1987"));
        assert!(is_iso_date_or_year("1987-03-05"));
        assert!(!is_iso_date_or_year("1987-02-30"));
        assert!(!is_iso_date_or_year("March 1987"));
    }
}
