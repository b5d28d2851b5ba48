//! The renderer: fallback of garbage renders, acceptance of good ones, caching, sessions and
//! metrics.

use std::sync::{Arc, Mutex};

use fabula_lwm::{
    Controls, Error, ExtractRequest, FallbackReason, FinishReason, GenerateOptions, Generation,
    Generator, Hiding, LoadOptions, Model, RenderConfig, RenderedBy, Renderer, SearchRequest,
    Session, write_tiny,
};

use crate::fixtures::{self, KEST};

/// A generator that answers every prompt with the next scripted reply and logs the prompts.
struct Scripted {
    replies: Vec<Result<(String, FinishReason), String>>,
    prompts: Arc<Mutex<Vec<String>>>,
}

impl Generator for Scripted {
    fn generate(
        &mut self,
        prompt: &str,
        _options: &GenerateOptions,
    ) -> fabula_lwm::Result<Generation> {
        self.prompts.lock().unwrap().push(prompt.to_string());
        match self.replies.remove(0) {
            Ok((text, finish)) => Ok(Generation {
                tokens: vec![1; text.len() / 4],
                text,
                seconds: 0.01,
                finish,
            }),
            Err(message) => Err(Error::Unsupported(message)),
        }
    }
}

fn scripted(replies: &[&str]) -> (Renderer, Arc<Mutex<Vec<String>>>) {
    let prompts = Arc::new(Mutex::new(Vec::new()));
    let generator = Scripted {
        replies: replies
            .iter()
            .map(|r| Ok((r.to_string(), FinishReason::Stop)))
            .collect(),
        prompts: Arc::clone(&prompts),
    };
    let renderer = Renderer::new(Some(Box::new(generator)), RenderConfig::default());
    (renderer, prompts)
}

fn queries() -> Vec<String> {
    vec!["kest  founder ".to_string()]
}

#[test]
fn garbage_from_the_random_tiny_model_falls_back() {
    let world = fixtures::world();
    let dir = tempfile::tempdir().unwrap();
    write_tiny(dir.path(), 3, &fixtures::corpus(&world)).unwrap();
    let model = Model::load(dir.path(), &LoadOptions::default()).unwrap();
    let mut config = RenderConfig::default();
    config.generate.max_new_tokens = 48;
    let mut renderer = Renderer::new(Some(Box::new(model)), config);
    let template = fixtures::search_template();
    let controls = Controls::default();
    let queries = queries();
    let request = SearchRequest {
        queries: &queries,
        controls: &controls,
        template: &template,
    };
    let mut session = Session::default();
    let first = renderer.render_search(&world, &mut session, &request);
    assert_eq!(first.text, template);
    assert_eq!(first.rendered_by, RenderedBy::Template);
    assert!(first.fallback_reason.is_some(), "{first:?}");
    assert_ne!(
        first.fallback_reason,
        Some(FallbackReason::ModelError),
        "{first:?}"
    );

    // The same action is answered from the cache with the same observation.
    let second = renderer.render_search(&world, &mut session, &request);
    assert_eq!(second, first);
    let snapshot = renderer.counters().snapshot();
    assert_eq!(snapshot.attempted, 2);
    assert_eq!(snapshot.accepted, 0);
    assert_eq!(snapshot.cache_hits, 1);
    assert_eq!(snapshot.fallbacks_for(first.fallback_reason.unwrap()), 2);
    assert!(snapshot.tokens_generated > 0 && snapshot.tokens_generated <= 48);
    assert!(snapshot.tokens_per_second() > 0.0);

    // The template's snippets were shown, so the session remembers them.
    assert_eq!(session.snippets_for(KEST).len(), 1);

    // The extractor falls back as well.
    let page_template = world.pages[KEST].body.clone();
    let extract = renderer.render_extract(
        &world,
        &session,
        &ExtractRequest {
            url: KEST,
            controls: &controls,
            template: &page_template,
        },
    );
    assert_eq!(extract.text, page_template);
    assert!(extract.fallback_reason.is_some());
}

