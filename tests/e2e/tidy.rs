//! Tidy checks over the workspace's own sources, so the structure stays as ARCHITECTURE.md says:
//! only `fabula-file` runs SQL against the fixed `fabula_*` tables, no library function grows past
//! 150 lines, the modules of each crate import each other without a cycle, and the crates depend
//! on each other only as the crate rules allow (read from every `crates/*/Cargo.toml`). And
//! ARCHITECTURE.md stays a true, short map: one section per crate, no crate that is gone.
//!
//! These read the sources as text. Test code (a file's tail from `#[cfg(test)]`, `tests/`
//! folders) is left out: fixtures may damage files on purpose and data-driven tests may be long.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest function allowed outside tests.
const MAX_FN_LINES: usize = 150;

fn workspace() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Every `.rs` file below `dir`, in path order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Each crate's `src` folder, by crate folder name.
fn crate_sources() -> BTreeMap<String, PathBuf> {
    let crates = workspace().join("crates");
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(&crates).unwrap() {
        let path = entry.unwrap().path();
        if path.join("src").is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            out.insert(name, path.join("src"));
        }
    }
    out
}

/// The part of a source file before its unit tests, with line comments removed.
fn library_code(text: &str) -> String {
    let end = text.find("#[cfg(test)]").unwrap_or(text.len());
    text[..end]
        .lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A line with its string and brace literals blanked, so only code braces remain.
fn without_literals(line: &str) -> String {
    let line = line.replace("'{'", "").replace("'}'", "");
    let mut out = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in line.chars() {
        match (in_string, c) {
            (true, '\\') if !escaped => escaped = true,
            (true, '"') if !escaped => in_string = false,
            (true, _) => escaped = false,
            (false, '"') => in_string = true,
            (false, _) => out.push(c),
        }
    }
    out
}

/// The library source files of a crate: every file below `src` but unit-test modules.
fn library_files(src: &Path) -> Vec<PathBuf> {
    rust_files(src)
        .into_iter()
        .filter(|file| file.file_stem().is_none_or(|stem| stem != "tests"))
        .collect()
}

#[test]
fn only_fabula_file_runs_sql_on_the_fixed_tables() {
    let verbs = [
        "FROM fabula_",
        "INTO fabula_",
        "UPDATE fabula_",
        "JOIN fabula_",
        "TABLE fabula_",
    ];
    let mut offenders = Vec::new();
    for (name, src) in crate_sources() {
        if name == "fabula-file" {
            continue;
        }
        for file in library_files(&src) {
            let code = library_code(&std::fs::read_to_string(&file).unwrap());
            if verbs.iter().any(|verb| code.contains(verb)) {
                offenders.push(file.display().to_string());
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "SQL on fabula_* tables in {offenders:#?}"
    );
}

/// The length in lines of each `fn` of `code` whose body is a block.
fn function_lengths(code: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(at) = line.find("fn ") else { continue };
        let before = line[..at].trim();
        let is_item = before.is_empty()
            || before
                .split_whitespace()
                .all(|w| ["pub", "pub(crate)", "async", "const", "unsafe"].contains(&w));
        if !is_item {
            continue;
        }
        let name: String = line[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut depth = 0i32;
        let mut opened = false;
        for (offset, body_line) in lines[start..].iter().enumerate() {
            let body_line = without_literals(body_line);
            for c in body_line.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if !opened && body_line.trim_end().ends_with(';') {
                break;
            }
            if opened && depth <= 0 {
                out.push((name.clone(), offset + 1));
                break;
            }
        }
    }
    out
}

#[test]
fn no_library_function_is_over_150_lines() {
    let mut long = Vec::new();
    for src in crate_sources().values() {
        for file in library_files(src) {
            let code = library_code(&std::fs::read_to_string(&file).unwrap());
            for (name, n_lines) in function_lengths(&code) {
                if n_lines > MAX_FN_LINES {
                    long.push(format!("{}: {name} ({n_lines} lines)", file.display()));
                }
            }
        }
    }
    assert!(long.is_empty(), "{long:#?}");
}

/// The module a source file is, relative to `src`: `lib` for the crate root.
fn module_name(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    match parts.join("::").as_str() {
        "lib" | "main" => "lib".to_owned(),
        other => other.to_owned(),
    }
}

/// The names the crate root re-exports, mapped to the top-level module that defines them.
fn root_exports(root: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut exports = BTreeMap::new();
    for statement in root.split(';') {
        let Some(rest) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, items)) = rest.split_once("::") else {
            continue;
        };
        if !modules.contains(module) {
            continue;
        }
        let items = items.trim_matches(|c| c == '{' || c == '}' || char::is_whitespace(c));
        for item in items.split(',') {
            let name = item.rsplit(" as ").next().unwrap().trim();
            if !name.is_empty() {
                exports.insert(name.to_owned(), module.to_owned());
            }
        }
    }
    exports
}

/// The top-level modules one module's code names through `crate::`, with re-exports resolved.
fn imports(
    code: &str,
    modules: &BTreeSet<String>,
    exports: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            group
                .split(',')
                .map(|item| item.split("::").next().unwrap().trim())
                .collect()
        } else {
            vec![
                rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap(),
            ]
        };
        for name in names {
            if modules.contains(name) {
                out.push(name.to_owned());
            } else if let Some(module) = exports.get(name) {
                out.push(module.clone());
            }
        }
    }
    out
}

