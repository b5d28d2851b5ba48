//! Encyclopedia articles, one per entity, and each organisation's own site.

use serde::Serialize;

use fabula_world::records::PageRecord;
use fabula_world::schema::TableRole;

use crate::draft::{Ctx, Draft, fmt_count};
use crate::phrases::say;
use crate::templates;

/// One section of an article: prose, a table, or both.
#[derive(Serialize, Default)]
pub struct Section {
    pub heading: String,
    pub text: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

#[derive(Serialize)]
struct Article<'a> {
    title: &'a str,
    lead: String,
    infobox: Vec<(String, String)>,
    sections: Vec<Section>,
    see_also: Vec<String>,
}

fn label(text: &str) -> String {
    crate::phrases::upper_first(text)
}

fn article(
    d: Draft,
    lead: Vec<String>,
    infobox: Vec<(String, String)>,
    sections: Vec<Section>,
    see_also: Vec<String>,
) -> PageRecord {
    let title = d.title.clone();
    let body = templates::render(
        "entity.md.j2",
        Article {
            title: &title,
            lead: lead.join(" "),
            infobox,
            sections,
            see_also,
        },
    );
    d.finish(body)
}

fn end_text(end: Option<i64>) -> String {
    end.map_or_else(|| "present".to_string(), |e| e.to_string())
}

