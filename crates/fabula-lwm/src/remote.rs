//! A world model served elsewhere: any OpenAI-compatible chat completions endpoint (vLLM,
//! SGLang, llama.cpp's server, `transformers serve`) as the renderer's [`Generator`], so a model
//! too large for this process (the seed's 35B world model on its own GPUs) renders observations
//! through the same verification, hiding and fallback as a local one.
//!
//! One render is one `POST {url}/v1/chat/completions` with the system and user messages the
//! local model would get (the engine applies its own chat template), `max_tokens`,
//! `temperature`, `top_p` and `seed` from the renderer's [`GenerateOptions`]. The answer's
//! `choices[0].message.content` is the text; `finish_reason` `length` is [`FinishReason::MaxTokens`].
//!
//! - **Time.** Every attempt shares the render's time budget (`GenerateOptions::time_budget`,
//!   else [`DEFAULT_TIMEOUT`]): a render that runs out of it is an [`Error::Remote`], and the
//!   renderer shows the template text.
//! - **Retries.** A 429 or 503 answer (the engine is busy or loading) is retried after
//!   [`BACKOFF`] doubling, at most [`MAX_RETRIES`] times, within the budget; any other failure
//!   (a refused connection, a 4xx, an answer that is not a completion) falls back at once, and
//!   the next render tries the engine again, so renders recover when an engine comes back.
//! - **Cool-down.** An engine that gave no answer at all (the connection refused, cut or timed
//!   out) is skipped for [`COOLDOWN`]: renders meanwhile fail at once (the template shows), so
//!   a stalled engine costs one render's budget rather than every queued render's (renders take
//!   turns, below). The first render after it asks the engine again. An engine that answers,
//!   even with an error, is never skipped.
//! - **Concurrency.** The renderer holds one engine behind its lock: one request at a time per
//!   server, which bounds what fabula asks of an engine by construction.
//!
//! ureq (blocking, no TLS) is the client: renders already run on a blocking thread.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::error::{Error, RemoteFailure, Result};
use crate::generate::{FinishReason, GenerateOptions, Generation};
use crate::render::Generator;

/// The time a render may take when its options set no budget.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The wait before the first retry of a busy engine; each further retry waits twice as long.
pub const BACKOFF: Duration = Duration::from_millis(250);
/// The most retries of one render.
pub const MAX_RETRIES: usize = 3;
/// How long renders skip an engine that gave no answer ([`RemoteEngine::with_cooldown`]).
pub const COOLDOWN: Duration = Duration::from_secs(5);

/// Where the engine is and which of its models renders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteOptions {
    /// The engine's base URL (`http://127.0.0.1:8000`, with or without a final `/v1`).
    pub url: String,
    /// The model name the engine serves (`model` in the request).
    pub model: String,
}

/// An OpenAI-compatible chat completions endpoint as a [`Generator`].
pub struct RemoteEngine {
    endpoint: String,
    model: String,
    agent: ureq::Agent,
    cooldown: Duration,
    /// When the engine last gave no answer at all, while that is within `cooldown`.
    failed_at: Option<Instant>,
}

/// What one request got.
enum Attempt {
    /// A completion.
    Answer(Value),
    /// 429 or 503: worth retrying.
    Busy(u16),
}

/// Why a request got no completion.
enum Failure {
    /// No answer: the connection was refused, cut or timed out.
    NoAnswer(RemoteFailure, String),
    /// An answer that is not a completion.
    Refused(String),
}