/// A cycle in `edges`, if there is one.
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, bool>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_owned(), false);
        stack.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next) {
                Some(false) => {
                    let from = stack.iter().position(|n| n == next).unwrap();
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(true) => {}
                None => {
                    if let Some(cycle) = visit(next, edges, state, stack) {
                        return Some(cycle);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.to_owned(), true);
        None
    }
    let mut state = BTreeMap::new();
    for node in edges.keys() {
        if !state.contains_key(node) {
            let mut stack = Vec::new();
            if let Some(cycle) = visit(node, edges, &mut state, &mut stack) {
                return Some(cycle);
            }
        }
    }
    None
}

/// The import edges between the top-level modules of one crate. The crate root only declares
/// and re-exports, and a submodule may use its parent, so neither counts as an edge.
fn module_edges(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files: Vec<(String, String)> = library_files(src)
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            (module_name(src, &file), library_code(&text))
        })
        .collect();
    let modules: BTreeSet<String> = files
        .iter()
        .map(|(name, _)| name.split("::").next().unwrap().to_owned())
        .filter(|name| name != "lib")
        .collect();
    let root = files
        .iter()
        .find(|(name, _)| name == "lib")
        .map_or("", |(_, code)| code);
    let exports = root_exports(root, &modules);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, code) in &files {
        let top = name.split("::").next().unwrap();
        if top == "lib" {
            continue;
        }
        let targets = edges.entry(top.to_owned()).or_default();
        for target in imports(code, &modules, &exports) {
            if target != top {
                targets.insert(target);
            }
        }
    }
    edges
}

#[test]
fn modules_of_a_crate_import_each_other_without_a_cycle() {
    let mut cycles = Vec::new();
    for (name, src) in crate_sources() {
        if let Some(cycle) = find_cycle(&module_edges(&src)) {
            cycles.push(format!("{name}: {}", cycle.join(" -> ")));
        }
    }
    assert!(cycles.is_empty(), "{cycles:#?}");
}

/// The crates that generate worlds, pages and tasks.
const GENERATORS: [&str; 3] = ["fabula-world", "fabula-pages", "fabula-tasks"];
/// The crates that serve a dataset.
const SERVERS: [&str; 6] = [
    "fabula-server",
    "fabula-compat",
    "fabula-mcp",
    "fabula-admin",
    "fabula-browse",
    "fabula-lwm",
];

/// The fabula crates a manifest names in any dependency table (normal, dev, build, and each
/// target's).
fn fabula_dependencies(manifest: &str) -> BTreeSet<String> {
    let manifest: toml::Table = manifest.parse().unwrap();
    let targets = manifest.get("target").and_then(toml::Value::as_table);
    let target_sections = targets.into_iter().flat_map(|targets| targets.values());
    let sections =
        std::iter::once(&manifest).chain(target_sections.filter_map(toml::Value::as_table));
    let mut names = BTreeSet::new();
    for section in sections {
        for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
            let table = section.get(key).and_then(toml::Value::as_table);
            let crates = table.into_iter().flat_map(|table| table.keys());
            names.extend(crates.filter(|name| name.starts_with("fabula")).cloned());
        }
    }
    names
}