/// Renders every entity article and organisation site.
pub fn render(ctx: &mut Ctx, pages: &mut Vec<PageRecord>) {
    let w = ctx.world;
    let theme = &w.theme;
    let (r, s, p, o) = (
        TableRole::Region,
        TableRole::Settlement,
        TableRole::Person,
        TableRole::Organisation,
    );

    for region in &w.regions {
        let mut d = Draft::new(
            ctx.sites.entity(r, region.id).to_string(),
            &region.name,
            "entity",
            None,
        )
        .about(r, region.id);
        let name = d.own_name(ctx, r, region.id);
        let pop = d.count(ctx, r, region.id, "population", region.population);
        let lead = vec![
            format!("{name} is a {} of {}.", theme.region.singular, w.name),
            say(
                ctx.rng,
                "region_population",
                &[("subject", &name), ("value", &pop)],
            ),
        ];
        let mut infobox = vec![
            ("Type".into(), label(&theme.region.singular)),
            ("Population".into(), pop.clone()),
        ];
        for (i, e) in theme.region.extras.iter().enumerate() {
            infobox.push((
                label(&e.label),
                d.extra(ctx, r, region.id, i, region.extras[i]),
            ));
        }
        let mut rows = Vec::new();
        for st in w.settlements.iter().filter(|x| x.region == region.id) {
            d.reference(ctx, s, st.id, "region", r, region.id);
            rows.push(vec![ctx.link(s, st.id)]);
        }
        let sections = vec![Section {
            heading: label(&theme.settlement.plural),
            columns: vec![label(&theme.settlement.singular)],
            rows,
            ..Default::default()
        }];
        pages.push(article(d, lead, infobox, sections, Vec::new()));
    }

    for st in &w.settlements {
        let mut d = Draft::new(
            ctx.sites.entity(s, st.id).to_string(),
            &st.name,
            "entity",
            None,
        )
        .about(s, st.id);
        let name = d.own_name(ctx, s, st.id);
        let region = d.reference(ctx, s, st.id, "region", r, st.region);
        let founded = d.year(ctx, s, st.id, "founded", st.founded);
        let pop = d.count(ctx, s, st.id, "population", st.population);
        let kind = theme.settlement.singular.as_str();
        let lead = vec![
            say(
                ctx.rng,
                "settlement_region",
                &[
                    ("subject", &name),
                    ("kind", kind),
                    ("kinds", &theme.settlement.plural),
                    ("object", &region),
                ],
            ),
            say(
                ctx.rng,
                "settlement_founded",
                &[("subject", &name), ("kind", kind), ("value", &founded)],
            ),
            say(
                ctx.rng,
                "settlement_population",
                &[("subject", &name), ("value", &pop)],
            ),
        ];
        let mut infobox = vec![
            (label(&theme.region.singular), region.clone()),
            ("Founded".into(), founded.clone()),
            ("Population".into(), pop.clone()),
        ];
        for (i, e) in theme.settlement.extras.iter().enumerate() {
            infobox.push((label(&e.label), d.extra(ctx, s, st.id, i, st.extras[i])));
        }
        let mut sections = Vec::new();
        let mut people = Vec::new();
        for person in w.people.iter().filter(|x| x.birthplace == st.id) {
            d.reference(ctx, p, person.id, "birthplace", s, st.id);
            people.push(vec![ctx.link(p, person.id)]);
        }
        if !people.is_empty() {
            sections.push(Section {
                heading: "Notable people born here".into(),
                columns: vec!["Name".into()],
                rows: people,
                ..Default::default()
            });
        }
        let mut orgs = Vec::new();
        for org in w.organisations.iter().filter(|x| x.home == st.id) {
            d.reference(ctx, o, org.id, "home", s, st.id);
            orgs.push(vec![ctx.link(o, org.id)]);
        }
        if !orgs.is_empty() {
            sections.push(Section {
                heading: format!("{} based here", label(&theme.organisation.plural)),
                columns: vec!["Name".into()],
                rows: orgs,
                ..Default::default()
            });
        }
        pages.push(article(d, lead, infobox, sections, Vec::new()));
    }

    for person in &w.people {
        let mut d = Draft::new(
            ctx.sites.entity(p, person.id).to_string(),
            &person.name,
            "entity",
            None,
        )
        .about(p, person.id);
        let name = d.own_name(ctx, p, person.id);
        let born = d.year(ctx, p, person.id, "birth_year", person.birth_year);
        let place = d.reference(ctx, p, person.id, "birthplace", s, person.birthplace);
        let occupation = d.text(ctx, p, person.id, "occupation", &person.occupation);
        let mut lead = vec![say(
            ctx.rng,
            "person_born",
            &[("subject", &name), ("value", &born), ("object", &place)],
        )];
        let mut infobox = vec![
            ("Born".into(), born.clone()),
            ("Birthplace".into(), place.clone()),
        ];
        if let Some(death) = person.death_year {
            let died = d.year(ctx, p, person.id, "death_year", death);
            lead.push(say(
                ctx.rng,
                "person_died",
                &[("subject", &name), ("value", &died)],
            ));
            infobox.push(("Died".into(), died));
        }
        lead.push(say(
            ctx.rng,
            "person_occupation",
            &[("subject", &name), ("value", &occupation)],
        ));
        infobox.push(("Occupation".into(), occupation.clone()));
        let mut career = Vec::new();
        for org in w.organisations.iter().filter(|x| x.founder == person.id) {
            d.reference(ctx, o, org.id, "founder", p, person.id);
            let link = ctx.link(o, org.id);
            let year = d.year(ctx, o, org.id, "founded", org.founded);
            career.push(vec!["Founder".to_string(), link, year, String::new()]);
        }
        for t in w.tenures.iter().filter(|x| x.person == person.id) {
            let tr = TableRole::Tenure;
            d.reference(ctx, tr, t.id, "person", p, person.id);
            let seat = d.text(ctx, tr, t.id, "seat", &t.seat);
            let org = d.reference(ctx, tr, t.id, "organisation", o, t.organisation);
            let start = d.year(ctx, tr, t.id, "start_year", t.start);
            let end = match t.end {
                Some(e) => d.year(ctx, tr, t.id, "end_year", e),
                None => end_text(None),
            };
            career.push(vec![seat, org, start, end]);
        }
        for m in w.memberships.iter().filter(|x| x.person == person.id) {
            let mr = TableRole::Membership;
            d.reference(ctx, mr, m.id, "person", p, person.id);
            let role = d.text(ctx, mr, m.id, "member_role", &m.role);
            let org = d.reference(ctx, mr, m.id, "organisation", o, m.organisation);
            let joined = d.year(ctx, mr, m.id, "joined", m.joined);
            career.push(vec![role, org, joined, String::new()]);
        }
        let mut sections = Vec::new();
        if !career.is_empty() {
            sections.push(Section {
                heading: "Career".into(),
                columns: vec![
                    "Role".into(),
                    label(&theme.organisation.singular),
                    "From".into(),
                    "To".into(),
                ],
                rows: career,
                ..Default::default()
            });
        }
        pages.push(article(d, lead, infobox, sections, Vec::new()));
    }

    for org in &w.organisations {
        let url = ctx.sites.entity(o, org.id).to_string();
        let mut d = Draft::new(url, &org.name, "entity", None).about(o, org.id);
        let name = d.own_name(ctx, o, org.id);
        let founded = d.year(ctx, o, org.id, "founded", org.founded);
        let founder = d.reference(ctx, o, org.id, "founder", p, org.founder);
        let home = d.reference(ctx, o, org.id, "home", s, org.home);
        let category = d.text(ctx, o, org.id, "category", &org.category);
        let members = d.count(ctx, o, org.id, "member_count", org.member_count);
        let kind = theme.organisation.singular.as_str();
        let lead = vec![
            say(
                ctx.rng,
                "org_founded",
                &[
                    ("subject", &name),
                    ("value", &founded),
                    ("object", &founder),
                ],
            ),
            say(
                ctx.rng,
                "org_home",
                &[("subject", &name), ("kind", kind), ("object", &home)],
            ),
            say(
                ctx.rng,
                "org_category",
                &[("subject", &name), ("kind", kind), ("value", &category)],
            ),
            say(
                ctx.rng,
                "org_members",
                &[("subject", &name), ("value", &members)],
            ),
        ];
        let mut infobox = vec![
            ("Category".into(), category.clone()),
            (format!("Home {}", theme.settlement.singular), home.clone()),
            ("Founder".into(), founder.clone()),
            ("Founded".into(), founded.clone()),
            ("Members".into(), members.clone()),
        ];
        for (i, e) in theme.organisation.extras.iter().enumerate() {
            infobox.push((label(&e.label), d.extra(ctx, o, org.id, i, org.extras[i])));
        }
        let mut sections = Vec::new();
        let mut works = Vec::new();
        for work in w.works.iter().filter(|x| x.organisation == org.id) {
            d.reference(ctx, TableRole::Work, work.id, "organisation", o, org.id);
            let year = d.year(ctx, TableRole::Work, work.id, "year", work.year);
            works.push(vec![ctx.link(TableRole::Work, work.id), year]);
        }
        if !works.is_empty() {
            let verb = theme.work.verb.clone().unwrap_or_default();
            sections.push(Section {
                heading: label(&theme.work.plural),
                columns: vec!["Name".into(), label(&verb)],
                rows: works,
                ..Default::default()
            });
        }
        let mut alliances = Vec::new();
        for m in w
            .alliance_memberships
            .iter()
            .filter(|x| x.organisation == org.id)
        {
            let ar = TableRole::AllianceMembership;
            d.reference(ctx, ar, m.id, "organisation", o, org.id);
            let alliance = d.reference(ctx, ar, m.id, "alliance", TableRole::Alliance, m.alliance);
            let start = d.year(ctx, ar, m.id, "start_year", m.start);
            let end = match m.end {
                Some(e) => d.year(ctx, ar, m.id, "end_year", e),
                None => end_text(None),
            };
            alliances.push(vec![alliance, start, end]);
        }
        if !alliances.is_empty() {
            sections.push(Section {
                heading: label(&theme.alliance.plural),
                columns: vec![label(&theme.alliance.singular), "From".into(), "To".into()],
                rows: alliances,
                ..Default::default()
            });
        }
        let site = ctx.sites.org_sites[&org.id].clone();
        let see_also = vec![
            format!("[Official website of {}]({site}about)", org.name),
            format!("[People of {}]({site}people)", org.name),
        ];
        pages.push(article(d, lead, infobox, sections, see_also));
        render_org_site(ctx, pages, org.id);
    }

    for work in &w.works {
        let wr = TableRole::Work;
        let mut d = Draft::new(
            ctx.sites.entity(wr, work.id).to_string(),
            &work.name,
            "entity",
            None,
        )
        .about(wr, work.id);
        let name = d.own_name(ctx, wr, work.id);
        let org = d.reference(ctx, wr, work.id, "organisation", o, work.organisation);
        let year = d.year(ctx, wr, work.id, "year", work.year);
        let verb = theme.work.verb.clone().unwrap_or_default();
        let lead = vec![
            format!("{name} is a {}.", theme.work.singular),
            say(
                ctx.rng,
                "work_made",
                &[
                    ("subject", &name),
                    ("verb", &verb),
                    ("object", &org),
                    ("value", &year),
                ],
            ),
        ];
        let mut infobox = vec![
            (label(&theme.organisation.singular), org.clone()),
            (label(&verb), year.clone()),
        ];
        for (i, e) in theme.work.extras.iter().enumerate() {
            infobox.push((
                label(&e.label),
                d.extra(ctx, wr, work.id, i, work.extras[i]),
            ));
        }
        pages.push(article(d, lead, infobox, Vec::new(), Vec::new()));
    }

    for event in &w.events {
        let er = TableRole::Event;
        let mut d = Draft::new(
            ctx.sites.entity(er, event.id).to_string(),
            &event.name,
            "entity",
            None,
        )
        .about(er, event.id);
        let name = d.own_name(ctx, er, event.id);
        let year = d.year(ctx, er, event.id, "year", event.year);
        let host = d.reference(ctx, er, event.id, "host", s, event.host);
        let lead = vec![say(
            ctx.rng,
            "event_held",
            &[("subject", &name), ("value", &year), ("object", &host)],
        )];
        let infobox = vec![
            ("Year".into(), year.clone()),
            (format!("Host {}", theme.settlement.singular), host.clone()),
        ];
        let result_label = theme
            .participation
            .result_label
            .clone()
            .unwrap_or_else(|| "result".into());
        let mut rows = Vec::new();
        let mut entries: Vec<_> = w
            .participations
            .iter()
            .filter(|x| x.event == event.id)
            .collect();
        entries.sort_by_key(|x| x.result);
        for x in entries {
            let pr = TableRole::Participation;
            d.reference(ctx, pr, x.id, "event", er, event.id);
            let result = d.count(ctx, pr, x.id, "result", x.result);
            let org = d.reference(ctx, pr, x.id, "organisation", o, x.organisation);
            rows.push(vec![result, org]);
        }
        let sections = vec![Section {
            heading: "Results".into(),
            columns: vec![label(&result_label), label(&theme.organisation.singular)],
            rows,
            ..Default::default()
        }];
        pages.push(article(d, lead, infobox, sections, Vec::new()));
    }

    for alliance in &w.alliances {
        let ar = TableRole::Alliance;
        let mut d = Draft::new(
            ctx.sites.entity(ar, alliance.id).to_string(),
            &alliance.name,
            "entity",
            None,
        )
        .about(ar, alliance.id);
        let name = d.own_name(ctx, ar, alliance.id);
        let founded = d.year(ctx, ar, alliance.id, "founded", alliance.founded);
        let seat = d.reference(ctx, ar, alliance.id, "home", s, alliance.seat);
        let lead = vec![
            format!(
                "{name} is a {} of {}.",
                theme.alliance.singular, theme.organisation.plural
            ),
            say(
                ctx.rng,
                "alliance_founded",
                &[("subject", &name), ("value", &founded), ("object", &seat)],
            ),
        ];
        let infobox = vec![
            ("Founded".into(), founded.clone()),
            ("Seat".into(), seat.clone()),
        ];
        let mut rows = Vec::new();
        for m in w
            .alliance_memberships
            .iter()
            .filter(|x| x.alliance == alliance.id)
        {
            let mr = TableRole::AllianceMembership;
            d.reference(ctx, mr, m.id, "alliance", ar, alliance.id);
            let org = d.reference(ctx, mr, m.id, "organisation", o, m.organisation);
            let start = d.year(ctx, mr, m.id, "start_year", m.start);
            let end = match m.end {
                Some(e) => d.year(ctx, mr, m.id, "end_year", e),
                None => end_text(None),
            };
            rows.push(vec![org, start, end]);
        }
        let sections = vec![Section {
            heading: "Members".into(),
            columns: vec![
                label(&theme.organisation.singular),
                "From".into(),
                "To".into(),
            ],
            rows,
            ..Default::default()
        }];
        pages.push(article(d, lead, infobox, sections, Vec::new()));
    }
}

