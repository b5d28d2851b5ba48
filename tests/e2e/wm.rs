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

    // `fabula export lwm-data` of two sessions a world into `path`, with `extra` flags.
    let export = |path: &std::path::Path, extra: &[&str]| {
        let out_path = path.to_str().unwrap();
        let mut args = vec![
            "export",
            "lwm-data",
            "--worlds",
            worlds_s,
            "--out",
            out_path,
            "--sessions-per-world",
            "2",
        ];
        args.extend_from_slice(extra);
        fabula(&args)
    };
    let exported = |path: &std::path::Path, extra: &[&str]| {
        let out = export(path, extra);
        assert!(out.status.success(), "{}", text(&out.stderr));
        std::fs::read_to_string(path).unwrap()
    };
    let jsonl = exported(&tmp.path().join("lwm.jsonl"), &[]);
    assert_eq!(
        jsonl,
        exported(&tmp.path().join("again.jsonl"), &[]),
        "not deterministic"
    );
    let lines = json_lines(&jsonl);
    assert!(lines.len() >= 4, "{} samples", lines.len());
    for line in &lines {
        assert_eq!(
            sorted_keys(line),
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
    let system_s = system.to_str().unwrap();
    let bench = tmp.path().join("bench").join("search_test.jsonl");
    let records = json_lines(&exported(
        &bench,
        &["--format", "agentworldbench", "--system-prompt", system_s],
    ));
    assert_eq!(records.len(), lines.len(), "one record per turn");
    for (record, sample) in records.iter().zip(&lines) {
        assert_eq!(
            sorted_keys(record),
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
    let missing = tmp.path().join("missing.txt");
    let out = export(&bench, &["--system-prompt", missing.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("reading the system prompt"),
        "{}",
        text(&out.stderr)
    );
}

/// Each line of a JSON Lines text, parsed.
fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// An object's keys, sorted.
fn sorted_keys(value: &serde_json::Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
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

#[test]
fn qwen3_5_checkpoints_generate_and_render_from_the_cli() {
    let tmp = tempfile::tempdir().unwrap();
    let worlds = tmp.path().join("worlds");
    generate(&worlds, 1, 3);
    let world = worlds.join("world-00000.sqlite");
    let (worlds_s, world_s) = (worlds.to_str().unwrap(), world.to_str().unwrap());
    let title = first_entity_title(&world);
    for (architecture, model_type) in [
        ("qwen3.5", "qwen3_5_text"),
        ("qwen3.5-moe", "qwen3_5_moe_text"),
    ] {
        let model = tmp.path().join(architecture);
        let model_s = model.to_str().unwrap();
        let out = fabula(&[
            "wm",
            "tiny",
            "--out",
            model_s,
            "--worlds",
            worlds_s,
            "--count",
            "1",
            "--architecture",
            architecture,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));

        // A greedy continuation of ids, with logits: exactly as many tokens as asked.
        let out = fabula(&[
            "wm",
            "generate",
            "--model",
            model_s,
            "--prompt-ids",
            "5,9,200,31,7",
            "--max-new-tokens",
            "6",
            "--logits",
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["architecture"], model_type);
        assert_eq!(json["prompt_ids"], serde_json::json!([5, 9, 200, 31, 7]));
        assert_eq!(json["ids"].as_array().unwrap().len(), 6);
        assert_eq!(json["logits"].as_array().unwrap().len(), 6);

        // Text in, the same ids out on a second run (greedy, deterministic).
        let run = || {
            let out = fabula(&[
                "wm",
                "generate",
                "--model",
                model_s,
                "--prompt",
                &title,
                "--max-new-tokens",
                "4",
            ]);
            assert!(out.status.success(), "{}", text(&out.stderr));
            let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(json.get("logits").is_none());
            json["ids"].clone()
        };
        assert_eq!(run(), run());

        // The renderer takes it like any checkpoint: verified, and the template on failure.
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
        assert!(text(&out.stderr).contains("rendered_by: template (fallback: "));
    }

    // An id outside the vocabulary is a one-line error, not a panic.
    let model = tmp.path().join("qwen3.5");
    let out = fabula(&[
        "wm",
        "generate",
        "--model",
        model.to_str().unwrap(),
        "--prompt-ids",
        "999999",
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("outside the vocabulary"),
        "{}",
        text(&out.stderr)
    );
}
