//! The language world model from the command line: `fabula render` (one observation, for trying
//! prompts by hand), `fabula wm tiny` (a tiny random checkpoint), `fabula wm generate` (a greedy
//! continuation, to check that a checkpoint loads and generates), `fabula wm score` (a renderer's
//! observations scored against the world, `wm/score.rs`), `fabula wm bench` (render
//! replayed sessions and report acceptance and speed) and `fabula export lwm-data`
//! (next-observation training samples).
//!
//! Replayed sessions come from [`fabula_lwm::replay_session`], deterministic from (seed, world,
//! session); their observations are the template renderer's: search results in Qwen-AgentWorld's
//! block format and whole pages as Markdown.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use fabula_lwm::{
    Action, Controls, DeviceChoice, LwmTurn, MemoryWorld, PromptConfig, RenderedBy, Renderer,
};
use fabula_search::{Corpus, Hiding, SearchOptions, WorldIndex};
use fabula_server::lwm::{LwmOptions, load_world_view, search_template};
use fabula_server::wire::HitJson;

pub mod score;
mod trajectories;

/// Which renderer writes observations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RendererName {
    /// The template renderer: search results and page Markdown as stored.
    Template,
    /// The language world model, verified, with the template text as fallback.
    Lwm,
}

/// Parses `cpu`, `cuda` or `cuda:N`.
pub fn parse_device(text: &str) -> Result<DeviceChoice, String> {
    match text {
        "cpu" => Ok(DeviceChoice::Cpu),
        "cuda" => Ok(DeviceChoice::Cuda(0)),
        _ => match text.strip_prefix("cuda:").map(str::parse::<usize>) {
            Some(Ok(ordinal)) => Ok(DeviceChoice::Cuda(ordinal)),
            _ => Err(format!("expected cpu, cuda or cuda:N, got `{text}`")),
        },
    }
}

/// The world-model options shared by `fabula render`, `fabula serve` and `fabula wm bench`.
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// The checkpoint folder (config.json, tokenizer.json, safetensors) or a GGUF file.
    #[arg(long, conflicts_with = "world_model_url")]
    pub model: Option<PathBuf>,
    /// Render with a model an OpenAI-compatible chat completions engine serves (vLLM, SGLang,
    /// llama.cpp's server, `transformers serve`), e.g. http://127.0.0.1:8000, instead of
    /// loading one; with --world-model-name.
    #[arg(long, requires = "world_model_name")]
    pub world_model_url: Option<String>,
    /// The name the engine serves the world model under (the request's `model`).
    #[arg(long, requires = "world_model_url")]
    pub world_model_name: Option<String>,
    /// Seconds one render may take (a local generation, or an engine's answer with its retries)
    /// before the template text shows instead (default 30).
    #[arg(long, value_name = "SECS")]
    pub world_model_timeout: Option<f64>,
    /// Seconds renders skip a remote engine that gave no answer (refused, cut or timed out),
    /// showing the template text at once; the first render after asks it again (default 5).
    #[arg(long, value_name = "SECS", requires = "world_model_url")]
    pub world_model_cooldown: Option<f64>,
    /// Where the model runs: cpu, cuda or cuda:N (cuda needs a build with `--features cuda`).
    #[arg(long, default_value = "cpu", value_parser = parse_device)]
    pub device: DeviceChoice,
    /// The most tokens one render generates (default 768).
    #[arg(long)]
    pub max_new_tokens: Option<usize>,
}

impl ModelArgs {
    /// The world-model options, or an error when `--model` is missing.
    pub fn options(&self) -> anyhow::Result<LwmOptions> {
        let base = match (&self.model, &self.world_model_url, &self.world_model_name) {
            (Some(model), _, _) => LwmOptions::new(model),
            (None, Some(url), Some(name)) => LwmOptions::remote(fabula_lwm::RemoteOptions {
                url: url.clone(),
                model: name.clone(),
            }),
            _ => bail!(
                "--renderer lwm needs --model DIR, or --world-model-url URL and --world-model-name NAME"
            ),
        };
        let seconds = |value: Option<f64>, flag: &str| -> anyhow::Result<Option<Duration>> {
            value
                .map(|s| {
                    Duration::try_from_secs_f64(s)
                        .map_err(|_| anyhow::anyhow!("{flag} must be a number of seconds >= 0"))
                })
                .transpose()
        };
        Ok(LwmOptions {
            max_new_tokens: self.max_new_tokens,
            device: self.device,
            time_budget: seconds(self.world_model_timeout, "--world-model-timeout")?,
            engine_cooldown: seconds(self.world_model_cooldown, "--world-model-cooldown")?,
            ..base
        })
    }

