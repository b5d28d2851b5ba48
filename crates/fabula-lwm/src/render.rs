//! The world-model renderer: prompts the model, verifies its text against the world, falls back
//! to the template text, caches renders and counts outcomes.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::action::{Action, Controls};
use crate::error::RemoteFailure;
use crate::generate::{FinishReason, GenerateOptions, Generation};
use crate::load::LoadOptions;
use crate::metrics::{Counters, prometheus_text};
#[cfg(feature = "model")]
use crate::model::Model;
use crate::parse::parse_search;
use crate::prompt::{PromptConfig, chat_prompt, extract_prompt, search_prompt, system_prompt};
use crate::verify::{FallbackReason, Rejection, verify_extract, verify_search};
use crate::view::WorldView;

/// Which renderer produced an observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderedBy {
    /// The language world model, verified.
    Lwm,
    /// The template renderer.
    Template,
}

impl RenderedBy {
    /// `"lwm"` or `"template"`.
    pub fn as_str(self) -> &'static str {
        match self {
            RenderedBy::Lwm => "lwm",
            RenderedBy::Template => "template",
        }
    }
}

/// The observation an agent is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    pub text: String,
    pub rendered_by: RenderedBy,
    /// Why the model's text was rejected; None when it was accepted or never asked for.
    pub fallback_reason: Option<FallbackReason>,
    /// A human-readable account of the rejection, for logs; never show it to agents.
    pub fallback_detail: Option<String>,
    /// The model's text, accepted or not (a leading thinking block dropped); None when the model
    /// was not asked or gave no text. Scoring reads it; never show a rejected one to agents.
    pub generated: Option<String>,
}

impl Observation {
    fn template(text: &str) -> Observation {
        Observation {
            text: text.to_string(),
            rendered_by: RenderedBy::Template,
            fallback_reason: None,
            fallback_detail: None,
            generated: None,
        }
    }

    /// The text the renderer itself wrote, the one to score: the model's generation whether or
    /// not verification accepted it, empty when the model failed to answer, and the template text
    /// when no model was asked.
    pub fn written(&self) -> &str {
        match (&self.generated, self.fallback_reason) {
            (Some(generated), _) => generated,
            (None, Some(_)) => "",
            (None, None) => &self.text,
        }
    }
}

/// What one agent session has been shown so far: the snippets shown for each url, so an extracted
/// page can be checked against them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Session {
    snippets: BTreeMap<String, Vec<String>>,
}

impl Session {
    /// Records the snippets of a search observation that was shown to the agent. Text that is not
    /// in the result-block format (an error message, say) records nothing.
    pub fn record_search(&mut self, text: &str) {
        let Ok(sections) = parse_search(text) else {
            return;
        };
        for block in sections.iter().flat_map(|s| &s.results) {
            if block.snippet.is_empty() {
                continue;
            }
            let shown = self.snippets.entry(block.url.clone()).or_default();
            if !shown.contains(&block.snippet) {
                shown.push(block.snippet.clone());
            }
        }
    }

    /// The snippets shown for `url`, oldest first.
    pub fn snippets_for(&self, url: &str) -> &[String] {
        self.snippets.get(url).map_or(&[], Vec::as_slice)
    }
}

/// How the renderer generates and caches.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderConfig {
    /// Generation settings; `seed` is part of every cache key, and `time_budget` bounds each
    /// render.
    pub generate: GenerateOptions,
    pub prompt: PromptConfig,
    /// The most renders kept; the oldest is dropped first.
    pub cache_capacity: usize,
}

impl Default for RenderConfig {
    /// Greedy decoding of up to 768 tokens within 30 s per render, and 4,096 cached renders.
    fn default() -> RenderConfig {
        RenderConfig {
            generate: GenerateOptions {
                max_new_tokens: 768,
                time_budget: Some(Duration::from_secs(30)),
                ..GenerateOptions::default()
            },
            prompt: PromptConfig::default(),
            cache_capacity: 4096,
        }
    }
}

/// A `web_search` call to render.
#[derive(Debug, Clone, Copy)]
pub struct SearchRequest<'a> {
    pub queries: &'a [String],
    pub controls: &'a Controls,
    /// The template renderer's observation for the same call: the pages it lists are the ones the
    /// model renders, and it is the text shown when the model's is rejected.
    pub template: &'a str,
}

/// A `web_extractor` call to render.
#[derive(Debug, Clone, Copy)]
pub struct ExtractRequest<'a> {
    pub url: &'a str,
    pub controls: &'a Controls,
    /// The template renderer's observation for the same call, the fallback.
    pub template: &'a str,
}

/// What the cache keeps of one generation.
#[derive(Debug, Clone)]
struct CachedRender {
    text: String,
    finish: FinishReason,
}

/// Something that continues a prompt: a loaded [`Model`], or a stand-in (a remote model, a
/// scripted generator in tests).
pub trait Generator: Send {
    /// Generates a continuation of `prompt`, a full chat prompt.
    fn generate(&mut self, prompt: &str, options: &GenerateOptions) -> crate::Result<Generation>;

