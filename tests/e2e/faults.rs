//! A damaged world is never served: each fault of a world file, its index or the manifest,
//! against every route family of both listeners of a real `fabula serve`. Expected: the damaged
//! world answers 503 `world_unavailable` everywhere (never 200 with its data, never 500), the
//! other worlds keep serving, `/health` says `degraded` naming it, `/metrics` counts it, and
//! `fabula check --deep` names the damaged file.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Listeners, fabula, generate, serve_both};

const ADMIN_TOKEN: &str = "fault-matrix-admin-token";
/// The world every fault damages; world 0 stays whole.
const DAMAGED: u32 = 1;

fn serve(dir: &Path) -> Listeners {
    serve_both(dir, ADMIN_TOKEN, &["--world-check-interval", "200ms"])
}

/// What a route family is asked of one world: a page url, a query and a task of that world.
struct Probe {
    url: String,
    query: String,
    task: String,
    table: String,
}

impl Probe {
    fn of(file: &Path) -> Probe {
        let world = fabula_file::WorldFile::open(file).unwrap();
        let page = world.pages().unwrap().into_iter().next().unwrap().page;
        let query = page.title.split_whitespace().next().unwrap().to_owned();
        let task = world.tasks().unwrap().into_iter().next().unwrap().id;
        let table = world.tables().unwrap().into_iter().next().unwrap().name;
        Probe {
            url: page.url,
            query,
            task,
            table,
        }
    }
}

/// One request of the matrix: which listener, the method, the path and the body.
struct Call {
    admin: bool,
    method: &'static str,
    path: String,
    body: String,
}

/// Every route family that reads one world's data, for world `world`.
fn calls(world: u32, probe: &Probe) -> Vec<Call> {
    let agent = |method, path: String, body: Value| Call {
        admin: false,
        method,
        path,
        body: if body.is_null() {
            String::new()
        } else {
            body.to_string()
        },
    };
    let admin = |method, path: String, body: Value| Call {
        admin: true,
        ..agent(method, path, body)
    };
    let (q, url, task) = (&probe.query, &probe.url, &probe.task);
    let encoded = |text: &str| {
        text.replace('%', "%25")
            .replace('&', "%26")
            .replace(' ', "%20")
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "faults", "version": "1"}}});
    vec![
        agent(
            "POST",
            format!("/v1/worlds/{world}/search"),
            json!({"query": q}),
        ),
        agent(
            "POST",
            format!("/v1/worlds/{world}/extract"),
            json!({"url": url}),
        ),
        agent(
            "POST",
            format!("/v1/worlds/{world}/retrieve"),
            json!({"queries": [q]}),
        ),
        agent(
            "POST",
            "/retrieve".into(),
            json!({"queries": [q], "world": world}),
        ),
        agent(
            "POST",
            format!("/compat/tavily/{world}/search"),
            json!({"query": q}),
        ),
        agent(
            "POST",
            format!("/compat/tavily/{world}/extract"),
            json!({"urls": [url]}),
        ),
        agent(
            "POST",
            "/v1/sessions".into(),
            json!({"world": world, "seed": 1}),
        ),
        agent("POST", format!("/mcp/{world}"), initialize),
        agent("GET", format!("/ui/worlds/{world}"), Value::Null),
        agent(
            "GET",
            format!("/ui/worlds/{world}/page?url={}", encoded(url)),
            Value::Null,
        ),
        agent(
            "GET",
            format!("/ui/worlds/{world}/search?q={}", encoded(q)),
            Value::Null,
        ),
        agent(
            "GET",
            format!("/ui/worlds/{world}/rows/{}/1", probe.table),
            Value::Null,
        ),
        admin("GET", format!("/admin/worlds/{world}/tasks"), Value::Null),
        admin(
            "POST",
            "/admin/score".into(),
            json!({"task_id": task, "answer": "x"}),
        ),
        admin(
            "POST",
            "/v1/env/reset".into(),
            json!({"world": world, "task_id": task}),
        ),
        admin(
            "POST",
            "/reset".into(),
            json!({"world": world, "task_id": task}),
        ),
        admin(
            "GET",
            format!("/ui/worlds/{world}/tasks/{task}"),
            Value::Null,
        ),
    ]
}