    /// Loads the renderer these options name.
    pub fn load(&self) -> anyhow::Result<Renderer> {
        // The error names the checkpoint and what it lacks, in one line.
        Ok(self.options()?.load_renderer()?)
    }
}

/// Arguments of `fabula render`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("action").required(true).args(["search", "extract"])))]
pub struct RenderArgs {
    /// The world file, e.g. worlds/default/world-00042.sqlite.
    #[arg(long)]
    pub world: PathBuf,
    /// Render a `web_search` observation for this query.
    #[arg(long)]
    pub search: Option<String>,
    /// Render a `web_extractor` observation of this url.
    #[arg(long)]
    pub extract: Option<String>,
    #[arg(long, value_enum, default_value = "template")]
    pub renderer: RendererName,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Snippet hiding of search results.
    #[arg(long, value_enum, default_value = "partial")]
    pub hiding: Hiding,
}

/// `fabula wm` subcommands.
#[derive(Debug, Subcommand)]
pub enum WmCommand {
    /// Write a tiny randomly initialised Qwen3 or Qwen3.5 checkpoint with a tokenizer trained on
    /// world text.
    Tiny(TinyArgs),
    /// Continue a prompt greedily with a checkpoint and print the token ids as JSON.
    Generate(GenerateArgs),
    /// Render replayed sessions with a model and report acceptance rate and tokens/s.
    Bench(BenchArgs),
    /// Score a renderer's observations of replayed sessions on format, factuality,
    /// consistency, hiding and realism, against the world.
    Score(score::ScoreArgs),
}

/// Arguments of `fabula wm generate`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["prompt", "prompt_ids"])))]
pub struct GenerateArgs {
    /// The checkpoint folder (config.json, tokenizer.json, safetensors) or a GGUF file.
    #[arg(long)]
    pub model: PathBuf,
    /// The prompt text, encoded with the checkpoint's tokenizer (no special tokens added).
    #[arg(long)]
    pub prompt: Option<String>,
    /// The prompt as token ids, comma-separated (e.g. 3,17,42).
    #[arg(long, value_delimiter = ',')]
    pub prompt_ids: Option<Vec<u32>>,
    /// How many tokens to generate: exactly this many (no stop token ends them).
    #[arg(long, default_value_t = 32)]
    pub max_new_tokens: usize,
    /// Where the model runs: cpu, cuda or cuda:N (cuda needs a build with `--features cuda`).
    #[arg(long, default_value = "cpu", value_parser = parse_device)]
    pub device: DeviceChoice,
    /// The weights' and activations' type (default: f32 on the CPU, bf16 on CUDA).
    #[arg(long, value_enum)]
    pub dtype: Option<DtypeName>,
    /// Also print the logits each token was chosen from (one row per generated token).
    #[arg(long)]
    pub logits: bool,
}

/// The `--dtype` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DtypeName {
    F32,
    Bf16,
    F16,
}

/// Arguments of `fabula wm tiny`.
#[derive(Debug, Args)]
pub struct TinyArgs {
    /// The folder to write config.json, tokenizer.json and model.safetensors into.
    #[arg(long)]
    pub out: PathBuf,
    /// The seed of the weights (and of the generated worlds without --worlds).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// A dataset whose first worlds' pages train the tokenizer; without it, worlds are generated.
    #[arg(long)]
    pub worlds: Option<PathBuf>,
    /// How many worlds' pages train the tokenizer.
    #[arg(long, default_value_t = 2)]
    pub count: u32,
    /// The architecture: qwen3 (2 layers), qwen3.5 or qwen3.5-moe (4 layers: 3 Gated DeltaNet,
    /// 1 gated full attention; the MoE with 4 experts, 2 routed, and a shared expert).
    #[arg(long, value_enum, default_value = "qwen3")]
    pub architecture: TinyArchitectureName,
}

/// The `--architecture` names of `fabula wm tiny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TinyArchitectureName {
    #[value(name = "qwen3")]
    Qwen3,
    #[value(name = "qwen3.5")]
    Qwen3_5,
    #[value(name = "qwen3.5-moe")]
    Qwen3_5Moe,
}