/// An organisation's own site: an about page and a people page with office holders and members.
fn render_org_site(ctx: &mut Ctx, pages: &mut Vec<PageRecord>, org_id: i64) {
    let w = ctx.world;
    let theme = &w.theme;
    let org = w.organisation(org_id);
    let o = TableRole::Organisation;

    let url = ctx.sites.org_url(org_id, "about");
    let mut d = Draft::new(url, format!("About {}", org.name), "entity", None).about(o, org_id);
    let name = d.own_name(ctx, o, org_id);
    let home = d.reference(ctx, o, org_id, "home", TableRole::Settlement, org.home);
    let founded = d.year(ctx, o, org_id, "founded", org.founded);
    let category = d.text(ctx, o, org_id, "category", &org.category);
    let lead = vec![
        format!(
            "Welcome to {name}, a {} {} from {home}, serving since {founded}.",
            category, theme.organisation.singular
        ),
        format!(
            "Our {} members carry on the work begun by our founder.",
            fmt_count(org.member_count)
        ),
    ];
    let infobox = vec![
        ("Established".into(), founded.clone()),
        ("Based in".into(), home.clone()),
    ];
    pages.push(article(d, lead, infobox, Vec::new(), Vec::new()));

    let url = ctx.sites.org_url(org_id, "people");
    let mut d = Draft::new(url, format!("People of {}", org.name), "list", None).about(o, org_id);
    let name = d.own_name(ctx, o, org_id);
    let mut holders = Vec::new();
    for t in w.tenures.iter().filter(|x| x.organisation == org_id) {
        let tr = TableRole::Tenure;
        d.reference(ctx, tr, t.id, "organisation", o, org_id);
        let seat = d.text(ctx, tr, t.id, "seat", &t.seat);
        let holder = d.reference(ctx, tr, t.id, "person", TableRole::Person, t.person);
        let start = d.year(ctx, tr, t.id, "start_year", t.start);
        let end = match t.end {
            Some(e) => d.year(ctx, tr, t.id, "end_year", e),
            None => end_text(None),
        };
        holders.push(vec![seat, holder, start, end]);
    }
    let mut members = Vec::new();
    for m in w.memberships.iter().filter(|x| x.organisation == org_id) {
        let mr = TableRole::Membership;
        d.reference(ctx, mr, m.id, "organisation", o, org_id);
        let person = d.reference(ctx, mr, m.id, "person", TableRole::Person, m.person);
        let role = d.text(ctx, mr, m.id, "member_role", &m.role);
        let joined = d.year(ctx, mr, m.id, "joined", m.joined);
        members.push(vec![person, role, joined]);
    }
    let lead = vec![format!("The people who lead and make up {name}.")];
    let sections = vec![
        Section {
            heading: "Office holders".into(),
            columns: vec!["Seat".into(), "Holder".into(), "From".into(), "To".into()],
            rows: holders,
            ..Default::default()
        },
        Section {
            heading: "Members".into(),
            columns: vec!["Name".into(), "Role".into(), "Joined".into()],
            rows: members,
            ..Default::default()
        },
    ];
    pages.push(article(d, lead, Vec::new(), sections, Vec::new()));
}