    /// Answers a system and a user message: by default the continuation of their chat prompt
    /// ([`chat_prompt`]); an engine that applies its own chat template takes the messages.
    fn generate_chat(
        &mut self,
        system: &str,
        user: &str,
        options: &GenerateOptions,
    ) -> crate::Result<Generation> {
        self.generate(&chat_prompt(system, user), options)
    }
}

#[cfg(feature = "model")]
impl Generator for Model {
    fn generate(&mut self, prompt: &str, options: &GenerateOptions) -> crate::Result<Generation> {
        Model::generate(self, prompt, options)
    }
}

/// Renders observations with an optional world model. Without a model every observation is the
/// template text.
pub struct Renderer {
    model: Option<Box<dyn Generator>>,
    config: RenderConfig,
    cache: HashMap<[u8; 32], CachedRender>,
    cache_order: VecDeque<[u8; 32]>,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("has_model", &self.model.is_some())
            .field("config", &self.config)
            .field("cache_len", &self.cache.len())
            .finish_non_exhaustive()
    }
}

impl Renderer {
    /// A renderer around `model` (None renders with templates only). A loaded [`Model`] is passed
    /// as `Some(Box::new(model))`.
    pub fn new(model: Option<Box<dyn Generator>>, config: RenderConfig) -> Renderer {
        Renderer {
            model,
            config,
            cache: HashMap::new(),
            cache_order: VecDeque::new(),
            counters: Arc::new(Counters::default()),
        }
    }

    /// The counters, shared so a metrics endpoint can read them while a render runs.
    pub fn counters(&self) -> Arc<Counters> {
        Arc::clone(&self.counters)
    }

    /// The counters in Prometheus text format.
    pub fn metrics_text(&self) -> String {
        prometheus_text(&self.counters.snapshot())
    }

    /// The number of cached renders.
    pub fn cache_len(&self) -> usize {
        self.cache.len()
    }

    /// Renders a `web_search` observation and records its snippets in `session`.
    pub fn render_search(
        &mut self,
        world: &dyn WorldView,
        session: &mut Session,
        request: &SearchRequest<'_>,
    ) -> Observation {
        let observation = self.search_observation(world, request);
        session.record_search(&observation.text);
        observation
    }

    fn search_observation(
        &mut self,
        world: &dyn WorldView,
        request: &SearchRequest<'_>,
    ) -> Observation {
        if self.model.is_none() {
            return Observation::template(request.template);
        }
        // The template lists the pages that match; when it holds no results (an injected error,
        // an empty result list) there is nothing for the model to render.
        let Ok(sections) = parse_search(request.template) else {
            return Observation::template(request.template);
        };
        let action = Action::Search {
            queries: request.queries.to_vec(),
        }
        .normalised();
        let Action::Search { queries } = &action else {
            unreachable!("a search action stays a search action");
        };
        let key = self.cache_key(
            world.world_id(),
            &action,
            request.controls,
            request.template,
        );
        let hiding = request.controls.hiding;
        let config = self.config.prompt.clone();
        let prompt = || -> crate::Result<(String, String)> {
            let user = search_prompt(world, queries, request.controls, &sections, &config)?;
            Ok((system_prompt(world.world_id())?, user))
        };
        let generated = self.generate_cached(key, prompt);
        self.finish(generated, request.template, |text| {
            verify_search(world, text, hiding).map(|_| ())
        })
    }

    /// Renders a `web_extractor` observation, checked against the snippets `session` has shown
    /// for the url.
    pub fn render_extract(
        &mut self,
        world: &dyn WorldView,
        session: &Session,
        request: &ExtractRequest<'_>,
    ) -> Observation {
        if self.model.is_none() || !world.has_page(request.url.trim()) {
            return Observation::template(request.template);
        }
        let action = Action::Extract {
            url: request.url.to_string(),
        }
        .normalised();
        let Action::Extract { url } = &action else {
            unreachable!("an extract action stays an extract action");
        };
        let key = self.cache_key(
            world.world_id(),
            &action,
            request.controls,
            request.template,
        );
        let earlier = session.snippets_for(url);
        let config = self.config.prompt.clone();
        let prompt = || -> crate::Result<(String, String)> {
            let user = extract_prompt(world, url, request.controls, earlier, &config)?;
            Ok((system_prompt(world.world_id())?, user))
        };
        let generated = self.generate_cached(key, prompt);
        self.finish(generated, request.template, |text| {
            verify_extract(world, url, text, earlier).map(|_| ())
        })
    }

    /// The cache key: world, normalised action, controls and seed (plus the template text, which
    /// those determine, so a changed template never serves a stale render).
    fn cache_key(
        &self,
        world_id: &str,
        action: &Action,
        controls: &Controls,
        template: &str,
    ) -> [u8; 32] {
        let mut hasher = Sha256::new();
        for part in [
            world_id,
            action.tool(),
            &action.input_json(),
            controls.hiding.as_str(),
            &controls.instruction,
            &self.config.generate.seed.to_string(),
            template,
        ] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        hasher.finalize().into()
    }