/// Arguments of `fabula wm bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub replay: ReplayArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// The replayed sessions `fabula wm bench` and `fabula wm score` render.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The dataset directory (holding manifest.json).
    #[arg(long)]
    pub worlds: PathBuf,
    /// Replayed sessions per world.
    #[arg(long, default_value_t = 2)]
    pub sessions_per_world: usize,
    /// The most worlds to use, in id order.
    #[arg(long, default_value_t = 4)]
    pub max_worlds: usize,
    /// The seed of the replayed sessions.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(long, value_enum, default_value = "partial")]
    pub hiding: Hiding,
}

/// `fabula export` subcommands.
#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// Next-observation training samples for the world model, as JSON Lines.
    LwmData(LwmDataArgs),
}

/// Arguments of `fabula export lwm-data`.
#[derive(Debug, Args)]
pub struct LwmDataArgs {
    /// The dataset directory (holding manifest.json).
    #[arg(long)]
    pub worlds: PathBuf,
    /// The JSONL file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Replayed sessions per world, with --trajectories replayed (default 4).
    #[arg(long)]
    pub sessions_per_world: Option<usize>,
    /// The seed of the replayed sessions.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(long, value_enum, default_value = "partial")]
    pub hiding: Hiding,
    /// The records' layout.
    #[arg(long, value_enum, default_value = "fabula")]
    pub format: LwmFormat,
    /// A file whose text replaces fabula's system prompt in every record (the `system_str`);
    /// a `{tool_definitions}` in it becomes the three tools' definitions (AgentWorldBench's
    /// `prompts/search/system_prompt.txt` has one).
    #[arg(long)]
    pub system_prompt: Option<PathBuf>,
    /// Whose turns: replayed sessions of a simple random agent, or the rule-based agent solving
    /// each task, every prompt closed by the task's Simulation Instruction.
    #[arg(long, value_enum, default_value = "replayed")]
    pub trajectories: Trajectories,
    /// With --trajectories tasks: this many tasks a world, drawn with --seed (default: all).
    #[arg(long)]
    pub tasks_per_world: Option<usize>,
    /// The turns of each trajectory that become records: this many, the first, the last and
    /// evenly spaced ones between, as AgentWorldBench picks 5 (default: every turn). Every
    /// record still holds the whole trajectory.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub turns_per_trajectory: Option<u64>,
}

/// The trajectories of `fabula export lwm-data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Trajectories {
    /// `--sessions-per-world` sessions a world of a simple agent (search a title, open the top
    /// hit, search a name it mentions, open the top hit), seeded by --seed.
    Replayed,
    /// The rule-based agent's trajectory on each task (or a seeded sample), in process over the
    /// world's index; each prompt ends with the task's question and gold answer.
    Tasks,
}

/// The layouts of `fabula export lwm-data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LwmFormat {
    /// One sample per turn: `system_str`, the turn's `prompt`, its `response`, `turn_idx` from
    /// 0 and `total_turns`.
    Fabula,
    /// AgentWorldBench's evaluation records, as its released `eval.py` reads `*_test.jsonl`:
    /// `id`, `task` ("search"), `system_str`, the session's `prompt` and `response` lists,
    /// `turn_idx` from 1 and `current_prompt`; name the file `search_test.jsonl`.
    Agentworldbench,
}

