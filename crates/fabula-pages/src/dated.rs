//! Dated pages: news articles about things that happened, and yearbooks that state what was true
//! at the end of a year (who held each seat, which alliance each organisation belonged to).

use rand::RngExt;
use serde::Serialize;

use fabula_world::records::PageRecord;
use fabula_world::schema::TableRole;

use crate::draft::{Ctx, Draft};
use crate::phrases::say;
use crate::templates;

#[derive(Serialize)]
struct NewsPage<'a> {
    title: &'a str,
    site: &'a str,
    date: &'a str,
    paragraphs: Vec<String>,
}

#[derive(Serialize)]
struct HistorySection {
    heading: String,
    lines: Vec<String>,
}

#[derive(Serialize)]
struct HistoryPage<'a> {
    title: &'a str,
    dateline: String,
    intro: String,
    sections: Vec<HistorySection>,
}

fn news(ctx: &Ctx, d: Draft, paragraphs: Vec<String>) -> PageRecord {
    let title = d.title.clone();
    let date = d.published.clone().unwrap_or_default();
    let body = templates::render(
        "news.md.j2",
        NewsPage {
            title: &title,
            site: &ctx.sites.news_name,
            date: &date,
            paragraphs,
        },
    );
    d.finish(body)
}

fn news_draft(ctx: &mut Ctx, year: i64, title: String) -> Draft {
    let date = ctx.date_in(year);
    let url = ctx.sites.news_url(&date, &title);
    Draft::new(url, title, "news", Some(date))
}

/// Whether a relation with these bounds holds at the end of `year`.
pub fn holds_at_end_of(year: i64, start: i64, end: Option<i64>) -> bool {
    start <= year && end.is_none_or(|e| e > year)
}

/// Renders the news articles and the yearbooks.
pub fn render(ctx: &mut Ctx, pages: &mut Vec<PageRecord>) {
    let w = ctx.world;
    let theme = &w.theme;
    let (s, p, o) = (
        TableRole::Settlement,
        TableRole::Person,
        TableRole::Organisation,
    );

    for org in &w.organisations {
        let title = format!("New {} {} founded", theme.organisation.singular, org.name);
        let mut d = news_draft(ctx, org.founded, title).about(o, org.id);
        d.year(ctx, o, org.id, "founded", org.founded);
        let subject = ctx.link(o, org.id);
        let place = d.reference(ctx, o, org.id, "home", s, org.home);
        let founder = d.reference(ctx, o, org.id, "founder", p, org.founder);
        let category = d.text(ctx, o, org.id, "category", &org.category);
        let f = w.person(org.founder);
        let occupation = d.text(ctx, p, f.id, "occupation", &f.occupation);
        let paragraphs = vec![
            say(
                ctx.rng,
                "news_founding",
                &[
                    ("subject", &subject),
                    ("kind", &theme.organisation.singular),
                    ("place", &place),
                    ("object", &founder),
                ],
            ),
            format!(
                "The founder, a {occupation}, says the new {} will work in {category}.",
                theme.organisation.singular
            ),
        ];
        pages.push(news(ctx, d, paragraphs));
    }

    for work in &w.works {
        let wr = TableRole::Work;
        let verb = theme.work.verb.clone().unwrap_or_default();
        let title = format!("{} {verb}", work.name);
        let mut d = news_draft(ctx, work.year, title).about(wr, work.id);
        d.year(ctx, wr, work.id, "year", work.year);
        let org = d.reference(ctx, wr, work.id, "organisation", o, work.organisation);
        let subject = ctx.link(wr, work.id);
        let mut paragraphs = vec![say(
            ctx.rng,
            "news_work",
            &[
                ("subject", &subject),
                ("object", &org),
                ("verb", &verb),
                ("kind", &theme.work.singular),
            ],
        )];
        if let Some(extra) = theme.work.extras.first() {
            let value = d.extra(ctx, wr, work.id, 0, work.extras[0]);
            paragraphs.push(format!("Its {} is {value}.", extra.label));
        }
        pages.push(news(ctx, d, paragraphs));
    }

    for t in &w.tenures {
        let tr = TableRole::Tenure;
        let org_name = &w.organisation(t.organisation).name;
        let title = format!("{org_name} names a new {}", t.seat);
        let mut d = news_draft(ctx, t.start, title).about(o, t.organisation);
        d.year(ctx, tr, t.id, "start_year", t.start);
        let person = d.reference(ctx, tr, t.id, "person", p, t.person);
        let org = d.reference(ctx, tr, t.id, "organisation", o, t.organisation);
        let seat = d.text(ctx, tr, t.id, "seat", &t.seat);
        let holder = w.person(t.person);
        let born = d.year(ctx, p, holder.id, "birth_year", holder.birth_year);
        let place = d.reference(ctx, p, holder.id, "birthplace", s, holder.birthplace);
        let paragraphs = vec![
            say(
                ctx.rng,
                "news_appointment",
                &[("subject", &person), ("object", &org), ("seat", &seat)],
            ),
            format!("The new {seat} was born in {place} in {born}."),
        ];
        pages.push(news(ctx, d, paragraphs));
    }

    for event in &w.events {
        let er = TableRole::Event;
        let title = format!("{} draws the crowds", event.name);
        let mut d = news_draft(ctx, event.year, title).about(er, event.id);
        d.year(ctx, er, event.id, "year", event.year);
        let place = d.reference(ctx, er, event.id, "host", s, event.host);
        let subject = ctx.link(er, event.id);
        let mut paragraphs = vec![say(
            ctx.rng,
            "news_event",
            &[("subject", &subject), ("place", &place)],
        )];
        if let Some(winner) = w
            .participations
            .iter()
            .find(|x| x.event == event.id && x.result == 1)
        {
            let pr = TableRole::Participation;
            d.reference(ctx, pr, winner.id, "event", er, event.id);
            let org = d.reference(ctx, pr, winner.id, "organisation", o, winner.organisation);
            paragraphs.push(format!("{org} finished first."));
        }
        pages.push(news(ctx, d, paragraphs));
    }

    for m in &w.alliance_memberships {
        let mr = TableRole::AllianceMembership;
        let org_name = &w.organisation(m.organisation).name;
        let title = format!("{org_name} joins a {}", theme.alliance.singular);
        let mut d = news_draft(ctx, m.start, title).about(o, m.organisation);
        d.year(ctx, mr, m.id, "start_year", m.start);
        let org = d.reference(ctx, mr, m.id, "organisation", o, m.organisation);
        let alliance = d.reference(ctx, mr, m.id, "alliance", TableRole::Alliance, m.alliance);
        let paragraphs = vec![say(
            ctx.rng,
            "news_alliance",
            &[("subject", &alliance), ("object", &org)],
        )];
        pages.push(news(ctx, d, paragraphs));
    }

    // Membership news: a share of the joinings, more when the world would otherwise have few pages.
    let share = if pages.len() + w.memberships.len() / 2 < 330 {
        1.0
    } else {
        0.5
    };
    for m in &w.memberships {
        if !ctx.rng.random_bool(share) {
            continue;
        }
        let mr = TableRole::Membership;
        let person_name = &w.person(m.person).name;
        let title = format!("{person_name} joins as {}", m.role);
        let mut d = news_draft(ctx, m.joined, title).about(p, m.person);
        d.year(ctx, mr, m.id, "joined", m.joined);
        let person = d.reference(ctx, mr, m.id, "person", p, m.person);
        let org = d.reference(ctx, mr, m.id, "organisation", o, m.organisation);
        let role = d.text(ctx, mr, m.id, "member_role", &m.role);
        let occupation = d.text(
            ctx,
            p,
            m.person,
            "occupation",
            &w.person(m.person).occupation,
        );
        let paragraphs = vec![format!(
            "{person}, a {occupation}, has joined {org} as {role}."
        )];
        pages.push(news(ctx, d, paragraphs));
    }

    // Yearbooks every 8 to 20 years over the last century or so, each true at its date.
    let mut year = (w.present_year - ctx.rng.random_range(90..=130)).max(w.earliest_year + 20);
    while year < w.present_year {
        render_yearbook(ctx, pages, year);
        year += ctx.rng.random_range(8..=20);
    }
}

