//! Tavily's result filters over a world's pages: `include_domains` and `exclude_domains` by url,
//! `time_range`, `start_date` and `end_date` by publication date.
//!
//! A domain entry is a host, matching it and its subdomains (`example.org` matches
//! `www.example.org`), optionally with a path prefix (`example.org/wiki`); a scheme and a
//! leading `*.` are ignored, and an entry that names no host matches nothing.
//!
//! A world has no clock, so `time_range` counts back from the world's own "today", the latest
//! publication date of its pages: `day` (or `d`) keeps the pages of that date and the day before,
//! `week` (`w`) the last 7 days, `month` (`m`) and `year` (`y`) back to the same day of the
//! previous month or year. Dates are inclusive; a day past the end of its month is read as the
//! month's last day. With any date filter, pages without a date (encyclopedia articles, lists)
//! are left out, as Tavily leaves out pages it cannot date.

use std::fmt;

/// The most `include_domains`, as in Tavily.
pub const MAX_INCLUDE_DOMAINS: usize = 300;
/// The most `exclude_domains`, as in Tavily.
pub const MAX_EXCLUDE_DOMAINS: usize = 150;

/// The dates [`Date::parse`] reads, as a regular expression for the API's schema.
pub const DATE_PATTERN: &str = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$";

/// How far back `time_range` reaches from the world's today.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeRange {
    Day,
    Week,
    Month,
    Year,
}

impl TimeRange {
    /// Reads Tavily's spellings: `day`, `week`, `month`, `year` or `d`, `w`, `m`, `y`.
    pub fn parse(text: &str) -> Result<TimeRange, String> {
        match text {
            "day" | "d" => Ok(TimeRange::Day),
            "week" | "w" => Ok(TimeRange::Week),
            "month" | "m" => Ok(TimeRange::Month),
            "year" | "y" => Ok(TimeRange::Year),
            other => Err(format!(
                "time_range must be day, week, month or year (or d, w, m, y), not `{other}`"
            )),
        }
    }

    /// The first day the range keeps, counting back from `today`.
    fn start(self, today: Date) -> Date {
        match self {
            TimeRange::Day => today.minus_days(1),
            TimeRange::Week => today.minus_days(7),
            TimeRange::Month => today.minus_months(1),
            TimeRange::Year => today.minus_months(12),
        }
    }
}

/// A calendar date (proleptic Gregorian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    year: i64,
    month: u32,
    day: u32,
}