#[test]
fn a_good_render_is_accepted_and_cached() {
    let world = fixtures::world();
    let good = format!(
        "## Query: kest founder\n\n[1] {KEST}\nTitle: Kest\nSnippet: Kest, a city-state on \
         the … delta, was founded in … by ….\nDate: N/A\n"
    );
    let (mut renderer, prompts) = scripted(&[&good]);
    let template = fixtures::search_template();
    let controls = Controls::default();
    let mut session = Session::default();
    let queries = queries();
    let request = SearchRequest {
        queries: &queries,
        controls: &controls,
        template: &template,
    };
    let observation = renderer.render_search(&world, &mut session, &request);
    assert_eq!(observation.rendered_by, RenderedBy::Lwm, "{observation:?}");
    assert_eq!(observation.text, good.trim());
    assert_eq!(observation.fallback_reason, None);
    // Equivalent whitespace is the same action: a cache hit (the script has no second reply).
    let spaced = vec!["kest founder".to_string()];
    let again = renderer.render_search(
        &world,
        &mut session,
        &SearchRequest {
            queries: &spaced,
            ..request
        },
    );
    assert_eq!(again, observation);
    assert_eq!(renderer.cache_len(), 1);

    let prompts = prompts.lock().unwrap();
    assert_eq!(prompts.len(), 1);
    let prompt = &prompts[0];
    assert!(prompt.starts_with("<|im_start|>system\n"), "{prompt}");
    assert!(prompt.ends_with("<|im_start|>assistant\n<think>\n\n</think>\n\n"));
    assert!(
        prompt.contains(r#"web_search {"queries":["kest founder"]}"#),
        "{prompt}"
    );
    assert!(prompt.contains("hiding level partial"), "{prompt}");
    assert!(prompt.contains("number=12,345"), "{prompt}");
    assert!(
        prompt.contains("hidden in snippets: Orun; 1204; Maro Venn"),
        "{prompt}"
    );

    let metrics = renderer.metrics_text();
    assert!(
        metrics.contains("fabula_lwm_renders_attempted_total 2\n"),
        "{metrics}"
    );
    assert!(
        metrics.contains("fabula_lwm_renders_accepted_total 2\n"),
        "{metrics}"
    );
    assert!(
        metrics.contains("fabula_lwm_cache_hits_total 1\n"),
        "{metrics}"
    );
}

#[test]
fn controls_and_seed_are_part_of_the_cache_key() {
    let world = fixtures::world();
    let good = format!("[1] {KEST}\nTitle: Kest\nSnippet: A city.\nDate: N/A\n");
    let (mut renderer, prompts) = scripted(&[&good, &good, &good]);
    let template = fixtures::search_template();
    let mut session = Session::default();
    let queries = queries();
    for (hiding, instruction) in [
        (Hiding::Partial, ""),
        (Hiding::Strict, ""),
        (Hiding::Partial, "Show only the first result."),
        (Hiding::Partial, ""),
    ] {
        let controls = Controls {
            hiding,
            instruction: instruction.to_string(),
        };
        let request = SearchRequest {
            queries: &queries,
            controls: &controls,
            template: &template,
        };
        renderer.render_search(&world, &mut session, &request);
    }
    let prompts = prompts.lock().unwrap();
    assert_eq!(prompts.len(), 3);
    assert!(prompts[2].contains("Show only the first result."));
    assert_eq!(renderer.counters().snapshot().cache_hits, 1);
}

#[test]
fn rejected_renders_report_their_reason() {
    let world = fixtures::world();
    let leak = format!("[1] {KEST}\nTitle: Kest\nSnippet: Founded in 1204.\nDate: N/A\n");
    let (mut renderer, _) = scripted(&["not a result list", &leak]);
    let template = fixtures::search_template();
    let mut session = Session::default();
    let queries = queries();
    let controls = Controls::default();
    let strict = Controls {
        hiding: Hiding::Strict,
        ..Controls::default()
    };
    for (controls, reason) in [
        (&controls, FallbackReason::Unparsable),
        (&strict, FallbackReason::HiddenValueLeak),
    ] {
        let request = SearchRequest {
            queries: &queries,
            controls,
            template: &template,
        };
        let observation = renderer.render_search(&world, &mut session, &request);
        assert_eq!(observation.fallback_reason, Some(reason));
        assert_eq!(observation.text, template);
        assert!(observation.fallback_detail.is_some());
    }
    let snapshot = renderer.counters().snapshot();
    assert_eq!(snapshot.fidelity(), 0.0);
    let metrics = renderer.metrics_text();
    assert!(metrics.contains("fabula_lwm_fallbacks_total{reason=\"unparsable\"} 1\n"));
    assert!(metrics.contains("fabula_lwm_fallbacks_total{reason=\"hidden_value_leak\"} 1\n"));
}

#[test]
fn model_errors_and_time_budgets_fall_back() {
    let world = fixtures::world();
    let prompts = Arc::new(Mutex::new(Vec::new()));
    let generator = Scripted {
        replies: vec![
            Err("out of memory".to_string()),
            Ok(("[1] ".to_string(), FinishReason::TimeBudget)),
        ],
        prompts,
    };
    let mut renderer = Renderer::new(Some(Box::new(generator)), RenderConfig::default());
    let template = fixtures::search_template();
    let mut session = Session::default();
    let queries = queries();
    let controls = Controls::default();
    let request = SearchRequest {
        queries: &queries,
        controls: &controls,
        template: &template,
    };
    let first = renderer.render_search(&world, &mut session, &request);
    assert_eq!(first.fallback_reason, Some(FallbackReason::ModelError));
    // Errors are not cached: the next call generates again and runs out of time.
    let second = renderer.render_search(&world, &mut session, &request);
    assert_eq!(second.fallback_reason, Some(FallbackReason::TimeBudget));
}

#[test]
fn extracts_are_checked_against_the_session() {
    let world = fixtures::world();
    let page = "# Kest\n\nKest is a river city-state founded by Maro Venn.\n";
    let (mut renderer, prompts) = scripted(&[page, page]);
    let controls = Controls::default();
    let template = world.pages[KEST].body.clone();
    let request = ExtractRequest {
        url: KEST,
        controls: &controls,
        template: &template,
    };
    // A fresh session has seen nothing: the true page is accepted.
    let fresh = renderer.render_extract(&world, &Session::default(), &request);
    assert_eq!(fresh.rendered_by, RenderedBy::Lwm, "{fresh:?}");

    // After a snippet stated the population, the same page (from the cache) disagrees with it.
    let mut session = Session::default();
    session.record_search(&format!(
        "[1] {KEST}\nTitle: Kest\nSnippet: Kest had 12,345 people in 1410.\nDate: N/A\n"
    ));
    let checked = renderer.render_extract(&world, &session, &request);
    assert_eq!(
        checked.fallback_reason,
        Some(FallbackReason::ContradictsEarlierSnippet)
    );
    assert_eq!(checked.text, template);
    assert_eq!(prompts.lock().unwrap().len(), 1);
    assert!(prompts.lock().unwrap()[0].contains("Page source (Markdown):\n# Kest"));
}

#[test]
fn without_a_model_or_a_page_the_template_is_used_uncounted() {
    let world = fixtures::world();
    let mut renderer = Renderer::new(None, RenderConfig::default());
    let template = fixtures::search_template();
    let controls = Controls::default();
    let queries = queries();
    let mut session = Session::default();
    let request = SearchRequest {
        queries: &queries,
        controls: &controls,
        template: &template,
    };
    let observation = renderer.render_search(&world, &mut session, &request);
    assert_eq!(observation.rendered_by, RenderedBy::Template);
    assert_eq!(observation.fallback_reason, None);
    assert_eq!(renderer.counters().snapshot().attempted, 0);

    // With a model, an error observation or a missing page is not the model's to render.
    let (mut renderer, prompts) = scripted(&[]);
    let error = "Error 429: too many requests";
    let request = SearchRequest {
        template: error,
        ..request
    };
    assert_eq!(
        renderer.render_search(&world, &mut session, &request).text,
        error
    );
    let missing = ExtractRequest {
        url: "https://w-test.fab/wiki/Nowhere",
        controls: &controls,
        template: "Error 404: no such page",
    };
    let observation = renderer.render_extract(&world, &session, &missing);
    assert_eq!(observation.text, "Error 404: no such page");
    assert!(prompts.lock().unwrap().is_empty());
    assert_eq!(renderer.counters().snapshot().attempted, 0);
}
