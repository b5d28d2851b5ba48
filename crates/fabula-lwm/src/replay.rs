//! Replayed agent sessions: the turns a simple agent takes in one world (search an entity's
//! title, open the top hit, search a name the entity's page mentions, open the top hit), used to
//! make world-model training samples (`fabula export lwm-data`) and to benchmark a model
//! (`fabula wm bench`).
//!
//! Each session is deterministic from (seed, world id, session number): its choices come from a
//! ChaCha stream keyed by them. The observations come from the caller's template renderer, so
//! this module needs no search index of its own.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::action::{Action, Controls};
use crate::parse::parse_search;
use crate::samples::LwmTurn;
use crate::view::MemoryWorld;
use crate::{Hiding, ValueKind};

/// Where a replayed session gets its observations from.
pub trait Observe {
    /// The error of a failed search or extract.
    type Error;
    /// The template search observation for one query.
    fn search(&mut self, query: &str) -> Result<String, Self::Error>;
    /// The whole Markdown of the page at `url`.
    fn extract(&mut self, url: &str) -> Result<String, Self::Error>;
}

/// The key of one session's random stream.
fn session_rng(seed: u64, world_id: u32, session: usize) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..12].copy_from_slice(&world_id.to_le_bytes());
    key[12..20].copy_from_slice(&(session as u64).to_le_bytes());
    ChaCha8Rng::from_seed(key)
}

/// The turns of session number `session` in `world`.
pub fn replay_session<O: Observe>(
    world: &MemoryWorld,
    observe: &mut O,
    (seed, world_id, session): (u64, u32, usize),
    hiding: Hiding,
) -> Result<Vec<LwmTurn>, O::Error> {
    let mut rng = session_rng(seed, world_id, session);
    let pages: Vec<_> = world.pages.values().collect();
    if pages.is_empty() {
        return Ok(Vec::new());
    }
    let first = pages[rng.random_range(0..pages.len())];
    let names: Vec<&str> = first
        .facts
        .iter()
        .filter(|fact| matches!(fact.value_kind, ValueKind::Entity | ValueKind::Name))
        .map(|fact| fact.shown.as_str())
        .collect();
    let second_query = if names.is_empty() {
        pages[rng.random_range(0..pages.len())].title.clone()
    } else {
        names[rng.random_range(0..names.len())].to_owned()
    };
    let controls = Controls {
        hiding,
        instruction: String::new(),
    };
    let mut turns = Vec::new();
    for query in [first.title.clone(), second_query] {
        let observation = observe.search(&query)?;
        let Some(top) = parse_search(&observation)
            .ok()
            .and_then(|sections| sections.into_iter().flat_map(|s| s.results).next())
        else {
            continue;
        };
        turns.push(LwmTurn {
            action: Action::Search {
                queries: vec![query],
            },
            controls: controls.clone(),
            observation,
        });
        let page = observe.extract(&top.url)?;
        turns.push(LwmTurn {
            action: Action::Extract { url: top.url },
            controls: controls.clone(),
            observation: page,
        });
    }
    Ok(turns)
}

#[cfg(test)]
mod tests {
    use fabula_file::{Page, PageFact, PageKind};

    use super::*;

    /// Answers every search with one hit, the page whose title is the query (or the first page).
    struct Pages<'a>(&'a MemoryWorld);

    impl Observe for Pages<'_> {
        type Error = String;

        fn search(&mut self, query: &str) -> Result<String, String> {
            let page = (self.0.pages.values())
                .find(|p| p.title == query)
                .or_else(|| self.0.pages.values().next())
                .ok_or("empty")?;
            Ok(format!(
                "## Query: {query}\n\n[1] {}\nTitle: {}\nSnippet: …\nDate: N/A\n",
                page.url, page.title
            ))
        }

        fn extract(&mut self, url: &str) -> Result<String, String> {
            Ok(self.0.pages[url].body.clone())
        }
    }

    fn world(n: usize) -> MemoryWorld {
        let mut world = MemoryWorld::new("w");
        for i in 0..n {
            let name = format!("Place {i}");
            world.insert(Page {
                url: format!("https://w.fab/wiki/Place_{i}"),
                title: name.clone(),
                kind: PageKind::Entity,
                published: None,
                body: format!("# {name}\n\n{name} lies near Place {}.", (i + 1) % n),
                facts: vec![PageFact {
                    table: "places".into(),
                    row_id: i as i64,
                    column: "near".into(),
                    shown: format!("Place {}", (i + 1) % n),
                    value_kind: ValueKind::Entity,
                }],
            });
        }
        world
    }

    fn check(n_pages: usize, key: (u64, u32, usize), expect_turns: usize) -> Vec<LwmTurn> {
        let world = world(n_pages);
        let turns = replay_session(&world, &mut Pages(&world), key, Hiding::Partial).unwrap();
        assert_eq!(turns.len(), expect_turns);
        let again = replay_session(&world, &mut Pages(&world), key, Hiding::Partial).unwrap();
        assert_eq!(turns, again, "a session replays identically");
        turns
    }

    #[test]
    fn sessions_search_then_open_and_are_deterministic() {
        check(0, (1, 0, 0), 0);
        let turns = check(5, (1, 0, 0), 4);
        assert!(matches!(turns[0].action, Action::Search { .. }));
        assert!(matches!(turns[1].action, Action::Extract { .. }));
        // The second search follows a name the first page mentions.
        let (Action::Extract { url }, Action::Search { queries }) =
            (&turns[1].action, &turns[2].action)
        else {
            panic!("{turns:?}");
        };
        let first = url.rsplit('_').next().unwrap().parse::<usize>().unwrap();
        assert_eq!(queries[0], format!("Place {}", (first + 1) % 5));
    }

    #[test]
    fn sessions_differ_by_key() {
        let firsts: std::collections::BTreeSet<String> = (0..12)
            .map(|session| format!("{:?}", check(40, (9, 3, session), 4)[0].action))
            .collect();
        assert!(firsts.len() > 4, "{firsts:?}");
    }
}
