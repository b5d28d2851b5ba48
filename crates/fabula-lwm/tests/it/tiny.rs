//! The tiny checkpoint writer: deterministic, standard layout, special tokens, loadable.

use fabula_lwm::{Architecture, LoadOptions, Model, TINY_SPECIAL_TOKENS, write_tiny};

use crate::fixtures;

fn files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    ["config.json", "model.safetensors", "tokenizer.json"]
        .iter()
        .map(|name| (name.to_string(), std::fs::read(dir.join(name)).unwrap()))
        .collect()
}

#[test]
fn same_seed_gives_identical_files() {
    let corpus = fixtures::corpus(&fixtures::world());
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let c = tempfile::tempdir().unwrap();
    write_tiny(a.path(), 42, &corpus).unwrap();
    write_tiny(b.path(), 42, &corpus).unwrap();
    write_tiny(c.path(), 43, &corpus).unwrap();
    assert_eq!(files(a.path()), files(b.path()));
    let (fa, fc) = (files(a.path()), files(c.path()));
    assert_eq!(fa[2], fc[2], "the tokenizer depends on the corpus only");
    assert_ne!(fa[1], fc[1], "the weights depend on the seed");
}

#[test]
fn tiny_checkpoint_has_the_standard_layout() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny(dir.path(), 1, &fixtures::corpus(&fixtures::world())).unwrap();
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("config.json")).unwrap())
            .unwrap();
    assert_eq!(config["architectures"][0], "Qwen3ForCausalLM");
    assert_eq!(config["hidden_size"], 64);
    assert_eq!(config["num_hidden_layers"], 2);
    assert_eq!(config["num_attention_heads"], 4);
    assert_eq!(config["num_key_value_heads"], 2);
    assert_eq!(config["head_dim"], 16);

    let bytes = std::fs::read(dir.path().join("model.safetensors")).unwrap();
    let tensors = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let mut names = tensors.names();
    names.sort();
    assert!(names.contains(&"model.embed_tokens.weight"));
    assert!(names.contains(&"model.layers.1.self_attn.k_norm.weight"));
    assert!(names.contains(&"model.layers.0.mlp.down_proj.weight"));
    assert!(names.contains(&"lm_head.weight"));
    assert_eq!(names.len(), 3 + 2 * 11);

    let model = Model::load(dir.path(), &LoadOptions::default()).unwrap();
    assert_eq!(model.architecture(), Architecture::Qwen3);
    let vocab = config["vocab_size"].as_u64().unwrap() as usize;
    assert_eq!(model.vocab_size(), vocab);
    assert_eq!(model.tokenizer().get_vocab_size(true), vocab);
    assert!(vocab > 261, "the BPE trainer learned merges");
}

#[test]
fn special_tokens_are_single_special_tokens() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny(dir.path(), 1, &fixtures::corpus(&fixtures::world())).unwrap();
    let model = Model::load(dir.path(), &LoadOptions::default()).unwrap();
    for (id, token) in TINY_SPECIAL_TOKENS.iter().enumerate() {
        let ids = model.encode(&format!("a{token}b")).unwrap();
        assert!(ids.contains(&(id as u32)), "{token}: {ids:?}");
        assert_eq!(
            model.decode(&[id as u32]).unwrap(),
            "",
            "{token} is special"
        );
    }
    let text = "Kest was founded in 1204 by Maro Venn.";
    let ids = model.encode(text).unwrap();
    assert_eq!(model.decode(&ids).unwrap(), text);
}
