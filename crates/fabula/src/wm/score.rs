//! `fabula wm score`: a renderer's observations over replayed sessions scored on
//! AgentWorldBench's five judge dimensions (format, factuality, consistency, hiding, realism)
//! without a judge, by [`fabula_lwm::score_session`] against the world.
//!
//! The sessions are `fabula wm bench`'s (the parent module's replayed sessions). Each turn is
//! rendered by the renderer asked for, in one session as an agent is shown them, and the text it
//! wrote is scored: the model's raw text, before verification and fallback, so a model is rated
//! on what it wrote and not on the template text that replaces a rejected render. The report is
//! a mean per dimension, their sum out of 5, and the failures counted by reason with examples;
//! `--json` prints it with every observation's verdicts, and holds no timings, so the same
//! renderer, worlds and seed give the same bytes.

use std::fmt::Write as _;

use anyhow::{Context, bail};
use clap::Args;
use fabula_lwm::{Dimension, RenderConfig, Renderer, ScoreConfig, ScoreSummary, SessionScore};
use fabula_search::Corpus;
use fabula_server::lwm::load_world_view;

use super::{ModelArgs, RendererName, ReplayArgs, session_turns};

/// Arguments of `fabula wm score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    #[command(flatten)]
    pub replay: ReplayArgs,
    /// The renderer to score: the world model (--model, or --world-model-url and
    /// --world-model-name) or the template renderer.
    #[arg(long, value_enum, default_value = "lwm")]
    pub renderer: RendererName,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Examples kept per failure reason.
    #[arg(long, default_value_t = 3)]
    pub examples: usize,
    /// Print the report as one JSON object, every observation's verdicts included.
    #[arg(long)]
    pub json: bool,
}

/// Runs `fabula wm score`: prints the report on stdout.
pub fn run_score(args: &ScoreArgs) -> anyhow::Result<()> {
    let corpus = Corpus::open(&args.replay.worlds)
        .with_context(|| format!("opening {}", args.replay.worlds.display()))?;
    let (mut renderer, name) = load_renderer(args)?;
    let config = ScoreConfig::default();
    let mut sessions = Vec::new();
    let mut n_worlds = 0;
    for info in corpus.worlds().iter().take(args.replay.max_worlds) {
        n_worlds += 1;
        let index = corpus.world(info.id)?;
        let world = load_world_view(&info.file)?;
        for session in 0..args.replay.sessions_per_world {
            let turns = session_turns(
                &index,
                &world,
                (args.replay.seed, info.id, session),
                args.replay.hiding,
            )?;
            let observations = fabula_lwm::render_turns(&mut renderer, &world, &turns);
            let written: Vec<&str> = observations.iter().map(|o| o.written()).collect();
            sessions.push(SessionScore {
                session: format!("world-{:05}/s{session}", info.id),
                turns: fabula_lwm::score_session(&world, &turns, &written, &config)?,
            });
        }
    }
    let summary = fabula_lwm::summarise(&sessions, args.examples);
    let snapshot = renderer.counters().snapshot();
    if args.json {
        let report = serde_json::json!({
            "renderer": name,
            "worlds": n_worlds,
            "sessions_per_world": args.replay.sessions_per_world,
            "seed": args.replay.seed,
            "hiding": args.replay.hiding.as_str(),
            "summary": summary,
            "renders": {
                "attempted": snapshot.attempted,
                "accepted": snapshot.accepted,
                "tokens": snapshot.tokens_generated,
            },
            "sessions": sessions,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let header = format!(
            "renderer: {name}, {n_worlds} worlds x {} sessions, seed {}, hiding {}",
            args.replay.sessions_per_world,
            args.replay.seed,
            args.replay.hiding.as_str()
        );
        print!("{}", report_text(&header, &summary));
        if snapshot.attempted > 0 {
            println!(
                "renders: {} asked of the model, {} accepted by the verifier, {} tokens at {:.1} tokens/s",
                snapshot.attempted,
                snapshot.accepted,
                snapshot.tokens_generated,
                snapshot.tokens_per_second()
            );
        }
    }
    Ok(())
}

/// The renderer the arguments name, and how the report names it.
fn load_renderer(args: &ScoreArgs) -> anyhow::Result<(Renderer, String)> {
    let model = &args.model;
    match args.renderer {
        RendererName::Template => {
            if model.model.is_some() || model.world_model_url.is_some() {
                bail!("--renderer template takes no --model or --world-model-url");
            }
            Ok((
                Renderer::new(None, RenderConfig::default()),
                "template".into(),
            ))
        }
        RendererName::Lwm => {
            let name = match (
                &model.model,
                &model.world_model_url,
                &model.world_model_name,
            ) {
                (Some(path), _, _) => format!("lwm {}", path.display()),
                (None, Some(url), Some(name)) => format!("lwm {name} at {url}"),
                _ => "lwm".into(),
            };
            Ok((model.load()?, name))
        }
    }
}

/// The text report: one line per dimension, the overall score and the failures with examples.
fn report_text(header: &str, summary: &ScoreSummary) -> String {
    let mut out = format!("{header}: {} observations\n", summary.n_observations);
    for dimension in Dimension::ALL {
        let mean = summary.means.get(&dimension).copied().unwrap_or(1.0);
        let applicable = summary.applicable.get(&dimension).copied().unwrap_or(0);
        let passed = (mean * applicable as f64).round() as usize;
        let _ = writeln!(
            out,
            "{:<12} {mean:.3}  ({passed} of {applicable} pass)",
            dimension.as_str()
        );
    }
    let _ = writeln!(out, "overall      {:.2} of 5", summary.overall);
    if summary.failures.is_empty() {
        let _ = writeln!(out, "failures: none");
        return out;
    }
    let _ = writeln!(out, "failures (observations, examples):");
    for failure in &summary.failures {
        let _ = writeln!(
            out,
            "  {}/{}: {}",
            failure.dimension.as_str(),
            failure.reason.as_str(),
            failure.observations
        );
        for example in &failure.examples {
            let _ = writeln!(
                out,
                "    {} t{} {} {:?}: {}",
                example.session,
                example.turn_idx,
                example.tool,
                example.target,
                one_line(&example.detail, 160)
            );
        }
    }
    out
}

/// Text on one line, cut to `max_chars` characters.
fn one_line(text: &str, max_chars: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = line.chars().take(max_chars).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_collapses_and_cuts() {
        assert_eq!(one_line("a\n  b c", 10), "a b c");
        assert_eq!(one_line("abcdef", 3), "abc…");
    }
}
