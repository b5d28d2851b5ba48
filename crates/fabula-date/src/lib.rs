//! Dates for fabula: a small, deterministic parser of written dates and the workspace's one
//! calendar arithmetic. It has no dependencies, so the scorer (and its Python wheel) can use it.
//!
//! The parser stands in for Python's `dateparser`, which WideSearch normalises dates with and
//! which fills a missing day with the first of the month and a missing month with the current
//! month. A reward must not depend on the clock, so [`parse_date`] keeps the precision instead:
//! a year alone stays a year (`fabula-score`'s `date_near` says how such dates compare).
//!
//! Accepted forms, case-insensitive, after trimming and dropping `*` and a final `.`:
//! `YYYY`, `YYYY-MM`, `YYYY-MM-DD` (separators `-`, `/` or `.`, optionally followed by a time after
//! `T` or a space), `M/D/YYYY` and `D/M/YYYY` (month first unless the first number exceeds 12, as
//! `dateparser` reads English), `YYYY年M月D日`, and English month names or their three-letter
//! abbreviations with a four-digit year and an optional day (`March 5, 1987`, `5th Mar 1987`,
//! `March 1987`). A date without a year is not accepted.
//!
//! [`CivilDate`] is the workspace's one calendar arithmetic (proleptic Gregorian): day numbers,
//! counting back days and months, weekdays and HTTP dates. The scorer compares dates by their day
//! numbers, `fabula check` reads page dates with [`parse_date`], the world model's verifier knows
//! month names by [`month_number`], and the server's Tavily date filters count back with
//! [`CivilDate`].

use std::fmt;

/// How much of a date was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DatePrecision {
    /// Only the year, as in `1987`.
    Year,
    /// Year and month, as in `March 1987`; the day reads as the first.
    Month,
    /// A full calendar date.
    Day,
}

/// A parsed calendar date. Fields not written are 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsedDate {
    /// The year.
    pub year: i32,
    /// The month, 1 to 12.
    pub month: u32,
    /// The day of the month.
    pub day: u32,
    /// How much of the date was written.
    pub precision: DatePrecision,
}

impl ParsedDate {
    /// The date as `YYYY-MM-DD`, with unwritten fields as 1.
    pub fn iso(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// The calendar day, with unwritten fields as 1.
    pub fn civil(&self) -> CivilDate {
        CivilDate {
            year: i64::from(self.year),
            month: self.month,
            day: self.day,
        }
    }

    /// Days since 1970-01-01.
    pub fn days(&self) -> i64 {
        self.civil().days()
    }
}

/// A day of the proleptic Gregorian calendar. Dates order chronologically; `Display` writes
/// `YYYY-MM-DD`.
///
/// ```
/// use fabula_date::CivilDate;
/// let day = CivilDate::new(2140, 3, 31).unwrap();
/// assert_eq!(day.minus_months(1).to_string(), "2140-02-29");
/// assert_eq!(day.minus_days(31).to_string(), "2140-02-29");
/// assert_eq!(CivilDate::from_days(day.days()), day);
/// assert_eq!(CivilDate::new(1970, 1, 1).unwrap().http_date(), "Thu, 01 Jan 1970 00:00:00 GMT");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CivilDate {
    year: i64,
    month: u32,
    day: u32,
}

impl CivilDate {
    /// The date, if the month and the day exist.
    pub fn new(year: i64, month: u32, day: u32) -> Option<CivilDate> {
        let exists = (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month);
        exists.then_some(CivilDate { year, month, day })
    }

