//! The world browser in a real headless Chromium with JavaScript turned off, driven over
//! WebDriver (chromedriver and fantoccini): each view's content as the browser shows it, full-page
//! screenshots into `target/browser-screenshots/` for CI to keep, and keyboard navigation.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fabula_browse::percent_encode;

use super::{Listeners, Process, serve_both};
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::elements::Element;
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};

use super::generate;

/// The admin token of the test server; Chromium sends it as the Basic-auth password.
const ADMIN_TOKEN: &str = "browser-test-admin-token";
/// The viewport width of every screenshot, in CSS pixels.
const WIDTH: u32 = 1280;
/// The window height a page is first loaded in, in CSS pixels.
const HEIGHT: u32 = 900;
/// The tallest screenshot taken; longer pages are cut there.
const MAX_HEIGHT: u32 = 16_000;
/// The searches of the session the session view shows.
const QUERIES: [&str; 3] = ["founded", "elected chair", "alliance members"];

#[test]
#[ignore = "slow: drives a headless Chromium through chromedriver"]
fn browser_shows_every_view_without_javascript() {
    let chromium = tool("chromium");
    let chromedriver = tool("chromedriver");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    generate(&dir, 2, 11);
    let server = serve_both(&dir, ADMIN_TOKEN, &[]);
    let session = make_session(&server.agent);
    let driver = start_chromedriver(&chromedriver);
    let shots = screenshot_dir();
    let profile = tmp.path().join("chromium-profile");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let client = connect(&driver.url(), &chromium, &profile).await;
        let browser = Browser::new(&client, &shots).await;
        javascript_is_off(&browser).await;
        dataset_view(&browser, &server, &dir).await;
        world_view(&browser, &server, &dir).await;
        let row_href = page_view(&browser, &server, &session.page_url).await;
        row_view(&browser, &server, &row_href, &session.page_url).await;
        task_view(&browser, &server, &dir).await;
        session_view(&browser, &server, &session).await;
        keyboard_navigation(&browser, &server, &session.page_url).await;
        client.close().await.unwrap();
    });
}

/// The path of a program on `PATH`; panics with how to install it when it is missing.
fn tool(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "`{name}` is not on PATH: this test needs Chromium and chromedriver \
                 (apt-get install -y chromium chromium-driver)"
            )
        })
}

/// The test session: its id and the page it opened (the first search's first result).
struct Session {
    id: String,
    page_url: String,
}

/// Makes a session on world 0 with a few controls, searches `QUERIES` and opens the first
/// result of the first search.
fn make_session(agent: &str) -> Session {
    let body = json!({"world": 0, "seed": 7, "controls": {"page_size": 4, "drop_rate": 0.2}});
    let created = post(agent, "/v1/sessions", &body);
    let id = created["session"].as_str().unwrap().to_owned();
    let mut first_url = None;
    for query in QUERIES {
        let path = format!("/v1/sessions/{id}/search");
        let found = post(agent, &path, &json!({"query": query}));
        let urls: Vec<&str> = found["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["url"].as_str().unwrap())
            .collect();
        assert!(urls.len() <= 4, "page_size holds: {found}");
        if first_url.is_none() {
            first_url = urls.first().map(|url| url.to_string());
        }
    }
    let page_url = first_url.expect("some search finds a page");
    let path = format!("/v1/sessions/{id}/extract");
    let opened = post(agent, &path, &json!({"url": page_url}));
    assert!(opened["content"].as_str().is_some(), "{opened}");
    Session { id, page_url }
}

/// One JSON POST that must answer 200; returns the answer.
fn post(addr: &str, path: &str, body: &Value) -> Value {
    let (status, _, text) = super::http(addr, "POST", path, &[], &body.to_string());
    assert_eq!(status, 200, "POST {path}: {text}");
    serde_json::from_str(&text).unwrap()
}

/// A chromedriver process; dropping it, also on panic, asks it to quit its browsers, then
/// kills it.
struct Chromedriver {
    process: Process,
    port: u16,
}

impl Chromedriver {
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        // `GET /shutdown` closes every session's Chromium, then chromedriver exits.
        if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) {
            let request = format!(
                "GET /shutdown HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
                self.port
            );
            let _ = stream.write_all(request.as_bytes());
            let _ = stream.read_to_end(&mut Vec::new());
        }
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = self.process.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Starts chromedriver on a free port and waits until it accepts connections.
fn start_chromedriver(chromedriver: &Path) -> Chromedriver {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let process = Process(child);
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "chromedriver did not listen on port {port} within 20 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Chromedriver { process, port }
}

/// `target/browser-screenshots/`, made if absent.
fn screenshot_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/browser-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A WebDriver session on headless Chromium with JavaScript disabled, a fresh profile and no
/// network beyond localhost.
async fn connect(driver: &str, chromium: &Path, profile: &Path) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--blink-settings=scriptEnabled=false",
        &format!("--user-data-dir={}", profile.display()),
        &format!("--window-size={WIDTH},{HEIGHT}"),
    ];
    let options = json!({
        "binary": chromium,
        "args": args,
        "prefs": {"profile.managed_default_content_settings.javascript": 2},
    });
    let capabilities = json!({"browserName": "chrome", "goog:chromeOptions": options});
    let capabilities = serde_json::from_value(capabilities).unwrap();
    ClientBuilder::new(HttpConnector::new())
        .capabilities(capabilities)
        .connect(driver)
        .await
        .unwrap_or_else(|e| panic!("starting Chromium through chromedriver at {driver}: {e}"))
}