/// Runs `fabula render`: prints the observation on stdout and which renderer produced it on
/// stderr.
pub fn run_render(args: &RenderArgs) -> anyhow::Result<()> {
    let index = WorldIndex::open(&args.world)
        .with_context(|| format!("opening {}", args.world.display()))?;
    let hiding = args.hiding;
    let mut renderer = match args.renderer {
        RendererName::Template => None,
        RendererName::Lwm => Some(args.model.load()?),
    };
    let world = match renderer {
        Some(_) => Some(load_world_view(&args.world)?),
        None => None,
    };
    let controls = Controls {
        hiding,
        instruction: String::new(),
    };
    let mut session = fabula_lwm::Session::default();
    let (template, observation) = if let Some(query) = &args.search {
        let template = search_text(&index, query, hiding)?;
        let observation = match (&mut renderer, &world) {
            (Some(renderer), Some(world)) if !template.is_empty() => {
                let queries = [query.clone()];
                let request = fabula_lwm::SearchRequest {
                    queries: &queries,
                    controls: &controls,
                    template: &template,
                };
                Some(renderer.render_search(world, &mut session, &request))
            }
            _ => None,
        };
        (template, observation)
    } else if let Some(url) = &args.extract {
        let template = index
            .markdown(url)
            .with_context(|| format!("extracting {url}"))?;
        let observation = match (&mut renderer, &world) {
            (Some(renderer), Some(world)) => {
                let request = fabula_lwm::ExtractRequest {
                    url,
                    controls: &controls,
                    template: &template,
                };
                Some(renderer.render_extract(world, &session, &request))
            }
            _ => None,
        };
        (template, observation)
    } else {
        bail!("give --search QUERY or --extract URL");
    };
    match observation {
        Some(observation) => {
            print!("{}", with_newline(&observation.text));
            match observation.fallback_reason {
                Some(reason) => eprintln!(
                    "rendered_by: {} (fallback: {}: {})",
                    observation.rendered_by.as_str(),
                    reason.as_str(),
                    observation.fallback_detail.as_deref().unwrap_or("")
                ),
                None => eprintln!("rendered_by: {}", observation.rendered_by.as_str()),
            }
        }
        None => {
            if template.is_empty() {
                eprintln!("(no results)");
            }
            print!("{}", with_newline(&template));
            eprintln!("rendered_by: {}", RenderedBy::Template.as_str());
        }
    }
    Ok(())
}

fn with_newline(text: &str) -> String {
    if text.is_empty() || text.ends_with('\n') {
        text.to_owned()
    } else {
        format!("{text}\n")
    }
}

/// The template search observation: the top ten results in the block format (empty without
/// results).
fn search_text(index: &WorldIndex, query: &str, hiding: Hiding) -> anyhow::Result<String> {
    let options = SearchOptions {
        top_k: 10,
        offset: 0,
        hiding,
    };
    let results = index
        .search(query, &options)
        .with_context(|| format!("searching for `{query}`"))?;
    let hits: Vec<HitJson> = results.hits.into_iter().map(HitJson::from).collect();
    Ok(search_template(&hits))
}

/// Runs `fabula wm generate`: loads the checkpoint, continues the prompt greedily and prints
/// `{architecture, prompt_ids, ids, text, prefill_ms, decode_ms, logits?}` on stdout.
pub fn run_generate(args: &GenerateArgs) -> anyhow::Result<()> {
    let dtype = args.dtype.map(|name| match name {
        DtypeName::F32 => fabula_lwm::Precision::F32,
        DtypeName::Bf16 => fabula_lwm::Precision::Bf16,
        DtypeName::F16 => fabula_lwm::Precision::F16,
    });
    let options = fabula_lwm::LoadOptions {
        device: args.device,
        dtype,
    };
    let started = Instant::now();
    let mut model = fabula_lwm::Model::load(&args.model, &options)
        .with_context(|| format!("loading {}", args.model.display()))?;
    let load_ms = started.elapsed().as_secs_f64() * 1000.0;
    let prompt_ids = match (&args.prompt_ids, &args.prompt) {
        (Some(ids), _) => ids.clone(),
        (None, Some(text)) => model.encode(text)?,
        (None, None) => bail!("give --prompt TEXT or --prompt-ids IDS"),
    };
    let greedy = model.greedy(&prompt_ids, args.max_new_tokens, args.logits)?;
    let mut out = serde_json::json!({
        "architecture": model.architecture().model_type(),
        "prompt_ids": prompt_ids,
        "ids": greedy.tokens,
        "text": model.decode(&greedy.tokens)?,
        "load_ms": load_ms,
        "prefill_ms": greedy.prefill_seconds * 1000.0,
        "decode_ms": greedy.decode_seconds * 1000.0,
    });
    if args.logits {
        out["logits"] = serde_json::json!(greedy.logits);
    }
    println!("{out}");
    Ok(())
}

/// Runs `fabula wm tiny`.
pub fn run_tiny(args: &TinyArgs) -> anyhow::Result<()> {
    let corpus_text = match &args.worlds {
        Some(dir) => dataset_text(dir, args.count)?,
        None => generated_text(args.seed, args.count)?,
    };
    let (architecture, name) = match args.architecture {
        TinyArchitectureName::Qwen3 => (fabula_lwm::TinyArchitecture::Qwen3, "Qwen3"),
        TinyArchitectureName::Qwen3_5 => (fabula_lwm::TinyArchitecture::Qwen3_5, "Qwen3.5"),
        TinyArchitectureName::Qwen3_5Moe => {
            (fabula_lwm::TinyArchitecture::Qwen3_5Moe, "Qwen3.5 MoE")
        }
    };
    fabula_lwm::write_tiny_as(&args.out, args.seed, &corpus_text, architecture)
        .with_context(|| format!("writing the tiny checkpoint to {}", args.out.display()))?;
    eprintln!(
        "fabula: wrote a tiny {name} checkpoint to {} (tokenizer trained on {} pages)",
        args.out.display(),
        corpus_text.len()
    );
    Ok(())
}

