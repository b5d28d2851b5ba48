//! The language world model: a causal LM that renders search and extractor observations from a
//! world's state, verified against the world before any agent sees them.
//!
//! Beside the template renderer, [`Renderer`] asks a Qwen3 model (loaded with candle) to write the
//! observation of a `web_search` or `web_extractor` call, as Qwen-AgentWorld's world model does.
//! The prompt ([`search_prompt`], [`extract_prompt`], wrapped by [`chat_prompt`] in Qwen3's chat
//! template with thinking disabled) carries the action, the facts of the pages it touches, the
//! session's control instruction (hiding level, injected faults) and the result format. The
//! database stays the truth: [`verify_search`] and [`verify_extract`] check the model's text, and
//! anything that fails falls back to the template text with a [`FallbackReason`]. Renders are
//! cached by world, normalised action, controls and seed, and [`Counters`] count attempts,
//! acceptances, fallbacks by reason and tokens, exposed as Prometheus text by
//! [`prometheus_text`].
//!
//! Checkpoints load with [`Model::load`]: a Hugging Face folder (`config.json`, `tokenizer.json`,
//! `model.safetensors` or shards with `model.safetensors.index.json`) of `Qwen3ForCausalLM`,
//! `Qwen3MoeForCausalLM`, or Qwen3.5 (`Qwen3_5ForCausalLM`, `Qwen3_5MoeForCausalLM` and the text
//! part of their multimodal `ForConditionalGeneration` checkpoints, the seed world model's
//! architecture), or a quantized Qwen3 GGUF file with `tokenizer.json` beside it.
//! [`write_tiny`] writes a tiny random checkpoint for tests and demos; [`lwm_samples`] builds
//! next-observation training data, and [`task_samples`] the same for a task's trajectory, each
//! turn's prompt closed by the [`SimulationInstruction`] (the task's question and gold answer).
//! [`score_session`] rates what a renderer wrote for a trajectory's turns (the model's raw text,
//! [`Observation::written`]) on AgentWorldBench's five judge dimensions, against the world.
//!
//! # Features
//!
//! | Feature | Default | What it does |
//! |---------|---------|--------------|
//! | `model` | on      | The local models ([`Model`]: candle's Qwen3, this crate's Qwen3.5) and tokenizers, [`write_tiny`], [`Greedy`]. Off, the crate renders, verifies and scores through remote engines only and links no candle; [`load_generator`] then says so. `fabula-server` depends on the crate without it; the `fabula` binary turns it on. |
//! | `cuda`  | off     | Enables candle's CUDA backend (`candle-core`, `candle-nn`, `candle-transformers` `cuda`), so [`DeviceChoice::Cuda`] works; models load in bf16 there. Building needs `nvcc` and the CUDA headers (see `scripts/cuda-build.sh`), not a GPU. |
//!
//! # Example
//!
//! ```no_run
//! use fabula_lwm::{Controls, LoadOptions, MemoryWorld, Model, RenderConfig, Renderer,
//!     SearchRequest, Session};
//!
//! # fn main() -> fabula_lwm::Result<()> {
//! let model = Model::load(std::path::Path::new("checkpoints/qwen3"), &LoadOptions::default())?;
//! let mut renderer = Renderer::new(Some(Box::new(model)), RenderConfig::default());
//! let world = MemoryWorld::new("w-0001");
//! let mut session = Session::default();
//! let queries = vec!["river city".to_string()];
//! let template = "[1] https://w-0001.fab/wiki/Kest\nTitle: Kest\nSnippet: …\nDate: N/A\n";
//! let controls = Controls::default();
//! let request = SearchRequest { queries: &queries, controls: &controls, template };
//! let observation = renderer.render_search(&world, &mut session, &request);
//! println!("{} ({})", observation.text, observation.rendered_by.as_str());
//! # Ok(())
//! # }
//! ```

mod action;
#[cfg(feature = "model")]
mod decode;
mod error;
mod generate;
mod instruction;
mod load;
mod metrics;
#[cfg(feature = "model")]
mod model;
mod parse;
mod prompt;
#[cfg(feature = "model")]
mod qwen3_5;
mod remote;
mod render;
mod replay;
mod samples;
mod score;
#[cfg(feature = "model")]
mod tiny;
mod verify;
mod view;

pub use action::{Action, Controls};
#[cfg(feature = "model")]
pub use decode::Greedy;
pub use error::{Error, RemoteFailure, Result};
pub use fabula_file::{Hiding, Page, PageFact, ValueKind};
pub use generate::{FinishReason, GenerateOptions, Generation, QWEN3_STOP_TOKENS};
pub use instruction::{INSTRUCTION_HEADING, SimulationInstruction, reference_answer, task_samples};
pub use load::{DeviceChoice, LoadOptions, Precision};
pub use metrics::{
    Counters, CountersSnapshot, METRIC_PREFIX, RENDER_SECONDS_BOUNDS, prometheus_text,
};
#[cfg(feature = "model")]
pub use model::{Architecture, Model};
pub use parse::{ParsedPage, ResultBlock, SearchSection, format_search, parse_page, parse_search};
pub use prompt::{
    PromptConfig, chat_prompt, extract_prompt, search_prompt, system_prompt, task_system_prompt,
};
pub use remote::{BACKOFF, COOLDOWN, DEFAULT_TIMEOUT, MAX_RETRIES, RemoteEngine, RemoteOptions};
pub use render::{
    ExtractRequest, Generator, Observation, RenderConfig, RenderedBy, Renderer, SearchRequest,
    Session, load_generator,
};
pub use replay::{Observe, replay_session};
pub use samples::{
    BENCH_TASK, BenchRecord, LwmSample, LwmTurn, OBSERVATION_MARKER, bench_records,
    bench_records_at, jsonl, lwm_samples, spread_turns,
};
pub use score::{
    Dimension, Failure, FailureCount, FailureExample, FailureReason, ScoreConfig, ScoreSummary,
    SessionScore, TurnScore, Verdict, render_turns, score_session, summarise,
};
#[cfg(feature = "model")]
pub use tiny::{TINY_SPECIAL_TOKENS, TinyArchitecture, write_tiny, write_tiny_as};
pub use verify::{FallbackReason, Rejection, verify_extract, verify_search};
pub use view::{MemoryWorld, WorldView};