/// The WebDriver client and where its screenshots go.
struct Browser<'a> {
    client: &'a Client,
    shots: &'a Path,
    /// How much taller the window is than the page area it shows, in CSS pixels.
    frame: u32,
}

impl<'a> Browser<'a> {
    /// Measures the window's frame from a screenshot of an empty page.
    async fn new(client: &'a Client, shots: &'a Path) -> Browser<'a> {
        client.set_window_size(WIDTH, HEIGHT).await.unwrap();
        client.goto("about:blank").await.unwrap();
        let png = client.screenshot().await.unwrap();
        let shown = u32::from_be_bytes(png[20..24].try_into().unwrap());
        Browser {
            client,
            shots,
            frame: HEIGHT.saturating_sub(shown),
        }
    }

    /// Opens `url` and saves a screenshot of the whole page as `NAME.png`.
    async fn visit(&self, url: &str, name: &str) {
        self.open(url).await;
        self.shoot(name).await;
    }

    /// Opens `url` in a window as tall as the page, so a screenshot shows all of it.
    async fn open(&self, url: &str) {
        self.client.set_window_size(WIDTH, HEIGHT).await.unwrap();
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        let html = self.find("html").await;
        let (_, _, _, height) = html.rectangle().await.unwrap();
        let height = (height.ceil() as u32).min(MAX_HEIGHT);
        self.client
            .set_window_size(WIDTH, height + self.frame)
            .await
            .unwrap();
    }

    /// Saves a screenshot of the window as `NAME.png`.
    async fn shoot(&self, name: &str) {
        let png = self.client.screenshot().await.unwrap();
        std::fs::write(self.shots.join(format!("{name}.png")), png).unwrap();
    }

    async fn find(&self, css: &str) -> Element {
        match self.client.find(Locator::Css(css)).await {
            Ok(element) => element,
            Err(e) => panic!("no `{css}` on {}: {e}", self.url().await),
        }
    }

    async fn find_all(&self, css: &str) -> Vec<Element> {
        self.client.find_all(Locator::Css(css)).await.unwrap()
    }

    async fn text(&self, css: &str) -> String {
        self.find(css).await.text().await.unwrap()
    }

    async fn url(&self) -> String {
        self.client.current_url().await.unwrap().to_string()
    }

    /// Presses and releases one key in the focused element.
    async fn press(&self, key: Key) {
        let key = char::from(key);
        let keys = KeyActions::new("keyboard".to_owned())
            .then(KeyAction::Down { value: key })
            .then(KeyAction::Up { value: key });
        self.client.perform_actions(keys).await.unwrap();
    }
}

/// `http://ADDR/PATH` on the agent listener.
fn agent_url(server: &Listeners, path: &str) -> String {
    format!("http://{}{path}", server.agent)
}

/// `http://u:TOKEN@ADDR/PATH` on the admin listener: Chromium sends the token as Basic auth.
fn admin_url(server: &Listeners, path: &str) -> String {
    format!("http://u:{ADMIN_TOKEN}@{}{path}", server.admin)
}

/// A `/ui/worlds/{world}/page?url=URL` path with the url percent-encoded.
fn page_path(world: u32, url: &str) -> String {
    format!("/ui/worlds/{world}/page?url={}", percent_encode(url))
}

/// The hrefs, as written, of the links under `css`.
async fn hrefs(browser: &Browser<'_>, css: &str) -> Vec<String> {
    let mut hrefs = Vec::new();
    for link in browser.find_all(css).await {
        hrefs.push(link.attr("href").await.unwrap().unwrap_or_default());
    }
    hrefs
}

/// A page whose script would change its text shows the text unchanged.
async fn javascript_is_off(browser: &Browser<'_>) {
    let page = "data:text/html,<p id=x>off</p><script>document.getElementById('x').textContent='on'</script>";
    browser.client.goto(page).await.unwrap();
    assert_eq!(
        browser.text("#x").await,
        "off",
        "JavaScript must be disabled in the test browser"
    );
}

