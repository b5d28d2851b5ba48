//! Token generation with a loaded [`Model`]: KV-cached decoding with greedy or seeded top-p
//! sampling, stop tokens and a time budget, and the greedy continuation `fabula wm generate`
//! prints. Built with the crate's `model` feature.

use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::{Error, Result};
use crate::generate::{FinishReason, GenerateOptions, Generation};
use crate::model::Model;

impl Model {
    /// Generates a continuation of `prompt` (already in the chat template, see
    /// [`crate::chat_prompt`]).
    pub fn generate(&mut self, prompt: &str, options: &GenerateOptions) -> Result<Generation> {
        let started = Instant::now();
        let prompt_ids = self.encode(prompt)?;
        if prompt_ids.is_empty() {
            return Err(Error::Unsupported(
                "an empty prompt cannot be continued".into(),
            ));
        }
        let context = self.context();
        if context > 0 && prompt_ids.len() + options.max_new_tokens > context {
            return Err(Error::PromptTooLong {
                prompt_tokens: prompt_ids.len(),
                max_new_tokens: options.max_new_tokens,
                context,
            });
        }
        let stop_ids: Vec<u32> = options
            .stop_tokens
            .iter()
            .filter_map(|token| self.tokenizer.token_to_id(token))
            .collect();
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        self.clear_cache();
        let mut logits = self.forward_logits(&prompt_ids, 0)?;
        let mut position = prompt_ids.len();
        let mut tokens = Vec::new();
        let finish = loop {
            if tokens.len() >= options.max_new_tokens {
                break FinishReason::MaxTokens;
            }
            if options
                .time_budget
                .is_some_and(|budget| started.elapsed() > budget)
            {
                break FinishReason::TimeBudget;
            }
            let next = sample(&logits, options.temperature, options.top_p, &mut rng);
            if stop_ids.contains(&next) {
                break FinishReason::Stop;
            }
            tokens.push(next);
            logits = self.forward_logits(&[next], position)?;
            position += 1;
        };
        self.clear_cache();
        let text = self.decode(&tokens)?;
        Ok(Generation {
            text,
            tokens,
            seconds: started.elapsed().as_secs_f64(),
            finish,
        })
    }
}

/// A greedy continuation of token ids ([`Model::greedy`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Greedy {
    /// The generated token ids, exactly as many as asked for (no stop token ends them).
    pub tokens: Vec<u32>,
    /// The logits each token was chosen from (the last prompt position's after one prefill,
    /// then each single-token decode step's); empty unless asked for.
    pub logits: Vec<Vec<f32>>,
    /// Seconds of the prefill (the whole prompt in one forward pass).
    pub prefill_seconds: f64,
    /// Seconds of the decode steps after it.
    pub decode_seconds: f64,
}

impl Model {
    /// Continues `prompt_ids` greedily (arg-max, ties to the lower id) for exactly
    /// `max_new_tokens` tokens: one prefill of the prompt, then one forward pass per token, as a
    /// check that a checkpoint loads and generates (`fabula wm generate`) and for comparing
    /// with a reference implementation. `keep_logits` keeps every step's logits.
    pub fn greedy(
        &mut self,
        prompt_ids: &[u32],
        max_new_tokens: usize,
        keep_logits: bool,
    ) -> Result<Greedy> {
        if prompt_ids.is_empty() {
            return Err(Error::Unsupported(
                "an empty prompt cannot be continued".into(),
            ));
        }
        if let Some(&bad) = prompt_ids
            .iter()
            .find(|&&id| id as usize >= self.vocab_size())
        {
            return Err(Error::Unsupported(format!(
                "token id {bad} is outside the vocabulary of {} ids",
                self.vocab_size()
            )));
        }
        let context = self.context();
        if context > 0 && prompt_ids.len() + max_new_tokens > context {
            return Err(Error::PromptTooLong {
                prompt_tokens: prompt_ids.len(),
                max_new_tokens,
                context,
            });
        }
        self.clear_cache();
        let started = Instant::now();
        let mut logits = self.forward_logits(prompt_ids, 0)?;
        let prefill_seconds = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let mut tokens = Vec::with_capacity(max_new_tokens);
        let mut kept = Vec::new();
        while tokens.len() < max_new_tokens {
            let next = argmax(&logits);
            tokens.push(next);
            if keep_logits {
                kept.push(std::mem::take(&mut logits));
            }
            if tokens.len() < max_new_tokens {
                logits = self.forward_logits(&[next], prompt_ids.len() + tokens.len() - 1)?;
            }
        }
        let decode_seconds = started.elapsed().as_secs_f64();
        self.clear_cache();
        Ok(Greedy {
            tokens,
            logits: kept,
            prefill_seconds,
            decode_seconds,
        })
    }
}

/// Picks the next token: the arg-max when `temperature <= 0`, else a draw from the top-p nucleus
/// of `softmax(logits / temperature)`. Ties go to the lower token id, so results never depend on
/// sort stability or hash order.
pub(crate) fn sample(logits: &[f32], temperature: f64, top_p: f64, rng: &mut ChaCha8Rng) -> u32 {
    if temperature <= 0.0 {
        return argmax(logits);
    }
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut probs: Vec<(u32, f64)> = logits
        .iter()
        .enumerate()
        .map(|(idx, &logit)| (idx as u32, ((f64::from(logit - max)) / temperature).exp()))
        .collect();
    let total: f64 = probs.iter().map(|p| p.1).sum();
    for p in &mut probs {
        p.1 /= total;
    }
    probs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut kept = 0;
    let mut mass = 0.0;
    for p in &probs {
        kept += 1;
        mass += p.1;
        if mass >= top_p {
            break;
        }
    }
    let nucleus = &probs[..kept];
    let mut draw = rng.random::<f64>() * mass;
    for &(token, prob) in nucleus {
        if draw < prob {
            return token;
        }
        draw -= prob;
    }
    nucleus[kept - 1].0
}

fn argmax(logits: &[f32]) -> u32 {
    let mut best = 0;
    for (idx, &logit) in logits.iter().enumerate() {
        if logit > logits[best] {
            best = idx;
        }
    }
    best as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_takes_the_first_maximum() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(sample(&[0.1, 3.0, 3.0, -1.0], 0.0, 1.0, &mut rng), 1);
    }

    #[test]
    fn tiny_top_p_is_greedy() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..20 {
            assert_eq!(sample(&[0.0, 5.0, 1.0], 1.0, 0.01, &mut rng), 1);
        }
    }

    #[test]
    fn sampling_is_seeded() {
        let logits: Vec<f32> = (0..50).map(|i| (i % 7) as f32 * 0.3).collect();
        let draw = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..30)
                .map(|_| sample(&logits, 1.0, 0.9, &mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(3), draw(3));
        assert_ne!(draw(3), draw(4));
    }
}
