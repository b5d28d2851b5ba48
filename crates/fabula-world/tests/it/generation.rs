//! Properties of generated worlds over many seeds and ids.

use std::collections::{BTreeMap, BTreeSet};

use fabula_world::{generate_world, theme};

#[test]
fn same_inputs_give_the_same_world() {
    let themes = theme::all().unwrap();
    let a = generate_world(7, 42, &themes);
    let b = generate_world(7, 42, &themes);
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    let c = generate_world(8, 42, &themes);
    assert_ne!(a.name, c.name);
}

#[test]
fn a_thousand_worlds_cover_every_theme_and_stay_in_bounds() {
    let themes = theme::all().unwrap();
    let mut per_theme: BTreeMap<String, usize> = BTreeMap::new();
    let mut shapes = BTreeSet::new();
    for id in 0..1000 {
        let w = generate_world(0, id, &themes);
        assert!(
            (300..=500).contains(&w.n_rows()),
            "world {id} has {} rows",
            w.n_rows()
        );
        assert!(
            (6..=12).contains(&w.n_tables()),
            "world {id} has {} tables",
            w.n_tables()
        );
        *per_theme.entry(w.theme.id.clone()).or_default() += 1;
        shapes.insert((w.theme.id.clone(), w.n_tables()));
    }
    assert!(per_theme.len() >= 8, "{per_theme:?}");
    for (theme, n) in &per_theme {
        assert!(*n >= 50, "theme {theme} appears only {n} times");
    }
    // Table shapes vary within themes, not only between them.
    assert!(shapes.len() >= 16, "{shapes:?}");
}

#[test]
fn names_are_unique_and_not_real() {
    let themes = theme::all().unwrap();
    for id in 0..50 {
        let w = generate_world(3, id, &themes);
        let mut seen = BTreeSet::new();
        let names = w
            .regions
            .iter()
            .map(|x| &x.name)
            .chain(w.settlements.iter().map(|x| &x.name))
            .chain(w.people.iter().map(|x| &x.name))
            .chain(w.organisations.iter().map(|x| &x.name))
            .chain(w.works.iter().map(|x| &x.name))
            .chain(w.events.iter().map(|x| &x.name))
            .chain(w.alliances.iter().map(|x| &x.name));
        for name in names {
            assert!(
                seen.insert(name.to_lowercase()),
                "world {id}: `{name}` twice"
            );
            assert!(!fabula_world::blocklist::is_blocked(name), "{name}");
            assert!(
                !name
                    .split_whitespace()
                    .any(fabula_world::blocklist::is_blocked),
                "{name}"
            );
        }
    }
}

/// A term of office: start year and end year, open when still held.
type Term = (i64, Option<i64>);

#[test]
fn time_order_holds_in_the_model() {
    let themes = theme::all().unwrap();
    for id in 0..100 {
        let w = generate_world(11, id, &themes);
        for o in &w.organisations {
            let f = w.person(o.founder);
            assert!(f.birth_year + 18 <= o.founded, "world {id} org {}", o.id);
            assert!(f.death_year.is_none_or(|d| o.founded <= d));
            assert!(w.settlement(o.home).founded <= o.founded);
            assert!(o.founded <= w.present_year);
        }
        let mut by_seat: BTreeMap<(i64, &str), Vec<Term>> = BTreeMap::new();
        for t in &w.tenures {
            by_seat
                .entry((t.organisation, t.seat.as_str()))
                .or_default()
                .push((t.start, t.end));
        }
        for terms in by_seat.values_mut() {
            terms.sort_by_key(|(start, end)| (*start, end.unwrap_or(i64::MAX)));
            assert!(
                terms.iter().all(|(s, e)| e.is_none_or(|e| e > *s)),
                "world {id}: empty term"
            );
            for pair in terms.windows(2) {
                let end = pair[0]
                    .1
                    .unwrap_or_else(|| panic!("world {id}: open term before another: {terms:?}"));
                assert!(end <= pair[1].0, "world {id}: overlapping terms {pair:?}");
            }
        }
        for r in &w.regions {
            let sum: i64 = w
                .settlements
                .iter()
                .filter(|s| s.region == r.id)
                .map(|s| s.population)
                .sum();
            assert_eq!(r.population, sum);
        }
    }
}
