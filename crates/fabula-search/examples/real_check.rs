//! Temporary: checks snippets against real generated worlds.
use fabula_search::{Corpus, Hiding, SearchOptions, plain_text};
use std::time::Instant;

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let corpus = Corpus::open(&dir).unwrap();
    let mut n_checked = 0;
    let mut n_leaks = 0;
    let mut search_time = std::time::Duration::ZERO;
    let mut n_searches = 0;
    for info in corpus.worlds() {
        let t = Instant::now();
        let world = corpus.world(info.id).unwrap();
        let build = t.elapsed();
        let conn = rusqlite::Connection::open(&info.file).unwrap();
        let mut stmt = conn.prepare("SELECT p.url, f.shown, f.value_kind FROM fabula_page_facts f JOIN fabula_pages p ON p.id = f.page_id").unwrap();
        let mut facts: std::collections::HashMap<String, Vec<(String, String)>> = Default::default();
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))).unwrap();
        let mut queries: Vec<String> = vec!["population founded".into(), "history of the".into(), "news report".into()];
        for row in rows {
            let (url, shown, kind) = row.unwrap();
            if queries.len() < 400 { queries.push(shown.clone()); }
            facts.entry(url).or_default().push((shown, kind));
        }
        let body_bytes: usize = world.urls().map(|u| world.markdown(u).unwrap().len()).sum();
        for q in &queries {
            for hiding in [Hiding::None, Hiding::Partial] {
                let t = Instant::now();
                let res = world.search(q, &SearchOptions { top_k: 10, offset: 0, hiding }).unwrap();
                search_time += t.elapsed();
                n_searches += 1;
                for hit in res.hits {
                    n_checked += 1;
                    if hiding == Hiding::None {
                        let text = plain_text(&world.markdown(&hit.url).unwrap());
                        let inner = hit.snippet.trim_start_matches('…').trim_end_matches('…');
                        assert!(text.contains(inner), "{inner:?}\n{text:?}");
                        continue;
                    }
                    let lower = hit.snippet.to_ascii_lowercase();
                    for (shown, kind) in facts.get(&hit.url).into_iter().flatten() {
                        if matches!(kind.as_str(), "number" | "year" | "date" | "entity") && lower.contains(&shown.to_ascii_lowercase()) {
                            n_leaks += 1;
                            println!("LEAK {kind} {shown:?} in {:?} ({})", hit.snippet, hit.url);
                        }
                    }
                    if hit.snippet.chars().any(|c| c.is_ascii_digit()) { n_leaks += 1; println!("DIGIT {:?}", hit.snippet); }
                }
            }
        }
        println!("world {} pages {} avg body {} B build {:?} heap {} KiB", info.id, world.page_count(), body_bytes / world.page_count().max(1), build, world.heap_bytes() / 1024);
    }
    println!("checked {n_checked} snippets, {n_leaks} leaks, {:?} per search (debug-ish)", search_time / n_searches as u32);
}
