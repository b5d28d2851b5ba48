//! The `identify` step: find the one person every clue of the question fits.
//!
//! The open page is the list of every person, read to its last page. Where it has birth year
//! and occupation columns, the clues they can test rule people out from the list itself (lists
//! now name their rows only, so every person is opened); each person left is then opened in
//! list order and tested on the remaining clues: the birthplace's article for a region, the
//! career table for a seat, each organisation founded or belonged to (and its home's article)
//! for a category or a region. The first person who fits every clue is the answer. Pages are
//! read once per task (`Run::extract`).

use fabula_vocab::clues::{self, Said};

use super::{Run, read, without_article};
use crate::Result;

/// The role a person's career table gives the organisations they founded.
const FOUNDER: &str = "Founder";

impl Run<'_> {
    pub(super) fn identify(&mut self) -> Result<bool> {
        let Some(said) = self.question.slot("clues").and_then(clues::parse) else {
            return Ok(false);
        };
        let Some(list) = self.content().map(str::to_owned) else {
            return Ok(false);
        };
        for row in read::records(&list) {
            let url = row.first().and_then(|(_, cell)| read::link_url(cell));
            let Some(url) = url.filter(|_| said.iter().all(|c| row_allows(&row, c))) else {
                continue;
            };
            let (title, person) = self.extract(&url)?;
            if self.fits(&person, &said)? {
                return Ok(self.answer_with(Some(title)));
            }
        }
        Ok(false)
    }

    /// Whether the person's article (and the pages it links) bears out every clue.
    fn fits(&self, person: &str, said: &[Said]) -> Result<bool> {
        for clue in said {
            if !self.holds(person, clue)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn holds(&self, person: &str, clue: &Said) -> Result<bool> {
        let career = read::records(person);
        let infobox_number =
            |label: &str| read::infobox_cell(person, label, false).and_then(|c| read::number(&c));
        match clue {
            Said::BornBefore(y) => Ok(infobox_number("born").is_some_and(|b| b < *y)),
            Said::BornAfter(y) => Ok(infobox_number("born").is_some_and(|b| b > *y)),
            Said::Occupation(o) => {
                let cell = read::infobox_cell(person, "occupation", false);
                Ok(cell.is_some_and(|c| same(&read::cell_value(&c), o)))
            }
            Said::BornIn(region) => {
                let place = match read::infobox_cell(person, "birthplace", false) {
                    Some(cell) => self.cell_url(&cell)?,
                    None => None,
                };
                self.in_region(place, region)
            }
            Said::Seat(seat) => Ok(career
                .iter()
                .any(|row| role(row).is_some_and(|r| same(r, seat)))),
            Said::FoundedCategory(category) => {
                for org in organisations(&career, true) {
                    let (_, page) = self.extract(&org)?;
                    let cell = read::infobox_cell(&page, "category", false);
                    if cell.is_some_and(|c| same(&read::cell_value(&c), category)) {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Said::FoundedIn(region) => self.any_based_in(organisations(&career, true), region),
            Said::MemberIn(region) => self.any_based_in(organisations(&career, false), region),
        }
    }

    /// Whether one of the organisations has its home in the region.
    fn any_based_in(&self, orgs: Vec<String>, region: &str) -> Result<bool> {
        for org in orgs {
            let (_, page) = self.extract(&org)?;
            let home = match read::infobox_cell(&page, "home", true) {
                Some(cell) => self.cell_url(&cell)?,
                None => None,
            };
            if self.in_region(home, region)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether the settlement at `url` names the region in its infobox.
    fn in_region(&self, url: Option<String>, region: &str) -> Result<bool> {
        let Some(url) = url else { return Ok(false) };
        let (_, page) = self.extract(&url)?;
        let cells = read::infobox(&page);
        Ok(cells
            .iter()
            .any(|(_, cell)| same(&read::cell_value(cell), region)))
    }
}

/// Whether a row of the person list leaves the person in: its `Born` and `Occupation` cells do
/// not contradict the clue.
fn row_allows(row: &[(String, String)], clue: &Said) -> bool {
    let cell = |name: &str| {
        row.iter()
            .find(|(header, _)| header == name)
            .map(|(_, cell)| read::cell_value(cell))
    };
    let born = || cell("Born").and_then(|b| read::number(&b));
    match clue {
        Said::BornBefore(y) => born().is_none_or(|b| b < *y),
        Said::BornAfter(y) => born().is_none_or(|b| b > *y),
        Said::Occupation(o) => cell("Occupation").is_none_or(|c| same(&c, o)),
        _ => true,
    }
}

/// The role cell of a career row.
pub(super) fn role(row: &[(String, String)]) -> Option<&str> {
    row.iter()
        .find(|(header, _)| header == "Role")
        .map(|(_, cell)| cell.as_str())
}

/// The organisations of a career table's rows: those founded, or those held any other role in.
pub(super) fn organisations(career: &[Vec<(String, String)>], founded: bool) -> Vec<String> {
    let rows = career
        .iter()
        .filter(|row| role(row).is_some_and(|r| (r == FOUNDER) == founded));
    let links = rows.filter_map(|row| row.get(1).and_then(|(_, cell)| read::link_url(cell)));
    let mut urls: Vec<String> = links.collect();
    urls.dedup();
    urls
}

/// Case-insensitive equality, an indefinite article aside ("an archivist" is "Archivist").
pub(super) fn same(a: &str, b: &str) -> bool {
    let bare = |text: &str| without_article(&text.trim().to_lowercase()).to_owned();
    bare(a) == bare(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::agent::read::test_row as row;

    #[test]
    fn list_rows_rule_out_by_year_and_occupation() {
        let amo = row(&[
            ("Name", "[Amo Tal](https://w/wiki/Amo_Tal)"),
            ("Born", "1702"),
            ("Occupation", "archivist"),
        ]);
        assert!(row_allows(&amo, &Said::BornBefore(1703)));
        assert!(!row_allows(&amo, &Said::BornBefore(1702)));
        assert!(row_allows(&amo, &Said::BornAfter(1701)));
        assert!(row_allows(&amo, &Said::Occupation("Archivist".into())));
        assert!(!row_allows(&amo, &Said::Occupation("weaver".into())));
        assert!(row_allows(&amo, &Said::Seat("Warden".into())));
    }

    #[test]
    fn career_rows_give_founded_and_joined_organisations() {
        let career = vec![
            row(&[
                ("Role", "Founder"),
                ("Guild", "[Vess](https://w/wiki/Vess)"),
            ]),
            row(&[("Role", "Warden"), ("Guild", "[Orr](https://w/wiki/Orr)")]),
            row(&[("Role", "member"), ("Guild", "[Orr](https://w/wiki/Orr)")]),
        ];
        assert_eq!(organisations(&career, true), ["https://w/wiki/Vess"]);
        assert_eq!(organisations(&career, false), ["https://w/wiki/Orr"]);
        assert!(same("an Archivist", "archivist"));
        assert!(!same("Kest", "Kesta"));
    }
}