/// The dataset on both listeners: both worlds linked, and the tier chart on the admin one only.
async fn dataset_view(browser: &Browser<'_>, server: &Listeners, dir: &Path) {
    let manifest = fabula_file::read_manifest(dir).unwrap();
    browser.visit(&agent_url(server, "/"), "dataset").await;
    assert_eq!(browser.text("h1").await, "Dataset");
    let links = hrefs(browser, "main table a[href^='/ui/worlds/']").await;
    assert_eq!(links, ["/ui/worlds/0", "/ui/worlds/1"]);
    for world in &manifest.worlds {
        let link = browser
            .find(&format!("a[href='/ui/worlds/{}']", world.id))
            .await;
        assert_eq!(link.text().await.unwrap(), world.name);
    }
    assert!(
        browser.find_all("#tiers").await.is_empty(),
        "the agent listener shows no tiers"
    );

    browser
        .visit(&admin_url(server, "/"), "dataset-admin")
        .await;
    assert_eq!(browser.text("#tiers").await, "Task tiers");
    let bars = browser
        .find_all("#tiers + p + figure svg.chart rect.bar")
        .await;
    assert_eq!(
        bars.len(),
        fabula_tasks::Tier::ALL.len(),
        "the tier chart has a bar per tier"
    );
    let n_tasks: usize = manifest.worlds.iter().map(|w| w.tasks).sum();
    let summary = browser.text("#tiers + p").await;
    assert!(
        summary.starts_with(&format!("{n_tasks} tasks")),
        "{summary}"
    );
}

/// World 0: its name in the `h1`, an entity graph box per table, its rows linked; the tasks
/// on the admin listener only.
async fn world_view(browser: &Browser<'_>, server: &Listeners, dir: &Path) {
    let file = fabula_file::WorldFile::open(&dir.join("world-00000.sqlite")).unwrap();
    let meta = file.meta().unwrap();
    let tables = file.tables().unwrap();
    browser
        .visit(&agent_url(server, "/ui/worlds/0"), "world")
        .await;
    assert_eq!(browser.text("h1").await, meta.name);
    let boxes = browser.find_all("#graph + p + figure svg rect.node").await;
    assert_eq!(boxes.len(), tables.len(), "one graph box per table");
    let graph_links = hrefs(browser, "svg.graph a").await;
    for table in &tables {
        assert!(graph_links.contains(&format!("#t-{}", table.name)));
        let rows = browser.find_all(&format!("#t-{} li a", table.name)).await;
        assert!(!rows.is_empty(), "table {} lists its rows", table.name);
    }
    assert!(browser.find_all("#tasks").await.is_empty());

    browser
        .visit(&admin_url(server, "/ui/worlds/0"), "world-admin")
        .await;
    let tasks = hrefs(browser, "#tasks + table a").await;
    assert_eq!(
        tasks.len(),
        file.tasks().unwrap().len(),
        "every task listed"
    );
    assert!(tasks.iter().all(|t| t.starts_with("/ui/worlds/0/tasks/")));
}

/// The page the session opened: its title, stated cells marked and linked to their rows.
/// Returns the first row link.
async fn page_view(browser: &Browser<'_>, server: &Listeners, url: &str) -> String {
    browser
        .visit(&agent_url(server, &page_path(0, url)), "page")
        .await;
    assert_eq!(browser.text("h1 + p.muted code").await, url);
    // A stated cell links to its row, unless it sits inside a link of the page itself.
    let marks = browser.find_all("article.page mark.fact").await;
    let own_links = hrefs(browser, "article.page mark.fact > a").await;
    let in_links = hrefs(browser, "article.page a:has(> mark.fact)").await;
    assert!(
        !own_links.is_empty(),
        "the page marks and links its stated cells"
    );
    assert_eq!(own_links.len() + in_links.len(), marks.len());
    for href in &own_links {
        assert!(href.starts_with("/ui/worlds/0/rows/"), "{href}");
    }
    for href in &in_links {
        assert!(href.starts_with("/ui/worlds/0/page?url="), "{href}");
    }
    let facts = browser.find_all("#facts + table tbody tr").await;
    assert!(!facts.is_empty());
    own_links[0].clone()
}

/// A row a page links to: its cells, and among the pages stating them the page linked from.
async fn row_view(browser: &Browser<'_>, server: &Listeners, href: &str, from_url: &str) {
    browser.visit(&agent_url(server, href), "row").await;
    assert!(!browser.text("h1").await.is_empty());
    let cells = browser.find_all("#facts + table tbody tr").await;
    assert!(!cells.is_empty(), "the row shows its cells");
    let stated_on = hrefs(browser, "#facts + table tbody td ul a").await;
    assert!(
        stated_on.contains(&page_path(0, from_url)),
        "{href} lists {from_url} among the pages stating it: {stated_on:?}"
    );
}

