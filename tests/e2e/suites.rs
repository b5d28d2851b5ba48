//! One real task answered through each tool suite, end to end: a generated dataset, a task that
//! one search and one page answer (read from `fabula tasks export` and `fabula corpus export`),
//! `fabula serve`, the suite's own calls alone to search for the entity the question names and
//! to open the evidence page, the answer read off the text the suite returned, and `fabula
//! eval` scoring it full marks. Tavily and the gpt-oss browser backend are driven by their own
//! Python clients instead (tests/python/tavily, tests/python/gpt_oss).

use std::collections::HashMap;

use serde_json::{Value, json};

use super::mcp::{HttpClient, tool_text};
use super::{Listeners, fabula, generate, http, serve_both};

const ADMIN_TOKEN: &str = "suites-admin-token-0123";

/// A task that one search and one page answer.
struct Task {
    id: String,
    world: u32,
    question: String,
    /// The gold answer's text.
    answer: String,
    /// The url of the one page that states the answer.
    evidence: String,
    /// The entity the question names: the evidence page's title.
    name: String,
    /// The task's line of `fabula tasks export`, as `fabula eval` reads it.
    record: String,
}

/// A generated dataset, its task, and `fabula serve` over it.
struct Setup {
    /// Declared before `dir`, so the server stops before its worlds are deleted.
    server: Listeners,
    task: Task,
    dir: tempfile::TempDir,
}

impl Setup {
    /// Generates 2 worlds of `seed`, picks their task and serves them on free ports.
    fn new(seed: u64) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let worlds = dir.path().join("worlds");
        generate(&worlds, 2, seed);
        let file = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
        let (tasks, corpus) = (file("tasks.jsonl"), file("corpus.jsonl"));
        let worlds_arg = worlds.to_str().unwrap();
        let export = |args: &[&str]| {
            let out = fabula(args);
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        export(&[
            "tasks", "export", "--worlds", worlds_arg, "--tier", "easy", "--out", &tasks,
        ]);
        export(&["corpus", "export", "--worlds", worlds_arg, "--out", &corpus]);
        let task = pick_task(
            &std::fs::read_to_string(&tasks).unwrap(),
            &std::fs::read_to_string(&corpus).unwrap(),
        );
        let server = serve_both(&worlds, ADMIN_TOKEN, &[]);
        Setup { server, task, dir }
    }

    /// POSTs `body` to the agent listener's `path` and returns the JSON answer of a 200.
    fn post(&self, path: &str, body: Value) -> Value {
        let (status, _, text) = http(&self.server.agent, "POST", path, &[], &body.to_string());
        assert_eq!(status, 200, "POST {path} {body}: {text}");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("POST {path}: {e}: {text}"))
    }

    /// POSTs `body` to the admin listener's `path` with the token and returns the JSON answer.
    fn post_admin(&self, path: &str, body: Value) -> Value {
        let auth = format!("Bearer {ADMIN_TOKEN}");
        let headers = [("Authorization", auth.as_str())];
        let (status, _, text) = http(
            &self.server.admin,
            "POST",
            path,
            &headers,
            &body.to_string(),
        );
        assert_eq!(status, 200, "POST {path} {body}: {text}");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("POST {path}: {e}: {text}"))
    }

    /// GETs the admin listener's `path` with the token: the text of a 200.
    fn get_admin(&self, path: &str) -> String {
        let auth = format!("Bearer {ADMIN_TOKEN}");
        let headers = [("Authorization", auth.as_str())];
        let (status, _, text) = http(&self.server.admin, "GET", path, &headers, "");
        assert_eq!(status, 200, "GET {path}: {text}");
        text
    }

    /// A new REST session in the task's world; its id.
    fn session(&self) -> String {
        let created = self.post("/v1/sessions", json!({ "world": self.task.world }));
        created["session"].as_str().unwrap().to_owned()
    }

    /// An initialised MCP client of the task's world at `/mcp/{world}{tools}`.
    fn mcp(&self, tools: &str) -> HttpClient<'_> {
        let mut client = HttpClient {
            addr: &self.server.agent,
            path: format!("/mcp/{}{tools}", self.task.world),
            session: None,
        };
        client.initialize();
        client
    }

    /// Writes `answer` as the task's prediction, runs `fabula eval --json` on the task and
    /// checks that it scores full marks.
    fn score(&self, answer: &str) {
        let tasks = self.dir.path().join("task.jsonl");
        let predictions = self.dir.path().join("predictions.jsonl");
        std::fs::write(&tasks, format!("{}\n", self.task.record)).unwrap();
        let prediction = json!({ "task_id": self.task.id, "answer": answer });
        std::fs::write(&predictions, format!("{prediction}\n")).unwrap();
        let out = fabula(&[
            "eval",
            "--tasks",
            tasks.to_str().unwrap(),
            "--predictions",
            predictions.to_str().unwrap(),
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["counts"]["tasks"], 1, "{report}");
        assert_eq!(report["counts"]["predictions"], 1, "{report}");
        let scored = &report["per_task"][0];
        assert_eq!(scored["task_id"], self.task.id.as_str(), "{report}");
        assert_eq!(
            scored["em"], 1.0,
            "{answer:?} for {:?}: {report}",
            self.task.answer
        );
        assert_eq!(report["overall"]["em"], 1.0, "{report}");
    }
}

