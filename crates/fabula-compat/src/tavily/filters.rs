//! Tavily's result filters over a world's pages: `include_domains` and `exclude_domains` by url,
//! `topic` by page kind, `time_range`, `start_date`, `end_date` and `days` by publication date.
//!
//! A domain entry is a host, matching it and its subdomains (`example.org` matches
//! `www.example.org`), optionally with a path prefix (`example.org/wiki`); a scheme and a
//! leading `*.` are ignored, and an entry that names no host matches nothing.
//!
//! `topic: "news"` keeps the world's dated news pages only; `"general"` (the default) keeps every
//! kind; `"finance"` is refused, as the worlds have no financial pages.
//!
//! A world has no clock, so `time_range` and `days` count back from the world's own "today", the
//! latest publication date of its pages: `day` (or `d`) keeps the pages of that date and the day
//! before, `week` (`w`) the last 7 days, `month` (`m`) and `year` (`y`) back to the same day of the
//! previous month or year, and `days: N` back to the date N days before today. As in Tavily,
//! `days` applies to the news topic only (tavily-python's `get_search_context` sends `days: 7`
//! with the general topic, which Tavily ignores), and fabula gives it no default. Dates are
//! inclusive; a day past the end of its month is read as the month's last day. With any date
//! filter, pages without a date (encyclopedia articles, lists) are left out, as Tavily leaves out
//! pages it cannot date. The calendar is `fabula_date::CivilDate`.

use fabula_date::CivilDate;
use fabula_file::PageKind;

/// The most `include_domains`, as in Tavily.
pub const MAX_INCLUDE_DOMAINS: usize = 300;
/// The most `exclude_domains`, as in Tavily.
pub const MAX_EXCLUDE_DOMAINS: usize = 150;

/// The dates [`CivilDate::parse_iso_clamped`] reads, as a regular expression for the API's schema.
pub const DATE_PATTERN: &str = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$";

/// A `days` beyond this reaches before year 0 from any four-digit today, so it keeps every dated
/// page; larger values are read as this one.
const MAX_DAYS: i64 = 10_000 * 366;

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
    fn start(self, today: CivilDate) -> CivilDate {
        match self {
            TimeRange::Day => today.minus_days(1),
            TimeRange::Week => today.minus_days(7),
            TimeRange::Month => today.minus_months(1),
            TimeRange::Year => today.minus_months(12),
        }
    }
}

/// Reads Tavily's `topic`: whether only news pages are kept. `general` (or none) keeps every
/// page; `finance`, a Tavily topic the worlds have no pages for, and unknown topics are errors.
fn news_only(topic: Option<&str>) -> Result<bool, String> {
    match topic {
        None | Some("general") => Ok(false),
        Some("news") => Ok(true),
        Some("finance") => Err(
            "topic `finance` is not supported by fabula: its worlds have no financial pages; \
             use general or news"
                .to_owned(),
        ),
        Some(other) => Err(format!(
            "topic must be general, news or finance, not `{other}`"
        )),
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
    /// `topic: "news"`: news pages only.
    news_only: bool,
    time_range: Option<TimeRange>,
    start_date: Option<CivilDate>,
    end_date: Option<CivilDate>,
    /// `days`, kept with the news topic only.
    days: Option<i64>,
}

/// What a search request asks to filter by, as sent.
#[derive(Debug, Clone, Copy, Default)]
pub struct FilterRequest<'a> {
    pub include_domains: &'a [String],
    pub exclude_domains: &'a [String],
    pub topic: Option<&'a str>,
    pub time_range: Option<&'a str>,
    pub start_date: Option<&'a str>,
    pub end_date: Option<&'a str>,
    pub days: Option<i64>,
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
            Some(text) => CivilDate::parse_iso_clamped(text)
                .map(Some)
                .ok_or_else(|| format!("{field} must be a date YYYY-MM-DD, not `{text}`")),
        };
        let news_only = news_only(request.topic)?;
        let days = match request.days {
            Some(days) if days < 1 => {
                return Err(format!(
                    "days must be a positive number of days, not {days}"
                ));
            }
            days => days.filter(|_| news_only).map(|days| days.min(MAX_DAYS)),
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
            news_only,
            time_range: request.time_range.map(TimeRange::parse).transpose()?,
            start_date: date(request.start_date, "start_date")?,
            end_date: date(request.end_date, "end_date")?,
            days,
        })
    }

    /// Whether every page passes.
    pub fn is_empty(&self) -> bool {
        *self == Filters::default()
    }

    /// The filters for a world whose latest page date is `today`.
    pub fn for_world(&self, today: Option<&str>) -> PageFilter<'_> {
        let today = today.and_then(CivilDate::parse_iso_clamped);
        let relative = [
            self.time_range
                .map(|range| today.map(|today| range.start(today))),
            self.days
                .map(|days| today.map(|today| today.minus_days(days))),
        ];
        PageFilter {
            filters: self,
            // A time range or `days` in a world without dates keeps nothing.
            nothing: relative.contains(&Some(None)),
            since: relative
                .into_iter()
                .flatten()
                .flatten()
                .chain(self.start_date)
                .max(),
        }
    }
}