/// Sends one call; the status and body.
fn send(server: &Listeners, call: &Call) -> (u16, String) {
    let bearer = format!("Bearer {ADMIN_TOKEN}");
    let mut headers = vec![("accept", "application/json, text/event-stream")];
    let addr = if call.admin {
        headers.push(("authorization", bearer.as_str()));
        &server.admin
    } else {
        &server.agent
    };
    let (status, _, body) = super::http(addr, call.method, &call.path, &headers, &call.body);
    (status, body)
}

/// The answers of every call on world `world`, as `(path, status, body)`.
fn answers(server: &Listeners, world: u32, probe: &Probe) -> Vec<(String, u16, String)> {
    calls(world, probe)
        .iter()
        .map(|call| {
            let (status, body) = send(server, call);
            (call.path.clone(), status, body)
        })
        .collect()
}

/// The faults: a name, and what it does to a copy of the dataset.
type Fault = (&'static str, fn(&Path));

fn world_file(dir: &Path, id: u32) -> PathBuf {
    dir.join(fabula_file::world_file_name(id))
}

fn flip_a_byte(file: &Path) {
    let mut bytes = std::fs::read(file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5a;
    std::fs::write(file, bytes).unwrap();
}

const FAULTS: &[Fault] = &[
    ("truncated to 4 KiB", |dir| {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(world_file(dir, DAMAGED))
            .unwrap();
        file.set_len(4096).unwrap();
    }),
    ("one byte flipped in a page", |dir| {
        flip_a_byte(&world_file(dir, DAMAGED))
    }),
    ("deleted", |dir| {
        std::fs::remove_file(world_file(dir, DAMAGED)).unwrap()
    }),
    // A directory in its place: unreadable even for root, whom permissions do not stop.
    ("unreadable", |dir| {
        let file = world_file(dir, DAMAGED);
        std::fs::remove_file(&file).unwrap();
        std::fs::create_dir(&file).unwrap();
    }),
    ("replaced by another world's file", |dir| {
        std::fs::copy(world_file(dir, 2), world_file(dir, DAMAGED)).unwrap();
    }),
    ("manifest edited (its hash)", |dir| {
        let path = dir.join(fabula_file::MANIFEST);
        let mut manifest: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let entry = &mut manifest["worlds"][DAMAGED as usize];
        let sha = entry["sha256"].as_str().unwrap();
        let first = if sha.starts_with('0') { "1" } else { "0" };
        entry["sha256"] = Value::String(format!("{first}{}", &sha[1..]));
        std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    }),
];

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Waits (at most 10 s) for `/health` to name the damaged world.
fn wait_degraded(server: &Listeners) -> Value {
    let started = Instant::now();
    loop {
        let (status, _, body) = super::http(&server.agent, "GET", "/health", &[], "");
        assert_eq!(status, 200, "{body}");
        let health: Value = serde_json::from_str(&body).unwrap();
        if health["status"] == "degraded" || started.elapsed() > Duration::from_secs(10) {
            return health;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Checks a server whose world [`DAMAGED`] is damaged; `fault` names the case in failures.
fn assert_damaged_world_refused(
    server: &Listeners,
    fault: &str,
    probes: &[Probe],
    whole: &[(String, u16, String)],
) {
    let health = wait_degraded(server);
    assert_eq!(health["status"], "degraded", "{fault}: {health}");
    assert_eq!(health["unavailable"], json!([DAMAGED]), "{fault}: {health}");
    for (path, status, body) in answers(server, DAMAGED, &probes[DAMAGED as usize]) {
        assert_eq!(status, 503, "{fault}: {path} answered {status}: {body}");
        assert!(
            body.contains("world_unavailable") || body.contains("unavailable"),
            "{fault}: {path}: {body}"
        );
    }
    // The other worlds keep serving, exactly as before.
    let now = answers_without_times(&answers(server, 0, &probes[0]));
    for ((path, status, body), (_, was_status, was_body)) in
        now.iter().zip(answers_without_times(whole))
    {
        assert_eq!(
            (*status, body == &was_body),
            (was_status, true),
            "{fault}: {path} answers otherwise now:\n{}",
            first_difference(body, &was_body)
        );
    }
    // Search-R1's dataset-wide /retrieve still answers, from the other worlds only.
    let query = json!({"queries": [probes[DAMAGED as usize].query], "topk": 10}).to_string();
    let (status, _, body) = super::http(&server.agent, "POST", "/retrieve", &[], &query);
    assert_eq!(status, 200, "{fault}: {body}");
    let (status, _, metrics) = super::http(&server.agent, "GET", "/metrics", &[], "");
    assert_eq!(status, 200);
    assert!(
        metrics.contains("fabula_worlds_unavailable 1"),
        "{fault}: {metrics}"
    );
}

/// Where two answers part, with some context.
fn first_difference(now: &str, was: &str) -> String {
    let at = now
        .bytes()
        .zip(was.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let part = |text: &str| -> String {
        let chars = text
            .char_indices()
            .filter(|(i, _)| i + 200 >= at && *i <= at + 200);
        chars.map(|(_, c)| c).collect()
    };
    format!("now: {}\nwas: {}", part(now), part(was))
}

/// The answers with the fields that vary between two identical calls (times, session and
/// episode ids) blanked.
fn answers_without_times(answers: &[(String, u16, String)]) -> Vec<(String, u16, String)> {
    answers
        .iter()
        .map(|(path, status, body)| {
            let body = match serde_json::from_str::<Value>(body) {
                Ok(mut value) => {
                    blank(&mut value);
                    value.to_string()
                }
                Err(_) => body.clone(),
            };
            (path.clone(), *status, body)
        })
        .collect()
}

fn blank(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                if matches!(
                    key.as_str(),
                    "response_time" | "session" | "episode_id" | "request_id" | "seed"
                ) {
                    *field = Value::Null;
                } else {
                    blank(field);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(blank),
        _ => {}
    }
}

#[test]
fn a_damaged_world_is_never_served_and_the_others_are() {
    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("pristine");
    generate(&pristine, 3, 41);
    let probes: Vec<Probe> = (0..3)
        .map(|id| Probe::of(&world_file(&pristine, id)))
        .collect();

    // The whole dataset: every call answers 200 on every world; these are the answers to keep.
    let server = serve(&pristine);
    let whole = answers(&server, 0, &probes[0]);
    for id in 0..3 {
        for (path, status, body) in answers(&server, id, &probes[id as usize]) {
            assert_eq!(status, 200, "whole dataset: {path}: {body}");
        }
    }
    let whole_damaged =
        answers_without_times(&answers(&server, DAMAGED, &probes[DAMAGED as usize]));
    drop(server);

    for (n, (fault, apply)) in FAULTS.iter().enumerate() {
        let dir = tmp.path().join(format!("fault-{n}"));
        copy_dir(&pristine, &dir);
        apply(&dir);
        let server = serve(&dir);
        assert_damaged_world_refused(&server, fault, &probes, &whole);
        drop(server);
        let out = fabula(&["check", "--deep", dir.to_str().unwrap()]);
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(
            !out.status.success(),
            "{fault}: check --deep passed:\n{report}"
        );
        assert!(
            report.contains("world-00001.sqlite") && report.contains("world.unavailable"),
            "{fault}: {report}"
        );
        let out = fabula(&["index", dir.to_str().unwrap()]);
        assert!(
            !out.status.success(),
            "{fault}: `fabula index` indexed a damaged world"
        );
    }

    // An index built for another world is not used: world 1 is indexed again from its own
    // (whole) file and answers exactly as before; `check --deep` names the foreign index.
    let dir = tmp.path().join("foreign-index");
    copy_dir(&pristine, &dir);
    std::fs::copy(
        dir.join("index/world-00002.fidx"),
        dir.join("index/world-00001.fidx"),
    )
    .unwrap();
    let out = fabula(&["check", "--deep", dir.to_str().unwrap()]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("index/world-00001.fidx") && report.contains("index.stale"),
        "{report}"
    );
    let server = serve(&dir);
    let answered = answers_without_times(&answers(&server, DAMAGED, &probes[DAMAGED as usize]));
    assert_eq!(answered, whole_damaged);
    drop(server);

    // Damaged while serving: the world answered, its file changes under the server, and the
    // next sweep (every 200 ms here) takes it out of service.
    let dir = tmp.path().join("mid-run");
    copy_dir(&pristine, &dir);
    let server = serve(&dir);
    let (status, body) = send(&server, &calls(DAMAGED, &probes[DAMAGED as usize])[0]);
    assert_eq!(status, 200, "{body}");
    flip_a_byte(&world_file(&dir, DAMAGED));
    assert_damaged_world_refused(&server, "flipped while serving", &probes, &whole);

    // The whole dataset passes the deep check.
    let out = fabula(&["check", "--deep", pristine.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