/// A task with a short answer: its question, the gold answer and the evidence path in order.
async fn task_view(browser: &Browser<'_>, server: &Listeners, dir: &Path) {
    let file = fabula_file::WorldFile::open(&dir.join("world-00000.sqlite")).unwrap();
    let task = file
        .tasks()
        .unwrap()
        .into_iter()
        .find(|t| serde_json::from_str::<Value>(&t.answer).is_ok_and(|a| a.is_string()))
        .expect("world 0 has a task with a short answer");
    let answer: String = serde_json::from_str(&task.answer).unwrap();
    let evidence: Vec<String> = serde_json::from_str(&task.evidence).unwrap();
    let path = format!("/ui/worlds/0/tasks/{}", percent_encode(&task.id));
    browser.visit(&admin_url(server, &path), "task").await;
    assert_eq!(browser.text("h1").await, format!("Task {}", task.id));
    assert_eq!(browser.text("#question + blockquote").await, task.question);
    assert_eq!(browser.text("#answer + p strong").await, answer);
    let steps = hrefs(browser, "#path + ol > li > a").await;
    let expected: Vec<String> = evidence.iter().map(|url| page_path(0, url)).collect();
    assert_eq!(steps, expected, "one step per evidence page, in order");
    let mut shown = Vec::new();
    for code in browser.find_all("#path + ol > li code").await {
        shown.push(code.text().await.unwrap());
    }
    assert_eq!(shown, evidence);
}

/// The session list and the session: its controls, its calls with their queries and result
/// links, and the page it opened.
async fn session_view(browser: &Browser<'_>, server: &Listeners, session: &Session) {
    browser
        .visit(&admin_url(server, "/ui/sessions"), "sessions")
        .await;
    let href = format!("/ui/sessions/{}", session.id);
    assert_eq!(
        hrefs(browser, "main table a[href^='/ui/sessions/']").await,
        std::slice::from_ref(&href)
    );

    browser.visit(&admin_url(server, &href), "session").await;
    assert!(browser.text("h1").await.contains(&session.id));
    let controls = browser.text("#controls + pre").await;
    assert!(controls.contains("\"page_size\": 4"), "{controls}");
    let calls = browser.find_all("section.call").await;
    assert_eq!(
        calls.len(),
        QUERIES.len() + 1,
        "three searches and an extract"
    );
    for (call, query) in calls.iter().zip(QUERIES) {
        let shown = call.find(Locator::Css("q")).await.unwrap();
        assert_eq!(shown.text().await.unwrap(), query);
        for link in call.find_all(Locator::Css("ol a")).await.unwrap() {
            let href = link.attr("href").await.unwrap().unwrap();
            assert!(href.starts_with("/ui/worlds/0/page?url="), "{href}");
        }
    }
    let first_results = calls[0].find_all(Locator::Css("ol a")).await.unwrap();
    assert_eq!(
        first_results[0].text().await.unwrap(),
        session.page_url,
        "the first search's first result is the page opened"
    );
    let opened = calls[QUERIES.len()]
        .find(Locator::Css("p a"))
        .await
        .unwrap();
    assert_eq!(opened.text().await.unwrap(), session.page_url);
}

/// From a fresh load: Tab focuses the skip link, Enter moves focus to `main`, and further Tabs
/// walk the links inside `main`.
async fn keyboard_navigation(browser: &Browser<'_>, server: &Listeners, url: &str) {
    browser.open(&agent_url(server, &page_path(0, url))).await;
    browser.press(Key::Tab).await;
    browser.shoot("keyboard-skip-link").await;
    let focused = browser.client.active_element().await.unwrap();
    assert_eq!(focused.text().await.unwrap(), "Skip to content");
    assert_eq!(
        focused.attr("href").await.unwrap().as_deref(),
        Some("#main")
    );
    browser.press(Key::Enter).await;
    let focused = browser.client.active_element().await.unwrap();
    assert_eq!(focused.tag_name().await.unwrap(), "main");
    assert_eq!(focused.attr("id").await.unwrap().as_deref(), Some("main"));

    let main_links = browser.find_all("main a").await;
    let main_ids: Vec<_> = main_links.iter().map(Element::element_id).collect();
    let mut reached = Vec::new();
    for _ in 0..3 {
        browser.press(Key::Tab).await;
        let focused = browser.client.active_element().await.unwrap();
        assert_eq!(focused.tag_name().await.unwrap(), "a");
        let id = focused.element_id();
        assert!(
            main_ids.contains(&id),
            "Tab after the skip link stays in main"
        );
        assert!(!reached.contains(&id), "each Tab reaches a new link");
        reached.push(id);
    }
    browser.shoot("keyboard-third-link").await;
    assert_eq!(
        reached[0], main_ids[0],
        "the first Tab reaches main's first link"
    );
}