/// [`Filters`] resolved against one world's today.
#[derive(Debug, Clone, Copy)]
pub struct PageFilter<'a> {
    filters: &'a Filters,
    nothing: bool,
    since: Option<CivilDate>,
}

/// What the filters read of one page.
#[derive(Debug, Clone, Copy)]
pub struct PageFacts<'a> {
    pub url: &'a str,
    /// The publication date (`YYYY-MM-DD`), `None` for reference pages.
    pub date: Option<&'a str>,
    pub kind: PageKind,
}

impl PageFilter<'_> {
    /// Whether a page passes.
    pub fn keep(&self, page: PageFacts<'_>) -> bool {
        if self.nothing {
            return false;
        }
        let (host, path) = host_and_path(page.url);
        let filters = self.filters;
        if !filters.include.is_empty() && !filters.include.iter().any(|d| d.matches(&host, path)) {
            return false;
        }
        if filters.exclude.iter().any(|d| d.matches(&host, path)) {
            return false;
        }
        let date = page.date.and_then(CivilDate::parse_iso_clamped);
        if filters.news_only && (page.kind != PageKind::News || date.is_none()) {
            return false;
        }
        if self.since.is_none() && filters.end_date.is_none() {
            return true;
        }
        let Some(date) = date else {
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
    fn time_ranges_count_back_in_the_calendar() {
        let check = |range: &str, today: &str, expect: &str| {
            let range = TimeRange::parse(range).unwrap();
            let start = range.start(CivilDate::parse_iso_clamped(today).unwrap());
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

    /// A page of a kind, at a url, with a date.
    fn page<'a>(kind: PageKind, url: &'a str, date: Option<&'a str>) -> PageFacts<'a> {
        PageFacts { url, date, kind }
    }

    #[test]
    fn pages_pass_by_domain_and_date() {
        let include = ["einoan-courier.com".to_owned()];
        let exclude = ["archive.einoan.org".to_owned()];
        let news = |date| {
            page(
                PageKind::News,
                "https://www.einoan-courier.com/2139/12/16/a",
                date,
            )
        };
        let yearbook = page(
            PageKind::History,
            "https://archive.einoan.org/yearbook/2073",
            Some("2073-12-31"),
        );
        let article = page(
            PageKind::Entity,
            "https://einoanpedia.org/wiki/Quolpei_Oushoa",
            None,
        );

        let only_news = filters(FilterRequest {
            include_domains: &include,
            ..Default::default()
        });
        let keep = only_news.for_world(Some("2139-12-16"));
        assert!(keep.keep(news(Some("2139-12-16"))));
        assert!(!keep.keep(article));

        let no_archive = filters(FilterRequest {
            exclude_domains: &exclude,
            ..Default::default()
        });
        let keep = no_archive.for_world(None);
        assert!(!keep.keep(yearbook));
        assert!(keep.keep(article));

        let last_week = filters(FilterRequest {
            time_range: Some("week"),
            ..Default::default()
        });
        let keep = last_week.for_world(Some("2139-12-16"));
        assert!(keep.keep(news(Some("2139-12-09"))));
        assert!(!keep.keep(news(Some("2139-12-08"))));
        assert!(!keep.keep(article));
        assert!(!last_week.for_world(None).keep(news(Some("2139-12-16"))));

        let window = filters(FilterRequest {
            start_date: Some("2139-01-01"),
            end_date: Some("2139-06-30"),
            time_range: Some("y"),
            ..Default::default()
        });
        let keep = window.for_world(Some("2139-12-16"));
        assert!(keep.keep(news(Some("2139-06-30"))));
        assert!(!keep.keep(news(Some("2139-07-01"))));
        assert!(!keep.keep(news(Some("2138-12-31"))));
        assert!(filters(FilterRequest::default()).is_empty());
    }

    #[test]
    fn the_news_topic_keeps_dated_news_and_days_counts_back_from_today() {
        // (topic, days, page kind, page date, kept), in a world whose today is 2139-12-16.
        let cases = [
            (None, None, PageKind::Entity, None, true),
            (
                Some("general"),
                None,
                PageKind::History,
                Some("2073-12-31"),
                true,
            ),
            (Some("news"), None, PageKind::News, Some("2001-01-01"), true),
            (Some("news"), None, PageKind::News, None, false),
            (
                Some("news"),
                None,
                PageKind::History,
                Some("2139-12-16"),
                false,
            ),
            (Some("news"), None, PageKind::Entity, None, false),
            (Some("news"), None, PageKind::List, None, false),
            (
                Some("news"),
                Some(3),
                PageKind::News,
                Some("2139-12-13"),
                true,
            ),
            (
                Some("news"),
                Some(3),
                PageKind::News,
                Some("2139-12-12"),
                false,
            ),
            (
                Some("news"),
                Some(1),
                PageKind::News,
                Some("2139-12-16"),
                true,
            ),
            (
                Some("news"),
                Some(i64::MAX),
                PageKind::News,
                Some("0000-01-01"),
                true,
            ),
            // As in Tavily, `days` applies to the news topic only.
            (
                Some("general"),
                Some(3),
                PageKind::News,
                Some("2139-12-12"),
                true,
            ),
            (None, Some(3), PageKind::Entity, None, true),
        ];
        let url = "https://www.einoan-courier.com/2139/12/16/a";
        for (topic, days, kind, date, kept) in cases {
            let request = FilterRequest {
                topic,
                days,
                ..Default::default()
            };
            let filters = filters(request);
            let keep = filters.for_world(Some("2139-12-16"));
            assert_eq!(
                keep.keep(page(kind, url, date)),
                kept,
                "{topic:?} {days:?} {kind:?} {date:?}"
            );
        }
        let news_in_days = filters(FilterRequest {
            topic: Some("news"),
            days: Some(3),
            ..Default::default()
        });
        assert!(!news_in_days.is_empty());
        let dated_news = page(PageKind::News, url, Some("2139-12-16"));
        assert!(!news_in_days.for_world(None).keep(dated_news));
        assert!(
            filters(FilterRequest {
                topic: Some("general"),
                days: Some(3),
                ..Default::default()
            })
            .is_empty()
        );
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
        check(
            FilterRequest {
                topic: Some("finance"),
                ..Default::default()
            },
            "topic `finance` is not supported",
        );
        check(
            FilterRequest {
                topic: Some("sports"),
                ..Default::default()
            },
            "topic must be general, news or finance",
        );
        for days in [0, -3] {
            check(
                FilterRequest {
                    topic: Some("news"),
                    days: Some(days),
                    ..Default::default()
                },
                "days must be a positive number",
            );
        }
    }
}