/// The page bodies of the first `count` worlds of a dataset.
fn dataset_text(dir: &Path, count: u32) -> anyhow::Result<Vec<String>> {
    let corpus = Corpus::open(dir).with_context(|| format!("opening {}", dir.display()))?;
    let mut text = Vec::new();
    for info in corpus.worlds().iter().take(count as usize) {
        let world = load_world_view(&info.file)?;
        text.extend(world.pages.into_values().map(|page| page.body));
    }
    if text.is_empty() {
        bail!("{} holds no pages to train a tokenizer on", dir.display());
    }
    Ok(text)
}

/// The page bodies of `count` freshly generated worlds.
fn generated_text(seed: u64, count: u32) -> anyhow::Result<Vec<String>> {
    let themes = fabula_world::theme::all().context("loading the themes")?;
    let mut text = Vec::new();
    for world_id in 0..count.max(1) {
        let world = fabula_world::generate_world(seed, world_id, &themes);
        text.extend(
            fabula_pages::render_pages(&world)
                .into_iter()
                .map(|page| page.body),
        );
    }
    Ok(text)
}

/// The template observations of one world, for replayed sessions.
struct Templates<'a> {
    index: &'a WorldIndex,
    hiding: Hiding,
}

impl fabula_lwm::Observe for Templates<'_> {
    type Error = anyhow::Error;

    fn search(&mut self, query: &str) -> anyhow::Result<String> {
        search_text(self.index, query, self.hiding)
    }

    fn extract(&mut self, url: &str) -> anyhow::Result<String> {
        self.index
            .markdown(url)
            .with_context(|| format!("extracting {url}"))
    }
}

/// The turns of one replayed session against the template renderer (see the module docs).
fn session_turns(
    index: &WorldIndex,
    world: &MemoryWorld,
    key: (u64, u32, usize),
    hiding: Hiding,
) -> anyhow::Result<Vec<LwmTurn>> {
    fabula_lwm::replay_session(world, &mut Templates { index, hiding }, key, hiding)
}