/// The first easy lookup of the export whose one evidence page is the article of an entity its
/// question names and states the gold answer's text (as `fabula check` makes every evidence page
/// do, though a number may be written with separators), preferring a name to a number.
fn pick_task(tasks: &str, corpus: &str) -> Task {
    let pages: HashMap<String, (String, String)> = corpus
        .lines()
        .map(|line| {
            let page: Value = serde_json::from_str(line).unwrap();
            let text = |key: &str| page[key].as_str().unwrap().to_owned();
            (text("url"), (text("title"), text("contents")))
        })
        .collect();
    let mut candidates: Vec<Task> = tasks
        .lines()
        .filter_map(|line| {
            let task: Value = serde_json::from_str(line).unwrap();
            let evidence = task["evidence"].as_array()?;
            let (Some(answer), [Value::String(url)]) = (task["answer"].as_str(), &evidence[..])
            else {
                return None;
            };
            let question = task["question"].as_str().unwrap();
            let (title, contents) = &pages[url];
            let fits = task["kind"] == "lookup"
                && task["tier"] == "easy"
                && question.contains(title.as_str())
                && find_phrase(contents, answer).is_some();
            fits.then(|| Task {
                id: task["id"].as_str().unwrap().to_owned(),
                world: task["world"].as_u64().unwrap() as u32,
                question: question.to_owned(),
                answer: answer.to_owned(),
                evidence: url.clone(),
                name: title.clone(),
                record: line.to_owned(),
            })
        })
        .collect();
    assert!(!candidates.is_empty(), "no easy lookup fits in {tasks}");
    let named = candidates
        .iter()
        .position(|task| !task.answer.chars().any(|c| c.is_ascii_digit()));
    candidates.swap_remove(named.unwrap_or(0))
}