    /// Reads exactly `YYYY-MM-DD` (four, two and two ASCII digits). A day past the end of its
    /// month (`2139-02-30`) is read as the month's last day; a month or day of 0, a month past
    /// 12 or a day past 31 is not a date.
    pub fn parse_iso_clamped(text: &str) -> Option<CivilDate> {
        let bytes = text.as_bytes();
        let digits = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_digit);
        let shaped = bytes.len() == 10
            && digits(0..4)
            && bytes[4] == b'-'
            && digits(5..7)
            && bytes[7] == b'-'
            && digits(8..10);
        if !shaped {
            return None;
        }
        let (year, month, day): (i64, u32, u32) = (
            text[0..4].parse().ok()?,
            text[5..7].parse().ok()?,
            text[8..10].parse().ok()?,
        );
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
            return None;
        }
        CivilDate::new(year, month, day.min(days_in_month(year, month)))
    }

    /// The year.
    pub fn year(self) -> i64 {
        self.year
    }

    /// The month, 1 to 12.
    pub fn month(self) -> u32 {
        self.month
    }

    /// The day of the month.
    pub fn day(self) -> u32 {
        self.day
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    pub fn days(self) -> i64 {
        let year = self.year - i64::from(self.month <= 2);
        let era = year.div_euclid(400);
        let year_of_era = year - era * 400;
        let month = i64::from(self.month);
        let month_index = if month > 2 { month - 3 } else { month + 9 };
        let day_of_year = (153 * month_index + 2) / 5 + i64::from(self.day) - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        era * 146_097 + day_of_era - 719_468
    }

    /// The date `days` days after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    pub fn from_days(days: i64) -> CivilDate {
        let days = days + 719_468;
        let era = days.div_euclid(146_097);
        let day_of_era = days - era * 146_097;
        let year_of_era =
            (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let month_index = (5 * day_of_year + 2) / 153;
        let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
        let month = if month_index < 10 {
            month_index + 3
        } else {
            month_index - 9
        } as u32;
        CivilDate {
            year: year_of_era + era * 400 + i64::from(month <= 2),
            month,
            day,
        }
    }

    /// The date `n_days` earlier.
    pub fn minus_days(self, n_days: i64) -> CivilDate {
        CivilDate::from_days(self.days() - n_days)
    }

    /// The same day `n_months` earlier, or the last day of that month when it is shorter.
    pub fn minus_months(self, n_months: i64) -> CivilDate {
        let months = self.year * 12 + i64::from(self.month) - 1 - n_months;
        let (year, month) = (months.div_euclid(12), months.rem_euclid(12) as u32 + 1);
        CivilDate {
            year,
            month,
            day: self.day.min(days_in_month(year, month)),
        }
    }

    /// The ISO weekday: 1 for Monday to 7 for Sunday.
    pub fn weekday(self) -> u32 {
        // 1970-01-01 was a Thursday.
        (self.days() + 3).rem_euclid(7) as u32 + 1
    }

    /// The start of the day as an HTTP date (RFC 9110's IMF-fixdate), as in
    /// `Thu, 01 Jan 1970 00:00:00 GMT`.
    pub fn http_date(self) -> String {
        const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
        let weekday = WEEKDAYS[self.weekday() as usize - 1];
        let month = &MONTHS[self.month as usize - 1][..3];
        let month = format!("{}{}", month[..1].to_ascii_uppercase(), &month[1..]);
        format!(
            "{weekday}, {:02} {month} {:04} 00:00:00 GMT",
            self.day, self.year
        )
    }
}

impl CivilDate {
    /// The date as Qwen-AgentWorld's search results write it: `Jun 18, 2024`.
    pub fn month_day_year(self) -> String {
        let month = &MONTHS[self.month as usize - 1][..3];
        let month = format!("{}{}", month[..1].to_ascii_uppercase(), &month[1..]);
        format!("{month} {}, {}", self.day, self.year)
    }
}

/// A page's date (`YYYY-MM-DD`, as pages and the REST answers keep it) as an observation writes
/// it, in Qwen-AgentWorld's style: `Jun 18, 2024`. Anything not shaped so is given back as it is.
///
/// ```
/// assert_eq!(fabula_date::observation_date("2024-06-18"), "Jun 18, 2024");
/// assert_eq!(fabula_date::observation_date("N/A"), "N/A");
/// ```
pub fn observation_date(iso: &str) -> std::borrow::Cow<'_, str> {
    match CivilDate::parse_iso_clamped(iso) {
        Some(date) if date.to_string() == iso => date.month_day_year().into(),
        _ => iso.into(),
    }
}