/// Runs `fabula export lwm-data`.
pub fn run_export_lwm_data(args: &LwmDataArgs) -> anyhow::Result<()> {
    let corpus =
        Corpus::open(&args.worlds).with_context(|| format!("opening {}", args.worlds.display()))?;
    let hiding = args.hiding;
    let config = PromptConfig::default();
    // Each mode's own options, refused in the other rather than ignored.
    match args.trajectories {
        Trajectories::Replayed if args.tasks_per_world.is_some() => {
            bail!("--tasks-per-world applies to --trajectories tasks")
        }
        Trajectories::Tasks if args.sessions_per_world.is_some() => {
            bail!("--sessions-per-world applies to --trajectories replayed")
        }
        _ => {}
    }
    let sessions_per_world = args.sessions_per_world.unwrap_or(4);
    let system = match &args.system_prompt {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading the system prompt {}", path.display()))?;
            let definitions = serde_json::to_string_pretty(&fabula_mcp::function_definitions(
                fabula_mcp::ToolSet::AgentWorld,
            ))?;
            Some(text.replace("{tool_definitions}", &definitions))
        }
        None => None,
    };
    if let Some(parent) = args.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    // Written beside the output and renamed once whole: a failed export leaves no half file
    // under the output's name (nor one that eval.py's `*_test.jsonl` would load).
    let mut partial = args.out.clone().into_os_string();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let file = std::fs::File::create(&partial)
        .with_context(|| format!("writing {}", partial.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let per_trajectory =
        (args.turns_per_trajectory).map_or(usize::MAX, |k| k.try_into().unwrap_or(usize::MAX));
    let mut n_samples = 0;
    let mut tally = trajectories::Tally::default();
    for info in corpus.worlds() {
        let index = corpus.world(info.id)?;
        let world = load_world_view(&info.file)?;
        let sessions = match args.trajectories {
            Trajectories::Replayed => (0..sessions_per_world)
                .map(|session| {
                    let turns =
                        session_turns(&index, &world, (args.seed, info.id, session), hiding)?;
                    let name = format!("fabula-s{}-w{:05}-{session}", args.seed, info.id);
                    Ok((name, fabula_lwm::lwm_samples(&world, &turns, &config)?))
                })
                .collect::<anyhow::Result<Vec<_>>>()?,
            Trajectories::Tasks => {
                let scope = trajectories::Scope {
                    seed: args.seed,
                    tasks_per_world: args.tasks_per_world,
                    hiding,
                };
                trajectories::world_sessions(&index, &world, info, &scope, &mut tally)?
            }
        };
        for (name, mut samples) in sessions {
            if let Some(system) = &system {
                for sample in &mut samples {
                    sample.system_str.clone_from(system);
                }
            }
            let turns = fabula_lwm::spread_turns(samples.len(), per_trajectory);
            n_samples += turns.len();
            let text = match args.format {
                LwmFormat::Fabula => {
                    fabula_lwm::jsonl(&turns.iter().map(|&t| &samples[t]).collect::<Vec<_>>())?
                }
                LwmFormat::Agentworldbench => {
                    fabula_lwm::jsonl(&fabula_lwm::bench_records_at(&samples, &name, &turns))?
                }
            };
            out.write_all(text.as_bytes())
                .with_context(|| format!("writing {}", partial.display()))?;
        }
    }
    out.flush()
        .with_context(|| format!("writing {}", partial.display()))?;
    std::fs::rename(&partial, &args.out)
        .with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!(
        "fabula: wrote {n_samples} samples from {} worlds to {}",
        corpus.worlds().len(),
        args.out.display()
    );
    if args.trajectories == Trajectories::Tasks {
        eprintln!("fabula: {tally}");
    }
    Ok(())
}

/// Runs `fabula wm bench`: renders replayed sessions with the model and prints the acceptance
/// rate, tokens/s and the Prometheus counters.
pub fn run_bench(args: &BenchArgs) -> anyhow::Result<()> {
    let (replay, model) = (&args.replay, &args.model);
    let corpus = Corpus::open(&replay.worlds)
        .with_context(|| format!("opening {}", replay.worlds.display()))?;
    let hiding = replay.hiding;
    let started = Instant::now();
    let mut renderer = model.load()?;
    let loaded_s = started.elapsed().as_secs_f64();
    let mut n_lwm = 0;
    let mut n_renders = 0;
    for info in corpus.worlds().iter().take(replay.max_worlds) {
        let index = corpus.world(info.id)?;
        let world = load_world_view(&info.file)?;
        for session in 0..replay.sessions_per_world {
            let turns = session_turns(&index, &world, (replay.seed, info.id, session), hiding)?;
            let mut view = fabula_lwm::Session::default();
            for turn in &turns {
                let observation = match &turn.action {
                    Action::Search { queries } => {
                        let request = fabula_lwm::SearchRequest {
                            queries,
                            controls: &turn.controls,
                            template: &turn.observation,
                        };
                        renderer.render_search(&world, &mut view, &request)
                    }
                    Action::Extract { url } => {
                        let request = fabula_lwm::ExtractRequest {
                            url,
                            controls: &turn.controls,
                            template: &turn.observation,
                        };
                        renderer.render_extract(&world, &view, &request)
                    }
                };
                n_renders += 1;
                if observation.rendered_by == RenderedBy::Lwm {
                    n_lwm += 1;
                }
            }
        }
    }
    let snapshot = renderer.counters().snapshot();
    println!(
        "renders: {n_renders}, accepted: {n_lwm} ({:.1}%), tokens: {}, tokens/s: {:.1}, \
         model load: {loaded_s:.2} s, total: {:.2} s",
        100.0 * n_lwm as f64 / n_renders.max(1) as f64,
        snapshot.tokens_generated,
        snapshot.tokens_per_second(),
        started.elapsed().as_secs_f64()
    );
    print!("{}", renderer.metrics_text());
    Ok(())
}

/// The world-model options of `fabula serve`: None for the template renderer.
pub fn serve_lwm(renderer: RendererName, model: &ModelArgs) -> anyhow::Result<Option<LwmOptions>> {
    match renderer {
        RendererName::Template => Ok(None),
        RendererName::Lwm => model.options().map(Some),
    }
}