/// Where `phrase` stands in `text` as whole words (not inside a longer word or number).
fn find_phrase(text: &str, phrase: &str) -> Option<usize> {
    text.match_indices(phrase).map(|(at, _)| at).find(|&at| {
        let before = text[..at].chars().next_back();
        let after = text[at + phrase.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The answer as `text`, what `suite` returned, states it: the gold answer's text found there
/// as whole words. Fails the test when the suite did not deliver it.
fn read_off(text: &str, task: &Task, suite: &str) -> String {
    let at = find_phrase(text, &task.answer).unwrap_or_else(|| {
        panic!(
            "{suite} did not deliver the answer {:?} to {:?} ({}); it returned:\n{text}",
            task.answer, task.question, task.id
        )
    });
    text[at..at + task.answer.len()].to_owned()
}

/// The evidence page's url among the urls a search returned, as the suite wrote it; fails the
/// test when the search did not find the page.
fn found<'a>(urls: impl IntoIterator<Item = &'a str>, task: &Task, suite: &str) -> String {
    let urls: Vec<&str> = urls.into_iter().collect();
    let url = urls.iter().find(|url| url.trim() == task.evidence);
    let url = url.unwrap_or_else(|| {
        panic!(
            "{suite}'s search for {:?} did not find {}; it found {urls:#?}",
            task.name, task.evidence
        )
    });
    (*url).to_owned()
}

/// The urls of Qwen-AgentWorld's `web_search` result blocks (`[n] URL`, then `Title:`, ...).
fn block_urls(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| line.strip_prefix('[')?.split_once("] "))
        .filter(|(n, _)| n.parse::<u32>().is_ok())
        .map(|(_, url)| url)
        .collect()
}

/// The next `start_index` a `web_extractor` text names when the page goes on.
fn next_start_index(text: &str) -> Option<u64> {
    let rest = text.rsplit_once("with a start_index of ")?.1;
    rest.split_whitespace().next()?.parse().ok()
}

/// Reads a whole page through Qwen-AgentWorld's `web_extractor`, window by window as its hint
/// says; `extract(url, start_index)` makes one call and returns its text.
fn extract_all(url: &str, mut extract: impl FnMut(&str, u64) -> String) -> String {
    let (mut text, mut start_index) = (String::new(), Some(0));
    while let Some(at) = start_index {
        let window = extract(url, at);
        assert!(
            window.starts_with(&format!("Contents of {url}:")),
            "{window}"
        );
        start_index = next_start_index(&window);
        text.push_str(&window);
    }
    text
}

/// Reads a whole page through a native extract route (`{"url", "start"}` -> `{"content",
/// "next_start"}`), window by window.
fn extract_windows(setup: &Setup, path: &str, url: &str) -> String {
    let (mut text, mut start) = (String::new(), Some(0));
    while let Some(at) = start {
        let page = setup.post(path, json!({ "url": url, "start": at }));
        assert_eq!(page["url"], url, "{page}");
        text.push_str(page["content"].as_str().unwrap());
        start = page["next_start"].as_u64();
    }
    text
}

/// Calls an MCP tool and returns its result, which must not be a tool error.
fn call(client: &HttpClient, id: u64, tool: &str, arguments: Value) -> Value {
    let answer = client.request(
        id,
        "tools/call",
        json!({ "name": tool, "arguments": arguments }),
    );
    assert_eq!(
        answer["result"]["isError"],
        json!(false),
        "{tool}: {answer}"
    );
    answer
}

/// Native REST: `POST /v1/worlds/{id}/search` (`{"queries", "top_k"}` -> `{"responses":
/// [{"results": [{"url", ..}]}]}`), then `/extract` (`{"url", "start"}` -> `{"content",
/// "next_start"}`).
#[test]
fn native_search_and_extract_answer_a_task() {
    let setup = Setup::new(3401);
    let task = &setup.task;
    let world = task.world;
    let hits = setup.post(
        &format!("/v1/worlds/{world}/search"),
        json!({ "queries": [task.name], "top_k": 10 }),
    );
    let results = hits["responses"][0]["results"].as_array().unwrap();
    let urls = results.iter().map(|hit| hit["url"].as_str().unwrap());
    let url = found(urls, task, "native REST");
    let text = extract_windows(&setup, &format!("/v1/worlds/{world}/extract"), &url);
    setup.score(&read_off(&text, task, "native REST extract"));
}

/// REST sessions: `POST /v1/sessions`, then the session's `/search` and `/extract`, then
/// `DELETE` it.
#[test]
fn rest_session_search_and_extract_answer_a_task() {
    let setup = Setup::new(3402);
    let task = &setup.task;
    let sid = setup.session();
    let hits = setup.post(
        &format!("/v1/sessions/{sid}/search"),
        json!({ "queries": [task.name], "top_k": 10 }),
    );
    let results = hits["responses"][0]["results"].as_array().unwrap();
    let url = found(
        results.iter().map(|hit| hit["url"].as_str().unwrap()),
        task,
        "REST session",
    );
    let text = extract_windows(&setup, &format!("/v1/sessions/{sid}/extract"), &url);
    let answer = read_off(&text, task, "REST session extract");
    let (status, _, body) = http(
        &setup.server.agent,
        "DELETE",
        &format!("/v1/sessions/{sid}"),
        &[],
        "",
    );
    assert!((200..300).contains(&status), "{status} {body}");
    setup.score(&answer);
}

/// Search-R1: `POST /retrieve` with the question, as its trainer sends it (`{"queries",
/// "topk": 3, "return_scores": true}` -> `{"result": [[{"document": {"id", "contents", "url"},
/// "score"}]]}`); its agent reads the passages, here those of the evidence page.
#[test]
fn search_r1_retrieve_answers_a_task() {
    let setup = Setup::new(3403);
    let task = &setup.task;
    let answer = setup.post(
        "/retrieve",
        json!({ "queries": [task.question], "topk": 3, "return_scores": true }),
    );
    let hits = answer["result"][0].as_array().unwrap();
    assert!(hits.iter().all(|hit| hit["score"].is_number()), "{answer}");
    let documents: Vec<&Value> = hits.iter().map(|hit| &hit["document"]).collect();
    let urls = documents.iter().map(|doc| doc["url"].as_str().unwrap());
    let url = found(urls, task, "Search-R1 /retrieve");
    // Search-R1's `_passages2string`: "Doc i(Title: title) text", the title the first line.
    let passages: Vec<String> = documents
        .iter()
        .filter(|doc| doc["url"] == url.as_str())
        .enumerate()
        .map(|(at, doc)| {
            let contents = doc["contents"].as_str().unwrap();
            let (title, text) = contents.split_once('\n').unwrap_or((contents, ""));
            format!("Doc {}(Title: {title}) {text}", at + 1)
        })
        .collect();
    setup.score(&read_off(&passages.join("\n"), task, "Search-R1 /retrieve"));
}

/// ASearcher's local search client: `POST /retrieve` with the question (`"return_scores":
/// false`: `{"result": [[{"id", "contents", "url"}]]}`), then `POST /access` with the url
/// (`{"urls"}` -> `{"result": [{"url", "title", "contents"}]}`).
#[test]
fn asearcher_retrieve_and_access_answer_a_task() {
    let setup = Setup::new(3404);
    let task = &setup.task;
    let answer = setup.post(
        "/retrieve",
        json!({ "queries": [task.question], "topk": 3, "return_scores": false }),
    );
    let hits = answer["result"][0].as_array().unwrap();
    let urls = hits.iter().map(|hit| hit["url"].as_str().unwrap());
    let url = found(urls, task, "ASearcher /retrieve");
    let pages = setup.post("/access", json!({ "urls": [url] }));
    let page = &pages["result"][0];
    assert_eq!(page["url"], url.as_str(), "{pages}");
    let contents = page["contents"].as_str().unwrap();
    setup.score(&read_off(contents, task, "ASearcher /access"));
}

/// Qwen-AgentWorld's tools over MCP at `/mcp/{world}`: `web_search` (`{"queries", "top_k"}`,
/// result blocks `[n] URL`) and `web_extractor` (`{"url", "start_index"}`, the page and the
/// next `start_index` when cut).
#[test]
fn mcp_web_search_and_web_extractor_answer_a_task() {
    let setup = Setup::new(3405);
    let task = &setup.task;
    let client = setup.mcp("");
    let search = call(
        &client,
        2,
        "web_search",
        json!({ "queries": [task.name], "top_k": 10 }),
    );
    let url = found(block_urls(tool_text(&search)), task, "MCP web_search");
    let mut id = 2;
    let text = extract_all(&url, |url, start_index| {
        id += 1;
        let arguments = json!({ "url": url, "start_index": start_index });
        tool_text(&call(&client, id, "web_extractor", arguments)).to_owned()
    });
    setup.score(&read_off(&text, task, "MCP web_extractor"));
}

/// OpenAI deep research's tools at `/mcp/{world}/deep-research`: `search` (`{"query"}` ->
/// `{"results": [{"id", "title", "url"}]}`) and `fetch` (`{"id"}` -> `{"id", "title", "text",
/// "url", "metadata"}`), each a JSON text item.
#[test]
fn deep_research_search_and_fetch_answer_a_task() {
    let setup = Setup::new(3406);
    let task = &setup.task;
    let client = setup.mcp("/deep-research");
    let search = call(&client, 2, "search", json!({ "query": task.name }));
    let results: Value = serde_json::from_str(tool_text(&search)).unwrap();
    let results = results["results"].as_array().unwrap();
    let url = found(
        results.iter().map(|r| r["url"].as_str().unwrap()),
        task,
        "deep research search",
    );
    let result = results.iter().find(|r| r["url"] == url.as_str()).unwrap();
    assert!(result["title"].is_string(), "{result}");
    let fetched = call(&client, 3, "fetch", json!({ "id": result["id"] }));
    let page: Value = serde_json::from_str(tool_text(&fetched)).unwrap();
    assert_eq!(page["url"], url.as_str(), "{page}");
    assert_eq!(page["metadata"]["world"], task.world, "{page}");
    let text = page["text"].as_str().unwrap();
    setup.score(&read_off(text, task, "deep research fetch"));
}

/// BrowseComp-Plus's retrieval server at `/mcp/{world}/browsecomp-plus`: `search` (`{"query"}`
/// -> the top 5 as a JSON list of `{"docid", "score", "snippet"}`) and `get_document`
/// (`{"docid"}` -> `{"docid", "text"}`).
#[test]
fn browsecomp_plus_search_and_get_document_answer_a_task() {
    let setup = Setup::new(3407);
    let task = &setup.task;
    let client = setup.mcp("/browsecomp-plus");
    let search = call(&client, 2, "search", json!({ "query": task.name }));
    let hits: Vec<Value> = serde_json::from_str(tool_text(&search)).unwrap();
    assert!(hits.len() <= 5, "{hits:?}");
    assert!(
        hits.iter()
            .all(|hit| hit["score"].is_number() && hit["snippet"].is_string())
    );
    let docid = found(
        hits.iter().map(|hit| hit["docid"].as_str().unwrap()),
        task,
        "BrowseComp-Plus search",
    );
    let got = call(&client, 3, "get_document", json!({ "docid": docid }));
    let document: Value = serde_json::from_str(tool_text(&got)).unwrap();
    assert_eq!(document["docid"], docid.as_str(), "{document}");
    let text = document["text"].as_str().unwrap();
    setup.score(&read_off(text, task, "BrowseComp-Plus get_document"));
}

/// Tongyi DeepResearch's tools at `/mcp/{world}/tongyi`: `search` (`{"query": [..]}` -> "A
/// Google search for ..." with numbered `[Title](url)` entries) and `visit` (`{"url", "goal"}`
/// -> "Evidence in page:" and "Summary:"), the question as the goal.
#[test]
fn tongyi_search_and_visit_answer_a_task() {
    let setup = Setup::new(3408);
    let task = &setup.task;
    let client = setup.mcp("/tongyi");
    let search = call(&client, 2, "search", json!({ "query": [task.name] }));
    let text = tool_text(&search);
    assert!(
        text.starts_with(&format!("A Google search for '{}' found", task.name)),
        "{text}"
    );
    let urls = text.lines().filter_map(|line| {
        let (number, entry) = line.split_once(". [")?;
        number.parse::<u32>().ok()?;
        entry.rsplit_once("](")?.1.strip_suffix(')')
    });
    let url = found(urls, task, "Tongyi search");
    let visit = call(
        &client,
        3,
        "visit",
        json!({ "url": url, "goal": task.question }),
    );
    let text = tool_text(&visit);
    // What the page gave: the evidence and the summary, after the head that repeats the goal.
    let (_, read) = text
        .split_once("Evidence in page:")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(read.contains("Summary:"), "{text}");
    setup.score(&read_off(read, task, "Tongyi visit"));
    // The browser's session view shows the calls as the agent made them, in Tongyi's shape.
    let sessions = setup.get_admin("/ui/sessions");
    let sid = sessions
        .split("/ui/sessions/")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no session listed: {sessions}"));
    let view = setup.get_admin(&format!("/ui/sessions/{sid}"));
    assert!(
        view.contains("Called as <b>mcp/tongyi</b>: <code>search {")
            && view.contains("Called as <b>mcp/tongyi</b>: <code>visit {"),
        "{view}"
    );
}

/// Qwen-AgentWorld's session tools over REST: `POST /v1/sessions/{sid}/tools/web_search`,
/// `/web_extractor` and `/dict_memory` (`{"tool", "text", "structured"}`), reading the texts an
/// agent reads; the answer is noted in the session's memory and read back from it.
#[test]
fn agentworld_session_tools_answer_a_task() {
    let setup = Setup::new(3409);
    let task = &setup.task;
    let sid = setup.session();
    let tool = |name: &str, arguments: Value| {
        let answer = setup.post(&format!("/v1/sessions/{sid}/tools/{name}"), arguments);
        assert_eq!(answer["tool"], name, "{answer}");
        answer["text"].as_str().unwrap().to_owned()
    };
    let search = tool("web_search", json!({ "query": task.name, "top_k": 10 }));
    let url = found(block_urls(&search), task, "AgentWorld web_search");
    let text = extract_all(&url, |url, start_index| {
        tool(
            "web_extractor",
            json!({ "url": url, "start_index": start_index }),
        )
    });
    let answer = read_off(&text, task, "AgentWorld web_extractor");
    let added = tool(
        "dict_memory",
        json!({ "operation": "add", "dict": { "answer": answer } }),
    );
    assert_eq!(added, "Successfully added items of ['answer'] to memory.");
    let noted = tool(
        "dict_memory",
        json!({ "operation": "retrieve", "key_list": ["answer"] }),
    );
    let noted: Value = serde_json::from_str(&noted).unwrap_or_else(|e| panic!("{e}: {noted}"));
    setup.score(noted["answer"].as_str().unwrap());
    // The session's log keeps each call in the tool's own shape beside the native one.
    let (status, _, log) = http(
        &setup.server.agent,
        "GET",
        &format!("/v1/sessions/{sid}/log"),
        &[],
        "",
    );
    assert_eq!(status, 200, "{log}");
    let log: Value = serde_json::from_str(&log).unwrap();
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(entries[0]["endpoint"], "search");
    assert_eq!(entries[0]["via"]["suite"], "agentworld");
    let call = entries[0]["via"]["call"].as_str().unwrap();
    assert!(call.starts_with("web_search {"), "{call}");
    assert!(entries[1..].iter().all(|e| {
        e["via"]["call"]
            .as_str()
            .is_some_and(|c| c.starts_with("web_extractor {"))
    }));
}

/// An OpenEnv-style episode on the admin listener: `POST /v1/env/reset` with the task, steps
/// with the `web_search` and `web_extractor` actions, and the `answer` action, whose reward is
/// the task's score; `fabula eval` agrees.
#[test]
fn an_env_episode_answers_a_task() {
    let setup = Setup::new(3410);
    let task = &setup.task;
    let reset = setup.post_admin("/v1/env/reset", json!({ "task_id": task.id, "seed": 1 }));
    assert_eq!(reset["observation"], task.question.as_str(), "{reset}");
    let episode_id = reset["episode_id"].as_str().unwrap().to_owned();
    let step = |action: Value| {
        let step = setup.post_admin(
            "/v1/env/step",
            json!({ "episode_id": episode_id, "action": action }),
        );
        assert_eq!(step["done"], action["tool"] == "answer", "{step}");
        step
    };
    let search = step(json!({ "tool": "web_search", "queries": [task.name], "top_k": 10 }));
    let url = found(
        block_urls(search["observation"].as_str().unwrap()),
        task,
        "episode web_search",
    );
    let text = extract_all(&url, |url, start_index| {
        let action = json!({ "tool": "web_extractor", "url": url, "start_index": start_index });
        step(action)["observation"].as_str().unwrap().to_owned()
    });
    let answer = read_off(&text, task, "episode web_extractor");
    let ended = step(json!({ "tool": "answer", "answer": answer }));
    assert_eq!(ended["reward"], 1.0, "{ended}");
    setup.score(&answer);
}
