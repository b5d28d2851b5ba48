//! What a generation asks for and gives back, whoever generates (a local model's decoding in
//! `decode.rs`, a remote engine): options, the finish reason, the text and tokens.

use std::time::Duration;

/// The stop tokens of Qwen3 chat models.
pub const QWEN3_STOP_TOKENS: [&str; 2] = ["<|im_end|>", "<|endoftext|>"];

/// How to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateOptions {
    /// The most tokens to generate.
    pub max_new_tokens: usize,
    /// 0 (or below) decodes greedily; above 0 samples from the softened distribution.
    pub temperature: f64,
    /// Nucleus sampling: sample only from the smallest set of tokens whose probability reaches
    /// this mass. 1.0 keeps every token.
    pub top_p: f64,
    /// The seed of the ChaCha sampler; the same seed and prompt give the same text.
    pub seed: u64,
    /// Tokens that end generation; unknown ones are ignored.
    pub stop_tokens: Vec<String>,
    /// Stop after this much wall-clock time (measured from the start, prefill included).
    pub time_budget: Option<Duration>,
}

impl Default for GenerateOptions {
    /// Greedy decoding of up to 512 tokens with Qwen3's stop tokens and no time budget.
    fn default() -> GenerateOptions {
        GenerateOptions {
            max_new_tokens: 512,
            temperature: 0.0,
            top_p: 1.0,
            seed: 0,
            stop_tokens: QWEN3_STOP_TOKENS.iter().map(|s| s.to_string()).collect(),
            time_budget: None,
        }
    }
}

/// Why generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishReason {
    /// A stop token was produced.
    Stop,
    /// `max_new_tokens` were produced.
    MaxTokens,
    /// The time budget ran out.
    TimeBudget,
}

/// The result of one generation.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    /// The decoded text of the generated tokens, special tokens removed.
    pub text: String,
    /// The generated token ids, the stop token excluded.
    pub tokens: Vec<u32>,
    /// Wall-clock seconds spent, prefill included.
    pub seconds: f64,
    pub finish: FinishReason,
}