/// What crate `name` may not depend on, by ARCHITECTURE.md's crate rules, each with its reason.
fn forbidden(name: &str) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    let mut forbid = |crates: &[&str], why: &'static str| {
        out.extend(crates.iter().map(|c| (c.to_string(), why)));
    };
    let all: Vec<String> = crate_sources().into_keys().collect();
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    match name {
        "fabula-file" => forbid(&all, "the world file's reader is the ground floor"),
        "fabula-date" => forbid(&all, "dates are a leaf the scorer's wheel can carry"),
        "fabula-score" => {
            let others: Vec<&str> = all
                .iter()
                .copied()
                .filter(|c| *c != "fabula-date")
                .collect();
            forbid(
                &others,
                "trainers depend on the scorer (and its dates) alone",
            );
        }
        "fabula-vocab" => forbid(
            &all.iter()
                .copied()
                .filter(|c| *c != "fabula-file")
                .collect::<Vec<_>>(),
            "the vocabulary stands on the world file alone, below the generator and the agents",
        ),
        "fabula-load" => {
            forbid(&GENERATORS, "the load tester is a client of the HTTP API");
            forbid(&SERVERS, "the load tester is a client of the HTTP API");
        }
        "fabula-agent" => {
            forbid(&SERVERS, "the agents are clients of the HTTP API");
            forbid(
                &["fabula-pages", "fabula-tasks"],
                "the agents read the world file and the vocabulary, never the generator",
            );
            forbid(
                &["fabula-audit", "fabula-export"],
                "the audit runs the agents; the agents know no dataset",
            );
        }
        "fabula-audit" => {
            forbid(
                &SERVERS,
                "the audit reads files and reaches a server over HTTP only",
            );
            forbid(
                &["fabula-pages", "fabula-tasks"],
                "the audit reads the world file and the vocabulary, never the generator",
            );
            forbid(
                &["fabula-export"],
                "the exports' tests check them against the audit",
            );
        }
        "fabula-export" => {
            forbid(&SERVERS, "exports read files and link no server");
            forbid(
                &["fabula-agent"],
                "exports read world files and run no agent",
            );
        }
        // The pipeline's stages know nothing of datasets: orchestration sits above them.
        "fabula-world" | "fabula-pages" | "fabula-tasks" => forbid(
            &["fabula-dataset"],
            "dataset orchestration sits above the generator",
        ),
        "fabula-dataset" => forbid(&SERVERS, "generating a dataset links no server"),
        // Each protocol family stands on the server's seam alone; the CLI mounts them side by side.
        "fabula-compat" | "fabula-mcp" => forbid(
            &[
                "fabula-compat",
                "fabula-mcp",
                "fabula-admin",
                "fabula-browse",
            ],
            "a protocol crate mounts on fabula-server's seam, beside the others",
        ),
        _ => {}
    }
    if name != "fabula" {
        forbid(
            &["fabula", "fabula-load"],
            "libraries never depend on the CLI or the load tester",
        );
    }
    out
}

/// The broken crate rules of one crate: `crate -> dependency (reason)`.
fn broken_rules(name: &str, dependencies: &BTreeSet<String>) -> Vec<String> {
    forbidden(name)
        .into_iter()
        .filter(|(dependency, _)| dependency != name && dependencies.contains(dependency))
        .map(|(dependency, why)| format!("{name} -> {dependency} ({why})"))
        .collect()
}