impl std::fmt::Debug for RemoteEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteEngine")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl RemoteEngine {
    /// An engine at `options.url`; nothing is sent until the first render. A URL that is not
    /// `http://` is refused (no TLS here: put the engine on a private network or a tunnel).
    pub fn new(options: &RemoteOptions) -> Result<RemoteEngine> {
        let base = options.url.trim().trim_end_matches('/');
        if !base.starts_with("http://") {
            return Err(Error::Unsupported(format!(
                "world model URL `{}`: only http:// is supported",
                options.url
            )));
        }
        if options.model.trim().is_empty() {
            return Err(Error::Unsupported(
                "a remote world model needs the name its engine serves it under".into(),
            ));
        }
        let base = base.strip_suffix("/v1").unwrap_or(base);
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .proxy(None)
            .build()
            .into();
        Ok(RemoteEngine {
            endpoint: format!("{base}/v1/chat/completions"),
            model: options.model.trim().to_owned(),
            agent,
            cooldown: COOLDOWN,
            failed_at: None,
        })
    }

    /// Skips the engine for `cooldown` after it gave no answer ([`COOLDOWN`] by default; zero
    /// never skips).
    pub fn with_cooldown(mut self, cooldown: Duration) -> RemoteEngine {
        self.cooldown = cooldown;
        self
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    fn request_body(&self, system: &str, user: &str, options: &GenerateOptions) -> Value {
        json!({
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "max_tokens": options.max_new_tokens,
            "temperature": options.temperature.max(0.0),
            "top_p": options.top_p,
            "seed": options.seed,
            "stream": false,
        })
    }

    /// One request within `left`.
    fn attempt(&self, body: &str, left: Duration) -> Result<Attempt, Failure> {
        let mut response = self
            .agent
            .post(&self.endpoint)
            .config()
            .timeout_global(Some(left))
            .build()
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .send(body)
            .map_err(|e| no_answer(&e, "request failed"))?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| no_answer(&e, "reading the answer"))?;
        if status == 429 || status == 503 {
            return Ok(Attempt::Busy(status));
        }
        if !(200..300).contains(&status) {
            let text: String = text.chars().take(300).collect();
            return Err(Failure::Refused(format!("HTTP {status}: {text}")));
        }
        serde_json::from_str(&text)
            .map(Attempt::Answer)
            .map_err(|e| Failure::Refused(format!("the answer is not JSON: {e}")))
    }

    /// The request's answer within `budget`, retrying a busy engine; a request that gets no
    /// answer at all starts the cool-down.
    fn answer(&mut self, body: &str, budget: Duration) -> Result<Value> {
        let started = Instant::now();
        if let Some(failed_at) = self.failed_at {
            if failed_at.elapsed() < self.cooldown {
                return Err(self.error(
                    RemoteFailure::Unavailable,
                    format!(
                        "skipped: no answer {:.1} s ago; asked again {:?} after that",
                        failed_at.elapsed().as_secs_f64(),
                        self.cooldown
                    ),
                ));
            }
            self.failed_at = None;
        }
        let mut wait = BACKOFF;
        let mut retries = 0;
        loop {
            let left = budget.saturating_sub(started.elapsed());
            if left.is_zero() {
                self.failed_at = Some(Instant::now());
                return Err(self.error(
                    RemoteFailure::OutOfTime,
                    format!("no answer within {budget:?}"),
                ));
            }
            match self.attempt(body, left) {
                Ok(Attempt::Answer(answer)) => return Ok(answer),
                Ok(Attempt::Busy(_))
                    if retries < MAX_RETRIES && started.elapsed() + wait < budget =>
                {
                    retries += 1;
                    std::thread::sleep(wait);
                    wait *= 2;
                }
                Ok(Attempt::Busy(status)) => {
                    return Err(self.error(
                        RemoteFailure::BadAnswer,
                        format!("HTTP {status} after {retries} retries: the engine is busy"),
                    ));
                }
                Err(Failure::NoAnswer(kind, message)) => {
                    self.failed_at = Some(Instant::now());
                    return Err(self.error(kind, message));
                }
                Err(Failure::Refused(message)) => {
                    return Err(self.error(RemoteFailure::BadAnswer, message));
                }
            }
        }
    }

    fn error(&self, kind: RemoteFailure, message: String) -> Error {
        Error::Remote {
            endpoint: self.endpoint.clone(),
            kind,
            message,
        }
    }
}

/// A request that got no answer: out of time when the client timed it out, else unavailable.
fn no_answer(error: &ureq::Error, doing: &str) -> Failure {
    let kind = match error {
        ureq::Error::Timeout(_) => RemoteFailure::OutOfTime,
        _ => RemoteFailure::Unavailable,
    };
    Failure::NoAnswer(kind, format!("{doing}: {error}"))
}

impl Generator for RemoteEngine {
    /// A prompt already in a chat template is sent as one user message; the renderer sends
    /// [`Generator::generate_chat`]'s messages instead.
    fn generate(&mut self, prompt: &str, options: &GenerateOptions) -> Result<Generation> {
        self.generate_chat("", prompt, options)
    }

    fn generate_chat(
        &mut self,
        system: &str,
        user: &str,
        options: &GenerateOptions,
    ) -> Result<Generation> {
        let started = Instant::now();
        let budget = options.time_budget.unwrap_or(DEFAULT_TIMEOUT);
        let body = self.request_body(system, user, options).to_string();
        let answer = self.answer(&body, budget)?;
        let choice = &answer["choices"][0];
        let Some(text) = choice["message"]["content"].as_str() else {
            return Err(self.error(
                RemoteFailure::BadAnswer,
                "the answer holds no choices[0].message.content".into(),
            ));
        };
        let finish = match choice["finish_reason"].as_str() {
            Some("length") => FinishReason::MaxTokens,
            _ => FinishReason::Stop,
        };
        // The engine's token ids are not sent back; the count is, in `usage`.
        let n_tokens = answer["usage"]["completion_tokens"]
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0);
        Ok(Generation {
            text: text.to_owned(),
            tokens: vec![0; n_tokens],
            seconds: started.elapsed().as_secs_f64(),
            finish,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(url: &str) -> Result<RemoteEngine> {
        RemoteEngine::new(&RemoteOptions {
            url: url.to_owned(),
            model: "agentworld".to_owned(),
        })
    }

    #[test]
    fn the_endpoint_is_the_chat_completions_route_of_the_base_url() {
        for url in [
            "http://127.0.0.1:8000",
            "http://127.0.0.1:8000/",
            "http://127.0.0.1:8000/v1",
            "http://127.0.0.1:8000/v1/",
        ] {
            assert_eq!(
                engine(url).unwrap().endpoint(),
                "http://127.0.0.1:8000/v1/chat/completions"
            );
        }
        assert!(engine("https://example.org").is_err());
        assert!(
            RemoteEngine::new(&RemoteOptions {
                url: "http://127.0.0.1:1".into(),
                model: " ".into()
            })
            .is_err()
        );
    }

    #[test]
    fn the_request_carries_the_messages_and_the_options() {
        let engine = engine("http://127.0.0.1:8000").unwrap();
        let options = GenerateOptions {
            max_new_tokens: 64,
            seed: 9,
            ..GenerateOptions::default()
        };
        let body = engine.request_body("sys", "usr", &options);
        assert_eq!(body["model"], "agentworld");
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": "sys"})
        );
        assert_eq!(
            body["messages"][1],
            json!({"role": "user", "content": "usr"})
        );
        assert_eq!(
            (&body["max_tokens"], &body["seed"], &body["temperature"]),
            (&json!(64), &json!(9), &json!(0.0))
        );
    }
}