impl Date {
    /// Reads `YYYY-MM-DD` (the pattern [`DATE_PATTERN`]); a day past the end of its month
    /// (`2139-02-30`) is read as the month's last day.
    pub fn parse(text: &str) -> Option<Date> {
        let mut parts = text.splitn(3, '-');
        let (year, month, day) = (parts.next()?, parts.next()?, parts.next()?);
        if year.len() != 4 || month.len() != 2 || day.len() != 2 {
            return None;
        }
        let digits = |text: &str| text.bytes().all(|b| b.is_ascii_digit());
        if !(digits(year) && digits(month) && digits(day)) {
            return None;
        }
        let (year, month, day): (i64, u32, u32) =
            (year.parse().ok()?, month.parse().ok()?, day.parse().ok()?);
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
            return None;
        }
        Some(Date {
            year,
            month,
            day: day.min(days_in_month(year, month)),
        })
    }

    fn minus_days(self, n_days: i64) -> Date {
        from_day_number(day_number(self) - n_days)
    }

    /// The same day `n_months` earlier, or the last day of that month when it is shorter.
    fn minus_months(self, n_months: i64) -> Date {
        let months = self.year * 12 + i64::from(self.month) - 1 - n_months;
        let (year, month) = (months.div_euclid(12), months.rem_euclid(12) as u32 + 1);
        Date {
            year,
            month,
            day: self.day.min(days_in_month(year, month)),
        }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
fn day_number(date: Date) -> i64 {
    let year = date.year - i64::from(date.month <= 2);
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month = i64::from(date.month);
    let day_of_year =
        (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + i64::from(date.day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a day number (Howard Hinnant's `civil_from_days`).
fn from_day_number(days: i64) -> Date {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    Date {
        year: year_of_era + era * 400 + i64::from(month <= 2),
        month,
        day,
    }
}

/// One `include_domains` or `exclude_domains` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Domain {
    host: String,
    /// A path prefix, `""` for the whole host.
    path: String,
}

impl Domain {
    /// Reads an entry; one that names no host (empty, or with spaces) matches no page.
    fn parse(text: &str) -> Domain {
        let lower = text.trim().to_ascii_lowercase();
        let rest = lower
            .strip_prefix("https://")
            .or_else(|| lower.strip_prefix("http://"))
            .unwrap_or(&lower);
        let rest = rest.strip_prefix("*.").unwrap_or(rest);
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        Domain {
            host: host.to_owned(),
            path: path.trim_end_matches('/').to_owned(),
        }
    }

    fn matches(&self, host: &str, path: &str) -> bool {
        if self.host.is_empty() || self.host.contains(char::is_whitespace) {
            return false;
        }
        let host_matches = host == self.host
            || host
                .strip_suffix(&self.host)
                .is_some_and(|sub| sub.ends_with('.'));
        host_matches && path.starts_with(&self.path)
    }
}

/// The host (lower case) and path of a page url.
fn host_and_path(url: &str) -> (String, &str) {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .unwrap_or(url);
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    (host.to_ascii_lowercase(), path)
}

/// The filters of one search request, before the world's today is known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    include: Vec<Domain>,
    exclude: Vec<Domain>,
    time_range: Option<TimeRange>,
    start_date: Option<Date>,
    end_date: Option<Date>,
}

/// What a search request asks to filter by, as sent.
#[derive(Debug, Clone, Copy, Default)]
pub struct FilterRequest<'a> {
    pub include_domains: &'a [String],
    pub exclude_domains: &'a [String],
    pub time_range: Option<&'a str>,
    pub start_date: Option<&'a str>,
    pub end_date: Option<&'a str>,
}

impl Filters {
    /// Checks and reads a request's filters; the error is a message for a 400.
    pub fn parse(request: FilterRequest<'_>) -> Result<Filters, String> {
        let domains = |list: &[String], field: &str, max: usize| {
            if list.len() > max {
                return Err(format!("{field} may name at most {max} domains"));
            }
            Ok(list.iter().map(|text| Domain::parse(text)).collect())
        };
        let date = |text: Option<&str>, field: &str| match text {
            None => Ok(None),
            Some(text) => Date::parse(text)
                .map(Some)
                .ok_or_else(|| format!("{field} must be a date YYYY-MM-DD, not `{text}`")),
        };
        Ok(Filters {
            include: domains(
                request.include_domains,
                "include_domains",
                MAX_INCLUDE_DOMAINS,
            )?,
            exclude: domains(
                request.exclude_domains,
                "exclude_domains",
                MAX_EXCLUDE_DOMAINS,
            )?,
            time_range: request.time_range.map(TimeRange::parse).transpose()?,
            start_date: date(request.start_date, "start_date")?,
            end_date: date(request.end_date, "end_date")?,
        })
    }

    /// Whether every page passes.
    pub fn is_empty(&self) -> bool {
        *self == Filters::default()
    }

    /// The filters for a world whose latest page date is `today`.
    pub fn for_world(&self, today: Option<&str>) -> PageFilter<'_> {
        let since_range = self
            .time_range
            .map(|range| today.and_then(Date::parse).map(|today| range.start(today)));
        PageFilter {
            filters: self,
            // A time range in a world without dates keeps nothing.
            nothing: since_range == Some(None),
            since: [since_range.flatten(), self.start_date]
                .into_iter()
                .flatten()
                .max(),
        }
    }
}

/// [`Filters`] resolved against one world's today.
#[derive(Debug, Clone, Copy)]
pub struct PageFilter<'a> {
    filters: &'a Filters,
    nothing: bool,
    since: Option<Date>,
}