#[test]
fn crates_depend_on_each_other_only_as_the_crate_rules_allow() {
    let mut broken = Vec::new();
    for (name, src) in crate_sources() {
        let manifest = std::fs::read_to_string(src.join("../Cargo.toml")).unwrap();
        broken.extend(broken_rules(&name, &fabula_dependencies(&manifest)));
    }
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn the_crate_rules_catch_each_kind_of_breach() {
    fn check(name: &str, manifest: &str, expect: &[&str]) {
        let broken = broken_rules(name, &fabula_dependencies(manifest));
        let dependencies: Vec<&str> = broken
            .iter()
            .map(|line| {
                line.split(" -> ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
            })
            .collect();
        assert_eq!(dependencies, expect, "{name}: {broken:?}");
    }
    check(
        "fabula-file",
        "[dependencies]\nfabula-score.workspace = true\nserde = \"1\"\n",
        &["fabula-score"],
    );
    check(
        "fabula-file",
        "[target.'cfg(unix)'.dev-dependencies]\nfabula-world = { path = \"x\" }\n",
        &["fabula-world"],
    );
    check(
        "fabula-load",
        "[dependencies]\nfabula-file.workspace = true\nfabula-tasks.workspace = true\n",
        &["fabula-tasks"],
    );
    check(
        "fabula-tasks",
        "[dependencies]\nfabula-world.workspace = true\n[dev-dependencies]\n\
         fabula-dataset.workspace = true\n",
        &["fabula-dataset"],
    );
    check(
        "fabula-server",
        "[dev-dependencies]\nfabula-load.workspace = true\nfabula-file.workspace = true\n",
        &["fabula-load"],
    );
    check(
        "fabula-mcp",
        "[dependencies]\nfabula-server.workspace = true\nfabula-compat.workspace = true\n\
         [dev-dependencies]\nfabula-browse.workspace = true\n",
        &["fabula-compat", "fabula-browse"],
    );
    check(
        "fabula-agent",
        "[dependencies]\nfabula-tasks.workspace = true\nfabula-server.workspace = true\n\
         [dev-dependencies]\nfabula-audit.workspace = true\n",
        &["fabula-server", "fabula-tasks", "fabula-audit"],
    );
    check(
        "fabula-agent",
        "[dependencies]\nfabula-pages.workspace = true\nfabula-vocab.workspace = true\n\
         fabula-file.workspace = true\n",
        &["fabula-pages"],
    );
    check(
        "fabula-score",
        "[dependencies]\nfabula-date.workspace = true\nfabula-file.workspace = true\n",
        &["fabula-file"],
    );
    check(
        "fabula-vocab",
        "[dependencies]\nfabula-file.workspace = true\nfabula-world.workspace = true\n",
        &["fabula-world"],
    );
    check(
        "fabula-audit",
        "[dependencies]\nfabula-agent.workspace = true\nfabula-search.workspace = true\n\
         fabula-tasks.workspace = true\n[dev-dependencies]\nfabula-admin.workspace = true\n\
         fabula-export.workspace = true\n",
        &["fabula-admin", "fabula-tasks", "fabula-export"],
    );
    check(
        "fabula-export",
        "[dependencies]\nfabula-agent.workspace = true\nfabula-browse.workspace = true\n\
         [dev-dependencies]\nfabula-audit.workspace = true\n",
        &["fabula-browse", "fabula-agent"],
    );
    check(
        "fabula",
        "[dependencies]\nfabula-load.workspace = true\nfabula-world.workspace = true\n",
        &[],
    );
}

#[test]
fn the_tidy_checks_can_fail() {
    let code = "fn short() {\n}\npub fn long() {\n".to_owned() + &"    x();\n".repeat(200) + "}\n";
    let lengths = function_lengths(&code);
    assert_eq!(lengths[0], ("short".to_owned(), 2));
    assert_eq!(lengths[1], ("long".to_owned(), 202));
    let modules: BTreeSet<String> = ["a", "b", "error"].map(str::to_owned).into();
    let exports = root_exports("pub use error::{Error, Result};", &modules);
    assert_eq!(
        imports("use crate::{Result, b::X};", &modules, &exports),
        ["error", "b"]
    );
    let edges: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_owned(), ["b".to_owned()].into()),
        ("b".to_owned(), ["a".to_owned()].into()),
    ]
    .into();
    assert_eq!(
        find_cycle(&edges),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
    assert!(library_code("fn f() {}\n#[cfg(test)]\nSELECT * FROM fabula_pages").ends_with("{}"));
    assert_eq!(without_literals(r#"f("{", '}') {"#), "f(, ) {");
}

/// The generator crates: what `fabula-check` verifies, so it may not link them.
const GENERATOR_CRATES: [&str; 3] = ["fabula-world", "fabula-pages", "fabula-tasks"];

/// The workspace crates a manifest's `[dependencies]` table names (not its dev-dependencies:
/// tests may generate the worlds they check).
fn manifest_fabula_deps(manifest: &str) -> Vec<String> {
    let mut section = "";
    let mut found = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or("");
        if section == "[dependencies]" && name.starts_with("fabula-") {
            found.push(name.to_owned());
        }
    }
    found
}

/// The workspace crates `name` links, directly or through another, by their manifests.
fn crates_linked_by(name: &str) -> BTreeSet<String> {
    let mut linked = BTreeSet::new();
    let mut todo = vec![name.to_owned()];
    while let Some(next) = todo.pop() {
        let manifest = workspace().join("crates").join(&next).join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        for dep in manifest_fabula_deps(&text) {
            if linked.insert(dep.clone()) {
                todo.push(dep);
            }
        }
    }
    linked
}

#[test]
fn the_checker_links_no_generator_crate() {
    let linked = crates_linked_by("fabula-check");
    assert!(linked.contains("fabula-file"), "{linked:?}");
    let generators: Vec<&String> = linked
        .iter()
        .filter(|c| GENERATOR_CRATES.contains(&c.as_str()))
        .collect();
    assert!(
        generators.is_empty(),
        "fabula-check must re-derive what it verifies, not link {generators:?}"
    );
    // The rule can fail: a normal dependency is found, a dev-dependency is allowed.
    let sample = "[dependencies]\nfabula-file.workspace = true\nfabula-pages = { path = \"x\" }\n\
                  [dev-dependencies]\nfabula-world.workspace = true\n";
    assert_eq!(
        manifest_fabula_deps(sample),
        ["fabula-file", "fabula-pages"]
    );
}

/// The most words ARCHITECTURE.md may have: a map a newcomer reads in one sitting.
const MAX_ARCHITECTURE_WORDS: usize = 3_000;

/// The crate a `### ` heading of ARCHITECTURE.md names (its first word, without backticks or a
/// leading `crates/`), if it names one.
fn section_crate(line: &str) -> Option<String> {
    let heading = line.strip_prefix("### ")?;
    let word = heading.split_whitespace().next()?.trim_matches('`');
    let name = word.strip_prefix("crates/").unwrap_or(word);
    name.starts_with("fabula").then(|| name.to_owned())
}

/// Every crate a `crates/fabula...` path in `text` names.
fn mentioned_crates(text: &str) -> BTreeSet<String> {
    text.match_indices("crates/fabula")
        .map(|(at, _)| {
            let name = &text[at + "crates/".len()..];
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(name.len());
            name[..end].to_owned()
        })
        .collect()
}

/// What is wrong with ARCHITECTURE.md's `text`, given the crates under `crates/`: a section or a
/// path naming a crate that does not exist, a crate without a section (or with two), too many words.
fn architecture_problems(text: &str, crates: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut sections: BTreeMap<String, usize> = BTreeMap::new();
    for name in text.lines().filter_map(section_crate) {
        *sections.entry(name).or_default() += 1;
    }
    for name in sections.keys().filter(|name| !crates.contains(*name)) {
        problems.push(format!(
            "a section names {name}, which is not under crates/"
        ));
    }
    for name in mentioned_crates(text).difference(crates) {
        problems.push(format!("crates/{name} is named but does not exist"));
    }
    for name in crates {
        match sections.get(name) {
            None => problems.push(format!("{name} has no `### {name}` section")),
            Some(1) => {}
            Some(n) => problems.push(format!("{name} has {n} sections")),
        }
    }
    let words = text.split_whitespace().count();
    if words > MAX_ARCHITECTURE_WORDS {
        problems.push(format!("{words} words, over {MAX_ARCHITECTURE_WORDS}"));
    }
    problems
}

#[test]
fn architecture_md_has_one_section_per_crate_and_stays_short() {
    let text = std::fs::read_to_string(workspace().join("ARCHITECTURE.md")).unwrap();
    let crates: BTreeSet<String> = crate_sources().into_keys().collect();
    let problems = architecture_problems(&text, &crates);
    assert!(problems.is_empty(), "ARCHITECTURE.md: {problems:#?}");
}

#[test]
fn the_architecture_check_can_fail() {
    let crates: BTreeSet<String> = ["fabula", "fabula-file"].map(str::to_owned).into();
    let good = "## Code map\n\n### fabula\n\nThe CLI (crates/fabula/src/main.rs).\n\n\
                ### `fabula-file`\n\nThe world file, in `crates/fabula-file`.\n";
    assert!(architecture_problems(good, &crates).is_empty());
    let stale = "### fabula\n### fabula-file\n### fabula-gone\n\
                 See crates/fabula-old/src/lib.rs and crates/*/Cargo.toml.\n";
    assert_eq!(
        architecture_problems(stale, &crates),
        [
            "a section names fabula-gone, which is not under crates/",
            "crates/fabula-old is named but does not exist",
        ]
    );
    let missing = "### fabula\n### fabula\nThe CLI.\n";
    assert_eq!(
        architecture_problems(missing, &crates),
        [
            "fabula has 2 sections",
            "fabula-file has no `### fabula-file` section",
        ]
    );
    let long = format!("### fabula\n### fabula-file\n{}", "word ".repeat(3_000));
    assert_eq!(
        architecture_problems(&long, &crates),
        ["3004 words, over 3000"]
    );
}
