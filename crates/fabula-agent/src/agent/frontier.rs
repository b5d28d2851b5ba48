//! The `frontier` step: find the one person every blurred clue of the question fits, and make
//! sure no other does.
//!
//! The open page is the list of every person (read to its last page); it names them and
//! nothing else, so each person is opened and tested: the decades, occupation and career table
//! on their own article, the birthplace's population, founding and the organisations based
//! there on its article, each organisation's category on its article, and a member count on
//! the article or, where the article leaves it out, the organisation's own site, and the years
//! of an organisation's works on the works' articles. Every page is read once per task. A careful reader, the agent answers only when exactly one person fits (with `all`, every
//! person who fits, a set, when any does).

use fabula_vocab::blurred::{self, Hint};

use super::identify::{organisations, role, same};
use super::plan::PathLabel;
use super::{Run, read};
use crate::Result;

impl Run<'_> {
    pub(super) fn frontier(&mut self, all: bool) -> Result<bool> {
        let Some(fits) = self.frontier_fits()? else {
            return Ok(false);
        };
        let fits: Vec<String> = fits.into_iter().map(|(_, title)| title).collect();
        if all {
            return Ok(self.answer_with((!fits.is_empty()).then(|| fits.join("\n"))));
        }
        match <[String; 1]>::try_from(fits) {
            Ok([one]) => Ok(self.answer_with(Some(one))),
            Err(_) => Ok(false),
        }
    }

    /// Opens every person every blurred clue fits and reads `labels` on each (a row of a
    /// `table` step after); fails when no one fits.
    pub(super) fn frontier_each(&mut self, labels: &[PathLabel]) -> Result<bool> {
        let Some(fits) = self.frontier_fits()? else {
            return Ok(false);
        };
        if fits.is_empty() {
            return Ok(false);
        }
        self.read_each(fits.into_iter().map(|(url, _)| url).collect(), labels)
    }

    /// The people (url, title) of the open list every blurred clue of the question fits;
    /// `None` when the question has no clues or no list is open.
    fn frontier_fits(&mut self) -> Result<Option<Vec<(String, String)>>> {
        let Some(hints) = self.question.slot("clues").and_then(blurred::parse) else {
            return Ok(None);
        };
        let Some(list) = self.content().map(str::to_owned) else {
            return Ok(None);
        };
        let mut fits = Vec::new();
        for row in read::records(&list) {
            let url = row.first().and_then(|(_, cell)| read::link_url(cell));
            let Some(url) = url.filter(|_| hints.iter().all(|h| row_allows(&row, h))) else {
                continue;
            };
            let (title, person) = self.extract(&url)?;
            if self.fits_hints(&person, &hints)? {
                fits.push((url, title));
            }
        }
        Ok(Some(fits))
    }

    fn fits_hints(&self, person: &str, hints: &[Hint]) -> Result<bool> {
        for hint in hints {
            if !self.fits_hint(person, hint)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn fits_hint(&self, person: &str, hint: &Hint) -> Result<bool> {
        let career = read::records(person);
        let birthplace = || -> Result<Option<String>> {
            let url = match read::infobox_cell(person, "birthplace", false) {
                Some(cell) => self.cell_url(&cell)?,
                None => None,
            };
            Ok(match url {
                Some(url) => Some(self.extract(&url)?.1),
                None => None,
            })
        };
        let place_number = |label: &str| -> Result<Option<i64>> {
            Ok(birthplace()?.and_then(|page| number(&page, label)))
        };
        match hint {
            Hint::BornIn(_) | Hint::BornBefore(_) | Hint::BornSince(_) => {
                let born = read::infobox_cell(person, "born", false).and_then(|c| read::number(&c));
                Ok(born.is_some_and(|b| hint.fits_year(b)))
            }
            Hint::WorkedIn(field) => {
                let cell = read::infobox_cell(person, "occupation", false);
                let jobs = &field.members;
                Ok(cell.is_some_and(|c| jobs.iter().any(|j| same(&read::cell_value(&c), j))))
            }
            Hint::BirthplaceOver(n) => Ok(place_number("population")?.is_some_and(|p| p > *n)),
            Hint::BirthplaceUnder(n) => Ok(place_number("population")?.is_some_and(|p| p < *n)),
            Hint::BirthplaceBefore(d) => Ok(place_number("founded")?.is_some_and(|f| f < *d)),
            Hint::BirthplaceSince(d) => Ok(place_number("founded")?.is_some_and(|f| f >= *d)),
            Hint::BirthplaceHosts(field) => {
                let Some(place) = birthplace()? else {
                    return Ok(false);
                };
                self.any_in_categories(read::based_here_urls(&place), &field.members)
            }
            Hint::Founded(field) => {
                self.any_in_categories(organisations(&career, true), &field.members)
            }
            Hint::BelongedTo(field) => {
                self.any_in_categories(organisations(&career, false), &field.members)
            }
            Hint::BelongedOver(n) => {
                for org in organisations(&career, false) {
                    if self.members(&org)?.is_some_and(|m| m > *n) {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Hint::HeldOffice => Ok(career.iter().any(|row| role(row).is_some_and(is_office))),
            Hint::DiedIn(_) | Hint::DiedBefore(_) | Hint::DiedSince(_) => {
                let died = read::infobox_cell(person, "died", false).and_then(|c| read::number(&c));
                Ok(died.is_some_and(|d| hint.fits_year(d)))
            }
            Hint::JoinedBefore(d) => Ok(joined(&career).any(|y| y < *d)),
            Hint::JoinedSince(d) => Ok(joined(&career).any(|y| y >= *d)),
            Hint::BelongedToMaker {
                verb,
                work,
                decades,
            } => {
                for org in organisations(&career, false) {
                    if self.made_in(&org, verb, work, decades)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
        }
    }

    /// Whether the organisation at `url` made a work in one of the decades: its article lists
    /// its works under their plural ("Masterworks"), and each work's article states the year
    /// under the verb ("Completed").
    fn made_in(&self, url: &str, verb: &str, work: &str, decades: &[i64]) -> Result<bool> {
        let (_, page) = self.extract(url)?;
        for work_url in read::section_urls(&page, &super::plural(work)) {
            let (_, article) = self.extract(&work_url)?;
            if number(&article, verb).is_some_and(|y| in_decades(y, decades)) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether one of `urls` is an organisation of one of the categories (its article's
    /// category).
    fn any_in_categories(&self, urls: Vec<String>, set: &[String]) -> Result<bool> {
        for url in urls {
            let (_, page) = self.extract(&url)?;
            let category = read::infobox_cell(&page, "category", false);
            if category.is_some_and(|c| set.iter().any(|s| same(&read::cell_value(&c), s))) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// An organisation's member count: its article's infobox or prose, else its own site.
    fn members(&self, url: &str) -> Result<Option<i64>> {
        let (_, page) = self.extract(url)?;
        if let Some(count) = number(&page, "members") {
            return Ok(Some(count));
        }
        let Some(site) = read::own_site_url(&page) else {
            return Ok(None);
        };
        Ok(number(&self.extract(&site)?.1, "members"))
    }
}

/// A number a page states under a label (its infobox or prose).
fn number(page: &str, label: &str) -> Option<i64> {
    read::infobox_cell(page, label, false).and_then(|c| read::number(&read::cell_value(&c)))
}

/// A row's cell under `column`, as its value.
fn cell(row: Option<&Vec<(String, String)>>, column: &str) -> Option<String> {
    row?.iter()
        .find(|(header, _)| header == column)
        .map(|(_, c)| read::cell_value(c))
}

/// Whether a year lies in one of the decades (their first years).
fn in_decades(year: i64, decades: &[i64]) -> bool {
    decades.iter().any(|d| (*d..=d + 9).contains(&year))
}

/// Whether a row of the person list leaves the person in: its `Born` and `Occupation` cells do
/// not contradict the clue (decades of birth, or a decade bound).
fn row_allows(row: &[(String, String)], hint: &Hint) -> bool {
    let cell = |name: &str| {
        row.iter()
            .find(|(header, _)| header == name)
            .map(|(_, cell)| read::cell_value(cell))
    };
    match hint {
        Hint::BornIn(_) | Hint::BornBefore(_) | Hint::BornSince(_) => cell("Born")
            .and_then(|b| read::number(&b))
            .is_none_or(|b| hint.fits_year(b)),
        Hint::WorkedIn(field) => {
            cell("Occupation").is_none_or(|c| field.members.iter().any(|j| same(&c, j)))
        }
        _ => true,
    }
}

/// The years the person joined organisations as a member: the `From` cells of the career
/// rows whose role is a member's (lower case).
fn joined(career: &[Vec<(String, String)>]) -> impl Iterator<Item = i64> + '_ {
    career
        .iter()
        .filter(|row| role(row).is_some_and(|r| !is_office(r) && read::cell_value(r) != "Founder"))
        .filter_map(|row| cell(Some(row), "From").and_then(|c| read::number(&c)))
}

/// Whether a career row's role is an office: a seat title (capitalised: "Warden"), not a
/// member's role ("engineer") nor the founder's.
fn is_office(role: &str) -> bool {
    let role = read::cell_value(role);
    role != "Founder" && role.chars().next().is_some_and(char::is_uppercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::agent::read::test_row as row;

    #[test]
    fn list_rows_rule_out_by_decades_and_occupations() {
        let amo = row(&[
            ("Name", "[Amo Tal](https://w/wiki/Amo_Tal)"),
            ("Born", "1702"),
            ("Occupation", "archivist"),
        ]);
        assert!(row_allows(&amo, &Hint::BornIn(vec![1690, 1700])));
        assert!(!row_allows(&amo, &Hint::BornIn(vec![1710, 1720])));
        assert!(row_allows(&amo, &Hint::BornBefore(1710)));
        assert!(!row_allows(&amo, &Hint::BornSince(1710)));
        let field = |members: &[&str]| {
            Hint::WorkedIn(fabula_vocab::theme::Field {
                phrase: "in a field".into(),
                members: members.iter().map(|m| (*m).to_owned()).collect(),
            })
        };
        assert!(row_allows(&amo, &field(&["weaver", "Archivist"])));
        assert!(!row_allows(&amo, &field(&["weaver", "dyer"])));
        assert!(row_allows(&amo, &Hint::HeldOffice));
    }

    #[test]
    fn offices_are_seat_titles() {
        assert!(is_office("Warden"));
        assert!(is_office("Chief Engineer"));
        assert!(!is_office("Founder"));
        assert!(!is_office("engineer"));
    }
}