/// An observation's date read back as `YYYY-MM-DD`: `Jun 18, 2024` (any form [`parse_date`]
/// reads with a day, ISO included); `None` for anything else.
///
/// ```
/// assert_eq!(fabula_date::observation_date_iso("Jun 18, 2024").as_deref(), Some("2024-06-18"));
/// assert_eq!(fabula_date::observation_date_iso("2024-06-18").as_deref(), Some("2024-06-18"));
/// assert_eq!(fabula_date::observation_date_iso("June 2024"), None);
/// ```
pub fn observation_date_iso(text: &str) -> Option<String> {
    let parsed = parse_date(text).filter(|p| p.precision == DatePrecision::Day)?;
    let date = CivilDate::new(i64::from(parsed.year), parsed.month, parsed.day)?;
    Some(date.to_string())
}

impl fmt::Display for CivilDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// Parses a date in one of the forms listed in the module docs.
///
/// ```
/// use fabula_date::{parse_date, DatePrecision};
/// let date = parse_date("5th March 1987").unwrap();
/// assert_eq!((date.iso(), date.precision), ("1987-03-05".to_string(), DatePrecision::Day));
/// ```
pub fn parse_date(text: &str) -> Option<ParsedDate> {
    let cleaned: String = text.trim().chars().filter(|&c| c != '*').collect();
    let cleaned = cleaned.trim().trim_end_matches('.').trim().to_lowercase();
    if cleaned.is_empty() {
        return None;
    }
    if cleaned.contains('年') {
        let numeric = cleaned.replace(['年', '月'], "-").replace('日', "");
        return parse_year_first(numeric.trim().trim_end_matches('-'));
    }
    parse_year_first(&cleaned)
        .or_else(|| parse_year_last(&cleaned))
        .or_else(|| parse_words(&cleaned))
}

/// Builds a date after checking that the month and day exist.
fn make_date(year: i32, month: u32, day: u32, precision: DatePrecision) -> Option<ParsedDate> {
    CivilDate::new(i64::from(year), month, day)?;
    Some(ParsedDate {
        year,
        month,
        day,
        precision,
    })
}

/// The number of days in a month (1 to 12) of the proleptic Gregorian calendar.
pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// Reads a run of ASCII digits at the start of `text`, at most `max` long.
fn leading_digits(text: &str, max: usize) -> (&str, &str) {
    let len = text
        .bytes()
        .take(max)
        .take_while(u8::is_ascii_digit)
        .count();
    text.split_at(len)
}

/// Parses `YYYY`, `YYYY-MM` and `YYYY-MM-DD`, with `-`, `/` or `.` between the parts.
fn parse_year_first(text: &str) -> Option<ParsedDate> {
    let (year, rest) = leading_digits(text, 4);
    if year.len() != 4 || rest.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let year: i32 = year.parse().ok()?;
    if rest.is_empty() {
        return make_date(year, 1, 1, DatePrecision::Year);
    }
    let rest = rest.strip_prefix(['-', '/', '.'])?;
    let (month, rest) = leading_digits(rest, 2);
    let month: u32 = month.parse().ok()?;
    if rest.is_empty() {
        return make_date(year, month, 1, DatePrecision::Month);
    }
    let rest = rest.strip_prefix(['-', '/', '.'])?;
    let (day, rest) = leading_digits(rest, 2);
    let day: u32 = day.parse().ok()?;
    let time_follows = rest.is_empty()
        || (rest.starts_with(['t', ' '])
            && rest[1..]
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit()));
    if !time_follows {
        return None;
    }
    make_date(year, month, day, DatePrecision::Day)
}