impl PageFilter<'_> {
    /// Whether a page with this url and publication date passes.
    pub fn keep(&self, url: &str, date: Option<&str>) -> bool {
        if self.nothing {
            return false;
        }
        let (host, path) = host_and_path(url);
        let filters = self.filters;
        if !filters.include.is_empty() && !filters.include.iter().any(|d| d.matches(&host, path)) {
            return false;
        }
        if filters.exclude.iter().any(|d| d.matches(&host, path)) {
            return false;
        }
        if self.since.is_none() && filters.end_date.is_none() {
            return true;
        }
        let Some(date) = date.and_then(Date::parse) else {
            return false;
        };
        self.since.is_none_or(|since| date >= since)
            && filters.end_date.is_none_or(|end| date <= end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filters(request: FilterRequest<'_>) -> Filters {
        Filters::parse(request).unwrap()
    }

    #[test]
    fn date_arithmetic_counts_back_in_the_calendar() {
        let check = |range: &str, today: &str, expect: &str| {
            let range = TimeRange::parse(range).unwrap();
            let start = range.start(Date::parse(today).unwrap());
            assert_eq!(start.to_string(), expect, "{range:?} from {today}");
        };
        check("day", "2139-12-16", "2139-12-15");
        check("d", "2140-03-01", "2140-02-29");
        check("week", "2139-01-03", "2138-12-27");
        check("month", "2139-03-31", "2139-02-28");
        check("m", "2139-01-15", "2138-12-15");
        check("year", "2140-02-29", "2139-02-28");
        check("y", "0001-06-01", "0000-06-01");
        assert!(TimeRange::parse("fortnight").is_err());
        for bad in [
            "2139-13-01",
            "2139-02-32",
            "+139-01-01",
            "39-01-01",
            "2139-1-01",
            "2139-01-01x",
        ] {
            assert_eq!(Date::parse(bad), None, "{bad}");
        }
        assert_eq!(Date::parse("2139-02-30").unwrap().to_string(), "2139-02-28");
        for days in [-800_000, -1, 0, 59, 60, 365, 800_000] {
            assert_eq!(day_number(from_day_number(days)), days);
        }
    }

    #[test]
    fn domains_match_hosts_subdomains_and_path_prefixes() {
        let check = |entry: &str, url: &str, expect: bool| {
            let domain = Domain::parse(entry);
            let (host, path) = host_and_path(url);
            assert_eq!(domain.matches(&host, path), expect, "{entry} on {url}");
        };
        check(
            "einoan-courier.com",
            "https://www.einoan-courier.com/2139/12/16/x",
            true,
        );
        check(
            "https://Einoan-Courier.com/",
            "https://www.einoan-courier.com/2139/x",
            true,
        );
        check(
            "*.einoan.org",
            "https://archive.einoan.org/yearbook/2073",
            true,
        );
        check(
            "einoanpedia.org/wiki",
            "https://einoanpedia.org/wiki/Quolpei_Oushoa",
            true,
        );
        check(
            "einoanpedia.org/list",
            "https://einoanpedia.org/wiki/Quolpei_Oushoa",
            false,
        );
        check(
            "noan.org",
            "https://archive.einoan.org/yearbook/2073",
            false,
        );
        check(" ", "https://veloria.example/", false);
        check("a b.org", "https://b.org/", false);
        check("https://", "https://veloria.example/", false);
    }

    #[test]
    fn pages_pass_by_domain_and_date() {
        let include = ["einoan-courier.com".to_owned()];
        let exclude = ["archive.einoan.org".to_owned()];
        let news = "https://www.einoan-courier.com/2139/12/16/a";
        let yearbook = "https://archive.einoan.org/yearbook/2073";
        let article = "https://einoanpedia.org/wiki/Quolpei_Oushoa";

        let only_news = filters(FilterRequest {
            include_domains: &include,
            ..Default::default()
        });
        let keep = only_news.for_world(Some("2139-12-16"));
        assert!(keep.keep(news, Some("2139-12-16")));
        assert!(!keep.keep(article, None));

        let no_archive = filters(FilterRequest {
            exclude_domains: &exclude,
            ..Default::default()
        });
        let keep = no_archive.for_world(None);
        assert!(!keep.keep(yearbook, Some("2073-12-31")));
        assert!(keep.keep(article, None));

        let last_week = filters(FilterRequest {
            time_range: Some("week"),
            ..Default::default()
        });
        let keep = last_week.for_world(Some("2139-12-16"));
        assert!(keep.keep(news, Some("2139-12-09")));
        assert!(!keep.keep(news, Some("2139-12-08")));
        assert!(!keep.keep(article, None));
        assert!(!last_week.for_world(None).keep(news, Some("2139-12-16")));

        let window = filters(FilterRequest {
            start_date: Some("2139-01-01"),
            end_date: Some("2139-06-30"),
            time_range: Some("y"),
            ..Default::default()
        });
        let keep = window.for_world(Some("2139-12-16"));
        assert!(keep.keep(news, Some("2139-06-30")));
        assert!(!keep.keep(news, Some("2139-07-01")));
        assert!(!keep.keep(news, Some("2138-12-31")));
        assert!(filters(FilterRequest::default()).is_empty());
    }

    #[test]
    fn bad_filters_say_what_is_wrong() {
        let too_many = vec!["a.org".to_owned(); MAX_EXCLUDE_DOMAINS + 1];
        let check = |request: FilterRequest<'_>, expect: &str| {
            let error = Filters::parse(request).unwrap_err();
            assert!(error.contains(expect), "{error}");
        };
        check(
            FilterRequest {
                exclude_domains: &too_many,
                ..Default::default()
            },
            "at most 150",
        );
        check(
            FilterRequest {
                time_range: Some("hour"),
                ..Default::default()
            },
            "time_range",
        );
        check(
            FilterRequest {
                start_date: Some("2139/01/01"),
                ..Default::default()
            },
            "start_date",
        );
    }
}
