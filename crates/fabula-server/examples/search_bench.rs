//! Measures the search service the way the targets state it: a synthetic corpus, the server in one
//! process and the load generator in another.
//!
//! ```text
//! cargo run --release -p fabula-server --example search_bench -- make DIR N_WORLDS PAGES_PER_WORLD
//! cargo run --release -p fabula-server --example search_bench -- serve DIR [ADDR]
//! cargo run --release -p fabula-server --example search_bench -- load ADDR SECONDS CONNECTIONS [N_WORLDS [WORDS..]]
//! cargo run --release -p fabula-server --example search_bench -- cost DIR
//! ```

use std::path::Path;
use std::time::{Duration, Instant};

use fabula_server::loadgen::{self, LoadConfig};
use fabula_server::{ServeConfig, bind};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::{Connection, params};
use serde_json::json;

const SYLLABLES: [&str; 24] = [
    "ka", "ve", "lor", "am", "sel", "dra", "vosk", "or", "run", "tal", "vik", "bel", "mo", "ra",
    "cas", "kel", "dun", "fray", "els", "weir", "fer", "rin", "gal", "dow",
];
const COMMON: [&str; 30] = [
    "harbour",
    "guild",
    "river",
    "council",
    "founded",
    "population",
    "trade",
    "lantern",
    "archive",
    "festival",
    "ferry",
    "tower",
    "market",
    "district",
    "captain",
    "treaty",
    "season",
    "bridge",
    "school",
    "league",
    "record",
    "island",
    "colony",
    "academy",
    "vessel",
    "charter",
    "temple",
    "museum",
    "quarter",
    "canal",
];

fn name(rng: &mut ChaCha8Rng) -> String {
    let n_syllables = rng.random_range(2..=3);
    let mut word: String = (0..n_syllables)
        .map(|_| SYLLABLES[rng.random_range(0..SYLLABLES.len())])
        .collect();
    word[..1].make_ascii_uppercase();
    word
}

fn make_world(path: &Path, world_id: u32, n_pages: usize) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(u64::from(world_id));
    let names: Vec<String> = (0..n_pages).map(|_| name(&mut rng)).collect();
    let mut conn = Connection::open(path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         CREATE TABLE fabula_meta(key TEXT PRIMARY KEY, value TEXT) STRICT;
         CREATE TABLE fabula_pages(id INTEGER PRIMARY KEY, url TEXT UNIQUE NOT NULL,
             title TEXT NOT NULL, kind TEXT NOT NULL, published TEXT, body TEXT NOT NULL) STRICT;
         CREATE TABLE fabula_page_facts(page_id INTEGER NOT NULL REFERENCES fabula_pages(id),
             table_name TEXT NOT NULL, row_id INTEGER NOT NULL, column_name TEXT NOT NULL,
             shown TEXT NOT NULL, value_kind TEXT NOT NULL,
             PRIMARY KEY (page_id, table_name, row_id, column_name)) STRICT;",
    )
    .unwrap();
    let tx = conn.transaction().unwrap();
    for (page_idx, title) in names.iter().enumerate() {
        let population = rng.random_range(1_000..900_000u32);
        let founded = rng.random_range(900..1900u32);
        let related = &names[rng.random_range(0..names.len())];
        let mut body = format!(
            "# {title} {}\n\n{title} is a {} with a population of {population}, founded in \
             {founded} near {related}.\n\n",
            page_idx,
            COMMON[rng.random_range(0..COMMON.len())]
        );
        for _ in 0..12 {
            let sentence: Vec<&str> = (0..14)
                .map(|_| {
                    if rng.random_bool(0.2) {
                        names[rng.random_range(0..names.len())].as_str()
                    } else {
                        COMMON[rng.random_range(0..COMMON.len())]
                    }
                })
                .collect();
            body.push_str(&sentence.join(" "));
            body.push_str(".\n");
        }
        let page_id = page_idx as i64 + 1;
        let published = rng.random_bool(0.3).then(|| {
            format!(
                "19{:02}-0{}-1{}",
                page_idx % 100,
                1 + page_idx % 9,
                page_idx % 10
            )
        });
        tx.execute(
            "INSERT INTO fabula_pages VALUES (?1, ?2, ?3, 'entity', ?4, ?5)",
            params![
                page_id,
                format!("https://w{world_id}.example/wiki/{title}_{page_idx}"),
                format!("{title} {page_idx}"),
                published,
                body
            ],
        )
        .unwrap();
        for (column, shown, kind) in [
            ("population", population.to_string(), "number"),
            ("founded", founded.to_string(), "year"),
            ("near_id", related.clone(), "entity"),
        ] {
            tx.execute(
                "INSERT INTO fabula_page_facts VALUES (?1, 'place', ?2, ?3, ?4, ?5)",
                params![page_id, page_id, column, shown, kind],
            )
            .unwrap();
        }
    }
    tx.commit().unwrap();
    names[0].clone()
}

fn make(dir: &Path, n_worlds: u32, n_pages: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let mut entries = Vec::new();
    for world_id in 0..n_worlds {
        let file = format!("world-{world_id:05}.sqlite");
        let path = dir.join(&file);
        let _ = std::fs::remove_file(&path);
        let name = make_world(&path, world_id, n_pages);
        entries.push(
            json!({"id": world_id, "file": file, "sha256": "", "theme": "synthetic",
            "name": name, "rows": n_pages, "tables": 1, "pages": n_pages, "tasks": 0}),
        );
    }
    let manifest = json!({"format_version": 1, "generator_version": "bench", "master_seed": 0,
        "count": n_worlds, "worlds": entries});
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_vec(&manifest).unwrap(),
    )
    .unwrap();
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |idx: usize| args.get(idx).map(String::as_str).unwrap_or_default();
    match arg(0) {
        "make" => make(
            Path::new(arg(1)),
            arg(2).parse().unwrap(),
            arg(3).parse().unwrap(),
        ),
        "serve" => {
            let started = Instant::now();
            let addr = if arg(2).is_empty() {
                "127.0.0.1:8080"
            } else {
                arg(2)
            };
            let config = ServeConfig {
                worlds: arg(1).into(),
                addr: addr.parse().unwrap(),
                ..ServeConfig::default()
            };
            let server = bind(config).await.unwrap();
            println!(
                "listening on {} after {:?}",
                server.local_addr(),
                started.elapsed()
            );
            server
                .run_until(async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await
                .unwrap();
        }
        "load" => {
            let n_worlds: u32 = arg(4).parse().unwrap_or(0);
            let config = LoadConfig {
                addr: loadgen::parse_addr(arg(1)).unwrap(),
                duration: Duration::from_secs(arg(2).parse().unwrap()),
                connections: arg(3).parse().unwrap(),
                worlds: (0..n_worlds).collect(),
                vocabulary: args.iter().skip(5).cloned().collect(),
                ..LoadConfig::default()
            };
            println!("{}", loadgen::run(config).await.unwrap());
        }
        "cost" => {
            let corpus = fabula_search::Corpus::open(Path::new(arg(1))).unwrap();
            let index = corpus.world(0).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let options = fabula_search::SearchOptions {
                top_k: 10,
                offset: 0,
                hiding: fabula_search::Hiding::Partial,
            };
            let n_queries = 5_000;
            let started = Instant::now();
            for _ in 0..n_queries {
                let query = format!(
                    "{} {}",
                    COMMON[rng.random_range(0..COMMON.len())],
                    name(&mut rng)
                );
                index.search(&query, &options).unwrap();
            }
            println!("{:?} per search", started.elapsed() / n_queries);
        }
        _ => println!("usage: search_bench make|serve|load|cost ..."),
    }
}