/// Parses `M/D/YYYY` and `D/M/YYYY` (also with `.` or `-`): month first unless the first number
/// exceeds 12.
fn parse_year_last(text: &str) -> Option<ParsedDate> {
    let parts: Vec<&str> = text.split(['/', '.', '-']).collect();
    let [first, second, year] = parts.as_slice() else {
        return None;
    };
    let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(first) || !all_digits(second) || !all_digits(year) {
        return None;
    }
    if first.len() > 2 || second.len() > 2 || year.len() != 4 {
        return None;
    }
    let first: u32 = first.parse().ok()?;
    let second: u32 = second.parse().ok()?;
    let year: i32 = year.parse().ok()?;
    let (month, day) = if first > 12 {
        (second, first)
    } else {
        (first, second)
    };
    make_date(year, month, day, DatePrecision::Day)
}

/// English month names, January first.
const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The month number of a lower-case full or three-letter English month name, or `sept`.
///
/// ```
/// assert_eq!(fabula_date::month_number("march"), Some(3));
/// assert_eq!(fabula_date::month_number("sep"), Some(9));
/// assert_eq!(fabula_date::month_number("marc"), None);
/// ```
pub fn month_number(token: &str) -> Option<u32> {
    if token == "sept" {
        return Some(9);
    }
    let index = MONTHS
        .iter()
        .position(|name| *name == token || (token.len() == 3 && name.starts_with(token)))?;
    u32::try_from(index + 1).ok()
}

