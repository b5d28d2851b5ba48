//! Training samples in Qwen-AgentWorld's next-observation layout.

use fabula_lwm::{
    Action, BenchRecord, Controls, LwmSample, LwmTurn, OBSERVATION_MARKER, PromptConfig,
    SimulationInstruction, bench_records, jsonl, lwm_samples, system_prompt, task_samples,
};

use crate::fixtures::{self, KEST};

#[test]
fn samples_replay_the_session() {
    let world = fixtures::world();
    let search = fixtures::search_template();
    let page = world.pages[KEST].body.clone();
    let turns = vec![
        LwmTurn {
            action: Action::Search {
                queries: vec!["kest founder".to_string()],
            },
            controls: Controls::default(),
            observation: search.clone(),
        },
        LwmTurn {
            action: Action::Extract {
                url: KEST.to_string(),
            },
            controls: Controls::default(),
            observation: page.clone(),
        },
        LwmTurn {
            action: Action::Extract {
                url: "https://w-test.fab/wiki/Nowhere".to_string(),
            },
            controls: Controls::default(),
            observation: "Error 404: no such page".to_string(),
        },
    ];
    let samples = lwm_samples(&world, &turns, &PromptConfig::default()).unwrap();
    assert_eq!(samples.len(), 3);
    for (idx, sample) in samples.iter().enumerate() {
        let LwmSample {
            system_str,
            prompt,
            response,
            turn_idx,
            total_turns,
        } = sample;
        assert!(system_str.contains("w-test"));
        assert!(!prompt.is_empty());
        assert_eq!(response, &turns[idx].observation);
        assert_eq!(*turn_idx, idx);
        assert_eq!(*total_turns, 3);
    }
    assert!(samples[0].prompt.contains("## Query: kest founder"));
    // The extractor prompt carries the snippet the search turn showed for the page.
    assert!(
        samples[1]
            .prompt
            .contains("- Kest is a river city-state on the … delta."),
        "{}",
        samples[1].prompt
    );
    assert!(samples[2].prompt.contains("no page at this url"));

    let text = jsonl(&samples).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    let first: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    for key in [
        "system_str",
        "prompt",
        "response",
        "turn_idx",
        "total_turns",
    ] {
        assert!(first.get(key).is_some(), "{key}");
    }
    let parsed: LwmSample = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(parsed, samples[1]);

    // AgentWorldBench's layout: every record holds the whole session, the turn to predict
    // counted from 1, and the turns before it as history.
    let records = bench_records(&samples, "w-test-s0");
    assert_eq!(records.len(), 3);
    for (i, record) in records.iter().enumerate() {
        assert_eq!(record.id, format!("w-test-s0-t{}", i + 1));
        assert_eq!(record.task, "search");
        assert_eq!(record.turn_idx, i + 1);
        assert_eq!(record.system_str, samples[i].system_str);
        assert_eq!(record.prompt.len(), 3);
        assert_eq!(record.current_prompt, record.prompt[record.turn_idx - 1]);
        assert_eq!(record.current_prompt, samples[i].prompt);
        let observation = &record.response[record.turn_idx - 1];
        assert_eq!(
            observation.strip_prefix(OBSERVATION_MARKER),
            Some(format!("\n{}", turns[i].observation).as_str())
        );
    }
    let text = jsonl(&records).unwrap();
    let back: Vec<BenchRecord> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(back, records);
}

/// A task's trajectory: the same turns and observations as [`lwm_samples`] gives, fabula's
/// system prompt with its paragraph on the instruction, and every prompt closed by the
/// Simulation Instruction, which the AgentWorldBench records then carry in `prompt` and
/// `current_prompt`.
#[test]
fn task_samples_close_every_prompt_with_the_instruction() {
    let world = fixtures::world();
    let turns = vec![
        LwmTurn {
            action: Action::Search {
                queries: vec!["kest founder".to_string()],
            },
            controls: Controls::default(),
            observation: fixtures::search_template(),
        },
        LwmTurn {
            action: Action::Extract {
                url: KEST.to_string(),
            },
            controls: Controls::default(),
            observation: world.pages[KEST].body.clone(),
        },
    ];
    let config = PromptConfig::default();
    let instruction =
        SimulationInstruction::for_task("Who founded Kest?", &serde_json::json!("Maro Venn"));
    let plain = lwm_samples(&world, &turns, &config).unwrap();
    let samples = task_samples(&world, &turns, &config, &instruction).unwrap();
    assert_eq!(samples.len(), plain.len());
    let closing = "\n\n**Simulation Instruction:**\nTarget Query: Who founded Kest?\n\
                   Reference Answer: Maro Venn";
    for (sample, plain) in samples.iter().zip(&plain) {
        let LwmSample {
            system_str,
            prompt,
            response,
            turn_idx,
            total_turns,
        } = sample;
        let added = system_str.strip_prefix(&system_prompt("w-test").unwrap());
        assert!(
            added.unwrap().contains("Simulation Instruction"),
            "{system_str}"
        );
        assert_eq!(prompt.strip_suffix(closing), Some(plain.prompt.trim_end()));
        assert_eq!(response, &plain.response);
        assert_eq!(
            (turn_idx, total_turns),
            (&plain.turn_idx, &plain.total_turns)
        );
    }
    let records = bench_records(&samples, "fabula-w00000-t001");
    assert_eq!(records[1].id, "fabula-w00000-t001-t2");
    assert!(records[1].current_prompt.ends_with(closing));
    assert!(records[1].prompt.iter().all(|p| p.ends_with(closing)));
}
