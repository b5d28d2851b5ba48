//! The language world model from the command line: `fabula wm tiny`, `fabula render` with the
//! template and the world-model renderer, and `fabula export lwm-data`, on a tiny dataset.

use super::{fabula, generate};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn tiny_model_renders_and_lwm_data_exports() {
    let tmp = tempfile::tempdir().unwrap();
    let worlds = tmp.path().join("worlds");
    let model = tmp.path().join("tiny");
    generate(&worlds, 2, 3);
    let world = worlds.join("world-00000.sqlite");
    let (worlds_s, model_s, world_s) = (
        worlds.to_str().unwrap(),
        model.to_str().unwrap(),
        world.to_str().unwrap(),
    );

    let out = fabula(&[
        "wm", "tiny", "--out", model_s, "--seed", "5", "--worlds", worlds_s, "--count", "1",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for file in ["config.json", "tokenizer.json", "model.safetensors"] {
        assert!(model.join(file).is_file(), "{file} missing");
    }

    // A query made of a page title finds that page.
    let title = first_entity_title(&world);
    let out = fabula(&["render", "--world", world_s, "--search", &title]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let template = text(&out.stdout);
    assert!(template.starts_with("[1] https://"), "{template}");
    assert!(template.contains("\nTitle: ") && template.contains("\nDate: "));
    assert!(text(&out.stderr).contains("rendered_by: template"));

    let out = fabula(&[
        "render",
        "--world",
        world_s,
        "--search",
        &title,
        "--renderer",
        "lwm",
        "--model",
        model_s,
        "--max-new-tokens",
        "8",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A random model's text never passes verification, so the template text is shown.
    assert_eq!(text(&out.stdout), template);
    assert!(text(&out.stderr).contains("rendered_by: template (fallback: "));

    let url = template
        .lines()
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .unwrap()
        .to_owned();
    let out = fabula(&["render", "--world", world_s, "--extract", &url]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("# "), "{}", text(&out.stdout));

    // A folder that is not a checkpoint is a one-line error.
    let out = fabula(&[
        "render",
        "--world",
        world_s,
        "--search",
        &title,
        "--renderer",
        "lwm",
        "--model",
        worlds_s,
    ]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("error: cannot load the world model: checkpoint "),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");

    let data = tmp.path().join("lwm.jsonl");
    let export = |path: &std::path::Path| {
        let out = fabula(&[
            "export",
            "lwm-data",
            "--worlds",
            worlds_s,
            "--out",
            path.to_str().unwrap(),
            "--sessions-per-world",
            "2",
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        std::fs::read_to_string(path).unwrap()
    };
    let jsonl = export(&data);
    assert_eq!(
        jsonl,
        export(&tmp.path().join("again.jsonl")),
        "not deterministic"
    );
    let lines: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert!(lines.len() >= 4, "{} samples", lines.len());
    for line in &lines {
        let object = line.as_object().unwrap();
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "prompt",
                "response",
                "system_str",
                "total_turns",
                "turn_idx"
            ]
        );
        assert!(line["turn_idx"].as_u64().unwrap() < line["total_turns"].as_u64().unwrap());
    }

    // AgentWorldBench's layout, with the user's own system prompt: one record per turn, each
    // holding its session's prompts and responses, the turn to predict counted from 1.
    let system = tmp.path().join("system.txt");
    std::fs::write(&system, "You simulate a search engine.").unwrap();
    let bench = tmp.path().join("bench").join("search_test.jsonl");
    let out = fabula(&[
        "export",
        "lwm-data",
        "--worlds",
        worlds_s,
        "--out",
        bench.to_str().unwrap(),
        "--sessions-per-world",
        "2",
        "--format",
        "agentworldbench",
        "--system-prompt",
        system.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let records: Vec<serde_json::Value> = std::fs::read_to_string(&bench)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records.len(), lines.len(), "one record per turn");
    for (record, sample) in records.iter().zip(&lines) {
        let object = record.as_object().unwrap();
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "current_prompt",
                "id",
                "prompt",
                "response",
                "system_str",
                "task",
                "turn_idx"
            ]
        );
        assert_eq!(record["task"], "search");
        assert_eq!(record["system_str"], "You simulate a search engine.");
        let turn = record["turn_idx"].as_u64().unwrap();
        assert_eq!(turn, sample["turn_idx"].as_u64().unwrap() + 1);
        let at = usize::try_from(turn - 1).unwrap();
        assert_eq!(record["current_prompt"], sample["prompt"]);
        assert_eq!(record["prompt"][at], sample["prompt"]);
        let response = record["response"][at].as_str().unwrap();
        assert_eq!(
            response.strip_prefix("**Environment Observation:**\n"),
            sample["response"].as_str()
        );
    }
    let out = fabula(&[
        "export",
        "lwm-data",
        "--worlds",
        worlds_s,
        "--out",
        bench.to_str().unwrap(),
        "--system-prompt",
        tmp.path().join("missing.txt").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("reading the system prompt"),
        "{}",
        text(&out.stderr)
    );
}

/// The title of the world's first entity page, read from the world file.
fn first_entity_title(world: &std::path::Path) -> String {
    let pages = fabula_file::WorldFile::open(world)
        .unwrap()
        .pages()
        .unwrap();
    let first = pages
        .into_iter()
        .find(|p| p.page.kind == fabula_file::PageKind::Entity);
    first.expect("an entity page").page.title
}