fn render_yearbook(ctx: &mut Ctx, pages: &mut Vec<PageRecord>, year: i64) {
    let w = ctx.world;
    let theme = &w.theme;
    let o = TableRole::Organisation;
    let title = format!("{} yearbook {year}", w.name);
    let url = ctx.sites.archive_url(year);
    let date = crate::draft::fmt_date(year, 12, 31);
    let mut d = Draft::new(url, title.clone(), "history", Some(date.clone()));
    let mut sections = Vec::new();
    let mut lines = Vec::new();
    for t in w
        .tenures
        .iter()
        .filter(|t| holds_at_end_of(year, t.start, t.end))
    {
        let tr = TableRole::Tenure;
        let seat = d.text(ctx, tr, t.id, "seat", &t.seat);
        let org = d.reference(ctx, tr, t.id, "organisation", o, t.organisation);
        let person = d.reference(ctx, tr, t.id, "person", TableRole::Person, t.person);
        lines.push(format!("{seat} of {org}: {person}"));
    }
    if !lines.is_empty() {
        sections.push(HistorySection {
            heading: "Office holders".into(),
            lines,
        });
    }
    let mut lines = Vec::new();
    for m in w
        .alliance_memberships
        .iter()
        .filter(|m| holds_at_end_of(year, m.start, m.end))
    {
        let mr = TableRole::AllianceMembership;
        let org = d.reference(ctx, mr, m.id, "organisation", o, m.organisation);
        let alliance = d.reference(ctx, mr, m.id, "alliance", TableRole::Alliance, m.alliance);
        lines.push(format!("{org} belonged to {alliance}"));
    }
    if !lines.is_empty() {
        sections.push(HistorySection {
            heading: crate::phrases::upper_first(&theme.alliance.plural),
            lines,
        });
    }
    let mut lines = Vec::new();
    for org in w.organisations.iter().filter(|x| x.founded == year) {
        d.year(ctx, o, org.id, "founded", org.founded);
        lines.push(format!("{} was founded", ctx.link(o, org.id)));
    }
    if !lines.is_empty() {
        sections.push(HistorySection {
            heading: "Founded this year".into(),
            lines,
        });
    }
    let intro = format!(
        "The state of {} as of 31 December {year}, as recorded by the archive.",
        w.name
    );
    let body = templates::render(
        "history.md.j2",
        HistoryPage {
            title: &title,
            dateline: format!("Archive of {}, {date}", w.name),
            intro,
            sections,
        },
    );
    pages.push(d.finish(body));
}