/// Parses dates written with an English month name.
fn parse_words(text: &str) -> Option<ParsedDate> {
    let mut year = None;
    let mut month = None;
    let mut day = None;
    for token in text.split(|c: char| c.is_whitespace() || matches!(c, ',' | '-' | '/' | '.')) {
        if token.is_empty() || matches!(token, "of" | "the" | "on") {
            continue;
        }
        if let Some(number) = month_number(token) {
            if month.replace(number).is_some() {
                return None;
            }
            continue;
        }
        let (digits, suffix) = leading_digits(token, usize::MAX);
        if digits.is_empty() {
            return None;
        }
        match (digits.len(), suffix) {
            (4, "") => {
                if year.replace(digits.parse::<i32>().ok()?).is_some() {
                    return None;
                }
            }
            (1 | 2, "" | "st" | "nd" | "rd" | "th") => {
                if day.replace(digits.parse::<u32>().ok()?).is_some() {
                    return None;
                }
            }
            _ => return None,
        }
    }
    let (year, month) = (year?, month?);
    match day {
        Some(day) => make_date(year, month, day, DatePrecision::Day),
        None => make_date(year, month, 1, DatePrecision::Month),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(text: &str) -> Option<(String, DatePrecision)> {
        parse_date(text).map(|date| (date.iso(), date.precision))
    }

    #[test]
    fn parses_the_documented_forms() {
        use DatePrecision::{Day, Month, Year};
        let cases = [
            ("1987", Some(("1987-01-01", Year))),
            ("1987-03", Some(("1987-03-01", Month))),
            ("1987-03-05", Some(("1987-03-05", Day))),
            ("1987/3/5", Some(("1987-03-05", Day))),
            ("1987-03-05T10:00:00Z", Some(("1987-03-05", Day))),
            ("**1987-03-05**", Some(("1987-03-05", Day))),
            ("03/05/1987", Some(("1987-03-05", Day))),
            ("25/12/1987", Some(("1987-12-25", Day))),
            ("1987年3月5日", Some(("1987-03-05", Day))),
            ("1987年3月", Some(("1987-03-01", Month))),
            ("March 5, 1987", Some(("1987-03-05", Day))),
            ("5th Mar. 1987", Some(("1987-03-05", Day))),
            ("the 1st of September 2001", Some(("2001-09-01", Day))),
            ("Sept 2001", Some(("2001-09-01", Month))),
            ("2000-02-29", Some(("2000-02-29", Day))),
        ];
        for (text, expected) in cases {
            let expected = expected.map(|(iso, precision)| (iso.to_string(), precision));
            assert_eq!(iso(text), expected, "{text}");
        }
    }

    #[test]
    fn rejects_non_dates() {
        for text in [
            "",
            "12",
            "1987-13-01",
            "1900-02-29",
            "March 5",
            "about 1987",
            "19870",
            "1.5",
        ] {
            assert_eq!(iso(text), None, "{text}");
        }
    }

    #[test]
    fn days_count_from_the_epoch() {
        let day = |text: &str| parse_date(text).unwrap().days();
        assert_eq!(day("1970-01-01"), 0);
        assert_eq!(day("2000-03-01") - day("2000-02-28"), 2);
        assert_eq!(day("1969-12-31"), -1);
    }

    #[test]
    fn civil_dates_count_back_in_the_calendar() {
        let date = |text: &str| CivilDate::parse_iso_clamped(text).unwrap();
        let check = |from: &str, days: i64, months: i64, expect: &str| {
            let back = date(from).minus_days(days).minus_months(months);
            assert_eq!(
                back.to_string(),
                expect,
                "{from} - {days} days - {months} months"
            );
        };
        check("2139-12-16", 1, 0, "2139-12-15");
        check("2140-03-01", 1, 0, "2140-02-29");
        check("2100-03-01", 1, 0, "2100-02-28");
        check("2139-01-03", 7, 0, "2138-12-27");
        check("2139-03-31", 0, 1, "2139-02-28");
        check("2139-01-15", 0, 1, "2138-12-15");
        check("2140-02-29", 0, 12, "2139-02-28");
        check("0001-06-01", 0, 12, "0000-06-01");
        check("2004-09-01", 30, 0, "2004-08-02");
        for days in [-800_000, -1, 0, 59, 60, 365, 800_000] {
            assert_eq!(CivilDate::from_days(days).days(), days);
        }
        assert_eq!(date("1970-01-01").days(), 0);
        assert!(date("2139-02-28") < date("2139-03-01"));
        assert!(date("0999-12-31") < date("1000-01-01"));
    }

    #[test]
    fn iso_dates_parse_strictly_and_clamp_the_day() {
        let check = |text: &str, expect: Option<&str>| {
            let parsed = CivilDate::parse_iso_clamped(text).map(|d| d.to_string());
            assert_eq!(parsed.as_deref(), expect, "{text}");
        };
        check("2139-02-30", Some("2139-02-28"));
        check("2140-02-31", Some("2140-02-29"));
        check("2139-04-31", Some("2139-04-30"));
        check("2139-12-31", Some("2139-12-31"));
        for bad in [
            "2139-13-01",
            "2139-00-10",
            "2139-01-00",
            "2139-02-32",
            "+139-01-01",
            "39-01-01",
            "2139-1-01",
            "2139-01-01x",
            "2139/01/01",
            "",
        ] {
            check(bad, None);
        }
        assert_eq!(CivilDate::new(2139, 2, 29), None);
        assert_eq!(CivilDate::new(2139, 0, 1), None);
    }

    #[test]
    fn weekdays_and_http_dates() {
        let check = |text: &str, weekday: u32, http: &str| {
            let date = CivilDate::parse_iso_clamped(text).unwrap();
            assert_eq!(
                (date.weekday(), date.http_date().as_str()),
                (weekday, http),
                "{text}"
            );
        };
        check("1970-01-01", 4, "Thu, 01 Jan 1970 00:00:00 GMT");
        check("2025-05-05", 1, "Mon, 05 May 2025 00:00:00 GMT");
        check("2000-02-29", 2, "Tue, 29 Feb 2000 00:00:00 GMT");
        check("1969-12-28", 7, "Sun, 28 Dec 1969 00:00:00 GMT");
        check("2139-09-17", 4, "Thu, 17 Sep 2139 00:00:00 GMT");
    }
}