    /// Returns the cached render for `key`, or generates, caches and returns it.
    fn generate_cached(
        &mut self,
        key: [u8; 32],
        prompt: impl FnOnce() -> crate::Result<(String, String)>,
    ) -> Result<CachedRender, Rejection> {
        self.counters.record_attempt();
        if let Some(cached) = self.cache.get(&key) {
            self.counters.record_cache_hit();
            return Ok(cached.clone());
        }
        let model = self.model.as_mut().expect("callers check for a model");
        let options = GenerateOptions {
            seed: self.config.generate.seed ^ u64::from_le_bytes(key[..8].try_into().expect("8")),
            ..self.config.generate.clone()
        };
        let started = std::time::Instant::now();
        let generation =
            prompt().and_then(|(system, user)| model.generate_chat(&system, &user, &options));
        self.counters
            .record_render_time(started.elapsed().as_secs_f64());
        let generation = match generation {
            Ok(generation) => generation,
            Err(err) => {
                let reason = match &err {
                    crate::Error::Remote { kind, .. } => match kind {
                        RemoteFailure::Unavailable => FallbackReason::EngineUnavailable,
                        RemoteFailure::OutOfTime => FallbackReason::TimeBudget,
                        RemoteFailure::BadAnswer => FallbackReason::ModelError,
                    },
                    _ => FallbackReason::ModelError,
                };
                return Err(Rejection {
                    reason,
                    detail: err.to_string(),
                });
            }
        };
        self.counters
            .record_generation(generation.tokens.len(), generation.seconds);
        let render = CachedRender {
            text: strip_thinking(&generation.text),
            finish: generation.finish,
        };
        if self.config.cache_capacity > 0 {
            if self.cache.len() >= self.config.cache_capacity
                && let Some(oldest) = self.cache_order.pop_front()
            {
                self.cache.remove(&oldest);
            }
            self.cache.insert(key, render.clone());
            self.cache_order.push_back(key);
        }
        Ok(render)
    }

    /// Verifies a render and builds the observation, falling back to `template` on rejection.
    fn finish(
        &self,
        generated: Result<CachedRender, Rejection>,
        template: &str,
        verify: impl FnOnce(&str) -> Result<(), Rejection>,
    ) -> Observation {
        let generated_text = generated.as_ref().ok().map(|render| render.text.clone());
        let checked = generated.and_then(|render| {
            if render.finish == FinishReason::TimeBudget {
                return Err(Rejection {
                    reason: FallbackReason::TimeBudget,
                    detail: "generation ran out of its time budget".to_string(),
                });
            }
            verify(&render.text).map(|()| render.text)
        });
        match checked {
            Ok(text) => {
                self.counters.record_outcome(None);
                Observation {
                    text,
                    rendered_by: RenderedBy::Lwm,
                    fallback_reason: None,
                    fallback_detail: None,
                    generated: generated_text,
                }
            }
            Err(rejection) => {
                self.counters.record_outcome(Some(rejection.reason));
                Observation {
                    text: template.to_string(),
                    rendered_by: RenderedBy::Template,
                    fallback_reason: Some(rejection.reason),
                    fallback_detail: Some(rejection.detail),
                    generated: generated_text,
                }
            }
        }
    }
}

/// Drops a leading `<think>…</think>` block (if the tokenizer kept it as text) and outer blank
/// space.
fn strip_thinking(text: &str) -> String {
    let text = text.trim_start();
    let text = match text.strip_prefix("<think>") {
        Some(rest) => rest.split_once("</think>").map_or(rest, |(_, after)| after),
        None => text,
    };
    text.trim().to_string()
}

/// Loads the checkpoint at `path` ([`crate::Model::load`]) as a [`Generator`]. Without the
/// crate's `model` feature this build has no local models: an
/// [`Error::Unsupported`](crate::Error::Unsupported) says so.
pub fn load_generator(path: &Path, options: &LoadOptions) -> crate::Result<Box<dyn Generator>> {
    #[cfg(feature = "model")]
    {
        Ok(Box::new(Model::load(path, options)?))
    }
    #[cfg(not(feature = "model"))]
    {
        let _ = options;
        Err(crate::Error::Unsupported(format!(
            "{}: this build has no local world models (fabula-lwm's `model` feature is off); \
             serve the checkpoint with an OpenAI-compatible engine and pass its URL instead",
            path.display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_is_stripped() {
        assert_eq!(strip_thinking("<think>\n\n</think>\n\n# Kest\n"), "# Kest");
        assert_eq!(strip_thinking("  # Kest  "), "# Kest");
    }

    #[test]
    fn sessions_remember_snippets_once() {
        let mut session = Session::default();
        let text = "[1] https://a.fab/x\nTitle: X\nSnippet: one\nDate: N/A\n";
        session.record_search(text);
        session.record_search(text);
        session.record_search("Error 429: too many requests");
        assert_eq!(session.snippets_for("https://a.fab/x"), ["one"]);
        assert!(session.snippets_for("https://a.fab/y").is_empty());
    }
}
