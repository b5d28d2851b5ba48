//! List pages (every entity of a kind) and category pages (entities grouped by a shared value).

use std::collections::BTreeMap;

use serde::Serialize;

use fabula_world::records::PageRecord;
use fabula_world::schema::TableRole;

use crate::draft::{Ctx, Draft};
use crate::templates;

#[derive(Serialize)]
struct ListPage<'a> {
    title: &'a str,
    intro: String,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn list(d: Draft, intro: String, columns: Vec<String>, rows: Vec<Vec<String>>) -> PageRecord {
    let title = d.title.clone();
    let body = templates::render(
        "list.md.j2",
        ListPage {
            title: &title,
            intro,
            columns,
            rows,
        },
    );
    d.finish(body)
}

fn cap(text: &str) -> String {
    crate::phrases::upper_first(text)
}

/// Renders the list and category pages.
pub fn render(ctx: &mut Ctx, pages: &mut Vec<PageRecord>) {
    let w = ctx.world;
    let theme = &w.theme;
    let (r, s, p, o) = (
        TableRole::Region,
        TableRole::Settlement,
        TableRole::Person,
        TableRole::Organisation,
    );

    // One list per entity kind.
    let title = format!("List of {}", theme.region.plural);
    let mut d = Draft::new(ctx.sites.wiki_url(&title), &title, "list", None);
    let mut rows = Vec::new();
    for x in &w.regions {
        d.own_name(ctx, r, x.id);
        let pop = d.count(ctx, r, x.id, "population", x.population);
        rows.push(vec![ctx.link(r, x.id), pop]);
    }
    pages.push(list(
        d,
        format!("The {} of {}.", theme.region.plural, w.name),
        vec!["Name".into(), "Population".into()],
        rows,
    ));

    let title = format!("List of {}", theme.settlement.plural);
    let mut d = Draft::new(ctx.sites.wiki_url(&title), &title, "list", None);
    let mut rows = Vec::new();
    for x in &w.settlements {
        d.own_name(ctx, s, x.id);
        let region = d.reference(ctx, s, x.id, "region", r, x.region);
        let founded = d.year(ctx, s, x.id, "founded", x.founded);
        let pop = d.count(ctx, s, x.id, "population", x.population);
        rows.push(vec![ctx.link(s, x.id), region, founded, pop]);
    }
    let columns = vec![
        "Name".into(),
        cap(&theme.region.singular),
        "Founded".into(),
        "Population".into(),
    ];
    pages.push(list(
        d,
        format!(
            "Every {} of {}, with its {}.",
            theme.settlement.singular, w.name, theme.region.singular
        ),
        columns,
        rows,
    ));

    let title = format!("List of {}", theme.person.plural);
    let mut d = Draft::new(ctx.sites.wiki_url(&title), &title, "list", None);
    let mut rows = Vec::new();
    for x in &w.people {
        d.own_name(ctx, p, x.id);
        let born = d.year(ctx, p, x.id, "birth_year", x.birth_year);
        let occupation = d.text(ctx, p, x.id, "occupation", &x.occupation);
        rows.push(vec![ctx.link(p, x.id), born, occupation]);
    }
    pages.push(list(
        d,
        format!("Notable {} of {}.", theme.person.plural, w.name),
        vec!["Name".into(), "Born".into(), "Occupation".into()],
        rows,
    ));

    let title = format!("List of {}", theme.organisation.plural);
    let mut d = Draft::new(ctx.sites.wiki_url(&title), &title, "list", None);
    let mut rows = Vec::new();
    for x in &w.organisations {
        d.own_name(ctx, o, x.id);
        let category = d.text(ctx, o, x.id, "category", &x.category);
        let founded = d.year(ctx, o, x.id, "founded", x.founded);
        rows.push(vec![ctx.link(o, x.id), category, founded]);
    }
    pages.push(list(
        d,
        format!("The {} of {}.", theme.organisation.plural, w.name),
        vec!["Name".into(), "Category".into(), "Founded".into()],
        rows,
    ));

    if w.groups.works {
        let wr = TableRole::Work;
        let title = format!("List of {}", theme.work.plural);
        let mut d = Draft::new(ctx.sites.wiki_url(&title), &title, "list", None);
        let mut rows = Vec::new();
        for x in &w.works {
            d.own_name(ctx, wr, x.id);
            let year = d.year(ctx, wr, x.id, "year", x.year);
            rows.push(vec![ctx.link(wr, x.id), year]);
        }
        let verb = theme.work.verb.clone().unwrap_or_default();
        pages.push(list(
            d,
            format!("{} of {}.", cap(&theme.work.plural), w.name),
            vec!["Name".into(), cap(&verb)],
            rows,
        ));
    }
    if w.groups.events {
        let er = TableRole::Event;
        let title = format!("List of {}", theme.event.plural);
        let mut d = Draft::new(ctx.sites.wiki_url(&title), &title, "list", None);
        let mut rows = Vec::new();
        for x in &w.events {
            d.own_name(ctx, er, x.id);
            let year = d.year(ctx, er, x.id, "year", x.year);
            rows.push(vec![ctx.link(er, x.id), year]);
        }
        pages.push(list(
            d,
            format!("{} held in {}.", cap(&theme.event.plural), w.name),
            vec!["Name".into(), "Year".into()],
            rows,
        ));
    }
    if w.groups.alliances {
        let ar = TableRole::Alliance;
        let title = format!("List of {}", theme.alliance.plural);
        let mut d = Draft::new(ctx.sites.wiki_url(&title), &title, "list", None);
        let mut rows = Vec::new();
        for x in &w.alliances {
            d.own_name(ctx, ar, x.id);
            let founded = d.year(ctx, ar, x.id, "founded", x.founded);
            rows.push(vec![ctx.link(ar, x.id), founded]);
        }
        pages.push(list(
            d,
            format!("{} of {}.", cap(&theme.alliance.plural), w.name),
            vec!["Name".into(), "Founded".into()],
            rows,
        ));
    }

    // Category pages: settlements by region, organisations by category, people by occupation.
    for region in &w.regions {
        let title = format!(
            "Category:{} of {}",
            cap(&theme.settlement.plural),
            region.name
        );
        let mut d =
            Draft::new(ctx.sites.wiki_url(&title), &title, "category", None).about(r, region.id);
        let mut rows = Vec::new();
        for x in w.settlements.iter().filter(|x| x.region == region.id) {
            d.reference(ctx, s, x.id, "region", r, region.id);
            d.own_name(ctx, s, x.id);
            rows.push(vec![ctx.link(s, x.id)]);
        }
        let intro = format!(
            "{} in {}.",
            cap(&theme.settlement.plural),
            ctx.link(r, region.id)
        );
        pages.push(list(d, intro, vec![cap(&theme.settlement.singular)], rows));
    }
    let mut by_category: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for x in &w.organisations {
        by_category
            .entry(x.category.as_str())
            .or_default()
            .push(x.id);
    }
    for (category, ids) in by_category {
        let title = format!("Category:{} ({})", cap(category), theme.organisation.plural);
        let mut d = Draft::new(ctx.sites.wiki_url(&title), &title, "category", None);
        let mut rows = Vec::new();
        for id in ids {
            d.own_name(ctx, o, id);
            d.text(ctx, o, id, "category", category);
            rows.push(vec![ctx.link(o, id)]);
        }
        let intro = format!(
            "{} whose field is {category}.",
            cap(&theme.organisation.plural)
        );
        pages.push(list(
            d,
            intro,
            vec![cap(&theme.organisation.singular)],
            rows,
        ));
    }
    let mut by_occupation: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for x in &w.people {
        by_occupation
            .entry(x.occupation.as_str())
            .or_default()
            .push(x.id);
    }
    for (occupation, ids) in by_occupation {
        let title = format!("Category:{} ({})", cap(occupation), theme.person.plural);
        let mut d = Draft::new(ctx.sites.wiki_url(&title), &title, "category", None);
        let mut rows = Vec::new();
        for id in ids {
            d.own_name(ctx, p, id);
            d.text(ctx, p, id, "occupation", occupation);
            rows.push(vec![ctx.link(p, id)]);
        }
        let intro = format!("{} known as a {occupation}.", cap(&theme.person.plural));
        pages.push(list(d, intro, vec!["Name".into()], rows));
    }
}
