//! `dict_memory`, the third tool of Qwen-AgentWorld's search environment: a key-value notebook
//! an agent keeps for the length of a session, with the seed's six operations and its answers.
//!
//! | operation | arguments | answer |
//! |---|---|---|
//! | `add` | `dict` | `Successfully added items of ['a', 'b'] to memory.` |
//! | `update` | `dict` | `Successfully updated items of ['a'] in memory.` |
//! | `retrieve` | `key_list` | the pairs found, as a JSON object; `Key not found: ['x']` for the others |
//! | `retrieve_all` | none | every pair, as a JSON object (`{}` when empty) |
//! | `remove` | `key_list` | `Successfully removed items of ['a'] from memory.`, or `Key not found: ['x']` and nothing removed |
//! | `remove_all` | none | `Successfully cleared all memory.` |
//!
//! `add` and `update` both set every pair given, as a Python `dict.update` does; only their
//! answers differ. Keys are listed as Python writes a list of strings, since the seed's
//! environment is Python, in sorted order (the JSON object's own order is not kept; the seed's
//! Python keeps insertion order). A key that is not found is an answer, not an error: the agent reads it
//! and goes on. Bad arguments are 400 `bad_request`.
//!
//! Memory is bounded by construction: a session keeps at most [`MAX_ITEMS`] pairs and
//! [`MAX_BYTES`] bytes (each key's length plus its value's compact JSON plus
//! [`ITEM_OVERHEAD_BYTES`]), and all sessions together at most [`TOTAL_BYTES`]; a write past
//! either bound changes nothing and answers 409 `memory_full`. A session's bytes are given
//! back when it is dropped.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::api_error::{ApiError, ErrorCode};

/// The most pairs one session's memory keeps.
pub const MAX_ITEMS: usize = 1_000;
/// The most bytes one session's memory keeps.
pub const MAX_BYTES: usize = 256 << 10;
/// The most bytes all sessions' memories keep together.
pub const TOTAL_BYTES: usize = 64 << 20;
/// The bytes a pair is counted for beyond its key and value: its slot in the map.
pub const ITEM_OVERHEAD_BYTES: usize = 64;
/// The longest key, in characters.
pub const MAX_KEY_CHARS: usize = 256;

/// What `dict_memory` does: `add` and `update` store every pair of `dict`, `retrieve` reads
/// the pairs of the keys in `key_list`, `retrieve_all` every pair, `remove` forgets the pairs
/// of the keys in `key_list` (all of them must be kept) and `remove_all` every pair.
// No doc comment on a variant, so the schema is a plain `enum` that every client reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub enum Operation {
    Add,
    Update,
    Retrieve,
    RetrieveAll,
    Remove,
    RemoveAll,
}

/// The arguments of `dict_memory`. Two schemas derive from it: MCP's (`schemars`) and the REST
/// document's (`utoipa`, which the document narrows to the fields each operation takes).
#[derive(Debug, Clone, Deserialize, JsonSchema, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DictMemoryArgs {
    /// `add`, `update`, `retrieve`, `retrieve_all`, `remove` or `remove_all`.
    pub operation: Operation,
    /// The pairs to store, for `add` and `update`.
    #[serde(default)]
    #[schemars(with = "Map<String, Value>")]
    #[schema(value_type = Option<Object>)]
    pub dict: Option<Map<String, Value>>,
    /// The keys to read or forget, for `retrieve` and `remove`.
    #[serde(default)]
    #[schemars(with = "Vec<String>", length(min = 1))]
    #[schema(min_items = 1)]
    pub key_list: Option<Vec<String>>,
}

/// What each operation takes, as a JSON Schema `oneOf` to add beside [`DictMemoryArgs`]'s own
/// schema: `dict` (at least one pair, at most [`MAX_ITEMS`], keys of at most
/// [`MAX_KEY_CHARS`] characters) for `add` and `update`, `key_list` for `retrieve` and
/// `remove`, neither for `retrieve_all` and `remove_all`; a `null` counts as not given. The REST
/// document and the episode API's action schema carry it, so a request their schemas allow is
/// one the tool takes; MCP's tool list leaves it out (several clients read no top-level
/// `oneOf`) and the tool answers 400 instead.
pub fn by_operation() -> Value {
    let dict = json!({
        "type": "object",
        "minProperties": 1,
        "maxProperties": MAX_ITEMS,
        "propertyNames": { "maxLength": MAX_KEY_CHARS }
    });
    let keys = json!({ "type": "array", "minItems": 1 });
    let absent = json!({ "type": "null" });
    json!([
        {
            "required": ["operation", "dict"],
            "properties": { "operation": { "enum": ["add", "update"] }, "dict": dict, "key_list": absent }
        },
        {
            "required": ["operation", "key_list"],
            "properties": { "operation": { "enum": ["retrieve", "remove"] }, "key_list": keys, "dict": absent }
        },
        {
            "required": ["operation"],
            "properties": {
                "operation": { "enum": ["retrieve_all", "remove_all"] }, "dict": absent, "key_list": absent
            }
        }
    ])
}

/// One session's memory, within the bounds of the module docs.
#[derive(Debug)]
pub(crate) struct DictMemory {
    items: BTreeMap<String, Value>,
    n_bytes: usize,
    /// The bytes kept by every session's memory; this one's share is given back on drop.
    all_bytes: Arc<AtomicUsize>,
}

/// A `dict_memory` answer: the text an agent reads and the same answer as JSON.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MemoryAnswer {
    pub text: String,
    pub structured: Value,
}

impl DictMemory {
    pub(crate) fn new(all_bytes: Arc<AtomicUsize>) -> DictMemory {
        DictMemory {
            items: BTreeMap::new(),
            n_bytes: 0,
            all_bytes,
        }
    }

    /// Runs one operation. Bad arguments are `bad_request`; a write past a bound is
    /// `memory_full` and changes nothing.
    pub(crate) fn run(&mut self, args: DictMemoryArgs) -> Result<MemoryAnswer, ApiError> {
        let op = args.operation;
        let wants_dict = matches!(op, Operation::Add | Operation::Update);
        let wants_keys = matches!(op, Operation::Retrieve | Operation::Remove);
        let name = operation_name(op);
        if args.dict.is_some() && !wants_dict {
            return Err(bad(format!("`{name}` takes no `dict`")));
        }
        if args.key_list.is_some() && !wants_keys {
            return Err(bad(format!("`{name}` takes no `key_list`")));
        }
        match op {
            Operation::Add | Operation::Update => {
                let Some(dict) = args.dict else {
                    return Err(bad(format!("`{name}` needs `dict`, the pairs to store")));
                };
                self.set(op, dict)
            }
            Operation::Retrieve | Operation::Remove => {
                let Some(keys) = args.key_list else {
                    return Err(bad(format!("`{name}` needs `key_list`, the keys")));
                };
                if keys.is_empty() {
                    return Err(bad(format!("`{name}` needs at least one key")));
                }
                Ok(if op == Operation::Retrieve {
                    self.retrieve(&keys)
                } else {
                    self.remove(&keys)
                })
            }
            Operation::RetrieveAll => {
                let all: Map<String, Value> = self.items.clone().into_iter().collect();
                Ok(MemoryAnswer {
                    text: Value::Object(all.clone()).to_string(),
                    structured: json!({ "operation": name, "found": all, "missing": [] }),
                })
            }
            Operation::RemoveAll => {
                let keys: Vec<String> = self.items.keys().cloned().collect();
                self.items.clear();
                self.give_back(self.n_bytes);
                self.n_bytes = 0;
                Ok(MemoryAnswer {
                    text: "Successfully cleared all memory.".to_owned(),
                    structured: json!({ "operation": name, "keys": keys }),
                })
            }
        }
    }

    /// The pairs kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    fn set(&mut self, op: Operation, dict: Map<String, Value>) -> Result<MemoryAnswer, ApiError> {
        let name = operation_name(op);
        if dict.is_empty() {
            return Err(bad(format!("`{name}` needs at least one pair in `dict`")));
        }
        if let Some(key) = dict.keys().find(|k| k.chars().count() > MAX_KEY_CHARS) {
            return Err(bad(format!(
                "a key of {} characters; keys hold at most {MAX_KEY_CHARS}",
                key.chars().count()
            )));
        }
        // The bytes and pairs the memory would hold, counted from the pairs that change only.
        let mut n_bytes = self.n_bytes;
        let mut n_items = self.items.len();
        for (key, value) in &dict {
            match self.items.get(key) {
                Some(old) => n_bytes -= item_bytes(key, old),
                None => n_items += 1,
            }
            n_bytes += item_bytes(key, value);
        }
        if n_items > MAX_ITEMS || n_bytes > MAX_BYTES {
            return Err(full(format!(
                "this session's memory would hold {n_items} pairs and {n_bytes} bytes; it keeps \
                 at most {MAX_ITEMS} pairs and {MAX_BYTES} bytes: remove some first"
            )));
        }
        if n_bytes > self.n_bytes && !self.reserve(n_bytes - self.n_bytes) {
            return Err(full(format!(
                "the server's memories together keep at most {TOTAL_BYTES} bytes"
            )));
        }
        self.give_back(self.n_bytes.saturating_sub(n_bytes));
        self.n_bytes = n_bytes;
        let keys: Vec<String> = dict.keys().cloned().collect();
        self.items.extend(dict);
        let text = match op {
            Operation::Add => format!("Successfully added items of {} to memory.", py_list(&keys)),
            _ => format!(
                "Successfully updated items of {} in memory.",
                py_list(&keys)
            ),
        };
        Ok(MemoryAnswer {
            text,
            structured: json!({ "operation": name, "keys": keys }),
        })
    }

    fn retrieve(&self, keys: &[String]) -> MemoryAnswer {
        let mut found = Map::new();
        let mut missing = Vec::new();
        for key in keys {
            match self.items.get(key) {
                Some(value) => {
                    found.insert(key.clone(), value.clone());
                }
                None if !missing.contains(key) => missing.push(key.clone()),
                None => {}
            }
        }
        let mut text = String::new();
        if !found.is_empty() {
            text.push_str(&Value::Object(found.clone()).to_string());
        }
        if !missing.is_empty() {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!("Key not found: {}", py_list(&missing)));
        }
        MemoryAnswer {
            text,
            structured: json!({ "operation": "retrieve", "found": found, "missing": missing }),
        }
    }

    fn remove(&mut self, keys: &[String]) -> MemoryAnswer {
        let mut missing: Vec<String> = Vec::new();
        for key in keys {
            if !self.items.contains_key(key) && !missing.contains(key) {
                missing.push(key.clone());
            }
        }
        if !missing.is_empty() {
            return MemoryAnswer {
                text: format!("Key not found: {}", py_list(&missing)),
                structured: json!({ "operation": "remove", "keys": [], "missing": missing }),
            };
        }
        for key in keys {
            if let Some(value) = self.items.remove(key) {
                let n_bytes = item_bytes(key, &value);
                self.give_back(n_bytes);
                self.n_bytes -= n_bytes;
            }
        }
        MemoryAnswer {
            text: format!(
                "Successfully removed items of {} from memory.",
                py_list(keys)
            ),
            structured: json!({ "operation": "remove", "keys": keys, "missing": [] }),
        }
    }

    /// Counts `n_bytes` more over all sessions; false (and nothing counted) past the total.
    fn reserve(&self, n_bytes: usize) -> bool {
        self.all_bytes
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |total| {
                total.checked_add(n_bytes).filter(|t| *t <= TOTAL_BYTES)
            })
            .is_ok()
    }

    fn give_back(&self, n_bytes: usize) {
        self.all_bytes.fetch_sub(n_bytes, Ordering::AcqRel);
    }
}

impl Drop for DictMemory {
    fn drop(&mut self) {
        self.give_back(self.n_bytes);
    }
}

fn operation_name(op: Operation) -> &'static str {
    match op {
        Operation::Add => "add",
        Operation::Update => "update",
        Operation::Retrieve => "retrieve",
        Operation::RetrieveAll => "retrieve_all",
        Operation::Remove => "remove",
        Operation::RemoveAll => "remove_all",
    }
}

/// The bytes a pair is counted for (see the module docs).
fn item_bytes(key: &str, value: &Value) -> usize {
    key.len() + value.to_string().len() + ITEM_OVERHEAD_BYTES
}

/// A list of strings as Python's `repr` writes it: `['a', "it's"]`.
fn py_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| py_str(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A string as Python's `repr` writes it: single quotes unless it holds one and no double
/// quote; backslashes, the quote used and control characters escaped.
fn py_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

fn bad(message: String) -> ApiError {
    ApiError::bad_request(format!("bad arguments for `dict_memory`: {message}"))
}

fn full(message: String) -> ApiError {
    ApiError::new(ErrorCode::MemoryFull, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(value: Value) -> DictMemoryArgs {
        serde_json::from_value(value).unwrap()
    }

    fn memory() -> (DictMemory, Arc<AtomicUsize>) {
        let all = Arc::new(AtomicUsize::new(0));
        (DictMemory::new(all.clone()), all)
    }

    #[test]
    fn the_six_operations_answer_as_the_seed_does() {
        let (mut m, _) = memory();
        let add = m
            .run(args(
                json!({"operation": "add", "dict": {"name": "Kest", "year": 1204}}),
            ))
            .unwrap();
        assert_eq!(
            add.text,
            "Successfully added items of ['name', 'year'] to memory."
        );
        let update = m
            .run(args(json!({"operation": "update", "dict": {"year": 1205}})))
            .unwrap();
        assert_eq!(
            update.text,
            "Successfully updated items of ['year'] in memory."
        );
        let got = m
            .run(args(
                json!({"operation": "retrieve", "key_list": ["year", "nope"]}),
            ))
            .unwrap();
        assert_eq!(got.text, "{\"year\":1205}\nKey not found: ['nope']");
        assert_eq!(got.structured["missing"], json!(["nope"]));
        let all = m.run(args(json!({"operation": "retrieve_all"}))).unwrap();
        assert_eq!(all.text, "{\"name\":\"Kest\",\"year\":1205}");
        let refused = m
            .run(args(
                json!({"operation": "remove", "key_list": ["name", "nope"]}),
            ))
            .unwrap();
        assert_eq!(refused.text, "Key not found: ['nope']");
        assert_eq!(m.len(), 2, "nothing removed when a key is missing");
        let removed = m
            .run(args(json!({"operation": "remove", "key_list": ["name"]})))
            .unwrap();
        assert_eq!(
            removed.text,
            "Successfully removed items of ['name'] from memory."
        );
        let cleared = m.run(args(json!({"operation": "remove_all"}))).unwrap();
        assert_eq!(cleared.text, "Successfully cleared all memory.");
        assert_eq!(
            m.run(args(json!({"operation": "retrieve_all"})))
                .unwrap()
                .text,
            "{}"
        );
        let none = m
            .run(args(json!({"operation": "retrieve", "key_list": ["name"]})))
            .unwrap();
        assert_eq!(none.text, "Key not found: ['name']");
    }

    #[test]
    fn bad_arguments_are_bad_requests() {
        let (mut m, _) = memory();
        for bad_args in [
            json!({"operation": "add"}),
            json!({"operation": "add", "dict": {}}),
            json!({"operation": "retrieve"}),
            json!({"operation": "remove", "key_list": []}),
            json!({"operation": "retrieve_all", "key_list": ["a"]}),
            json!({"operation": "remove_all", "dict": {"a": 1}}),
            json!({"operation": "add", "dict": {"k".repeat(MAX_KEY_CHARS + 1): 1}}),
        ] {
            let error = m.run(args(bad_args.clone())).unwrap_err();
            assert_eq!(error.code, ErrorCode::BadRequest, "{bad_args}");
        }
        for unparsable in [
            json!({"operation": "forget"}),
            json!({"operation": "add", "dict": {"a": 1}, "extra": 1}),
            json!({"operation": "retrieve", "key_list": [1]}),
        ] {
            assert!(serde_json::from_value::<DictMemoryArgs>(unparsable).is_err());
        }
    }

    #[test]
    fn memory_stays_within_its_bounds_and_gives_bytes_back() {
        let (mut m, all) = memory();
        let big = "x".repeat(MAX_BYTES / 2);
        m.run(args(json!({"operation": "add", "dict": {"a": big}})))
            .unwrap();
        let kept = all.load(Ordering::Acquire);
        assert!(kept > MAX_BYTES / 2 && kept < MAX_BYTES, "{kept}");
        let error = m
            .run(args(json!({"operation": "add", "dict": {"b": big}})))
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::MemoryFull);
        assert_eq!(m.len(), 1, "a refused write changes nothing");
        assert_eq!(all.load(Ordering::Acquire), kept);
        // Replacing a value counts the new one only.
        m.run(args(json!({"operation": "update", "dict": {"a": "short"}})))
            .unwrap();
        assert!(all.load(Ordering::Acquire) < 100);
        let many: Map<String, Value> = (0..=MAX_ITEMS).map(|i| (i.to_string(), json!(i))).collect();
        let error = m
            .run(DictMemoryArgs {
                operation: Operation::Add,
                dict: Some(many),
                key_list: None,
            })
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::MemoryFull);
        drop(m);
        assert_eq!(all.load(Ordering::Acquire), 0);
    }

    #[test]
    fn clearing_gives_every_byte_back_once() {
        let (mut m, all) = memory();
        m.run(args(
            json!({"operation": "add", "dict": {"a": "x".repeat(1000)}}),
        ))
        .unwrap();
        m.run(args(json!({"operation": "remove_all"}))).unwrap();
        assert_eq!(all.load(Ordering::Acquire), 0);
        m.run(args(json!({"operation": "add", "dict": {"b": 1}})))
            .unwrap();
        let kept = all.load(Ordering::Acquire);
        assert_eq!(kept, "b".len() + "1".len() + ITEM_OVERHEAD_BYTES);
        drop(m);
        assert_eq!(all.load(Ordering::Acquire), 0);
    }

    #[test]
    fn the_total_over_sessions_is_bounded() {
        let all = Arc::new(AtomicUsize::new(TOTAL_BYTES - 10));
        let mut m = DictMemory::new(all.clone());
        let error = m
            .run(args(
                json!({"operation": "add", "dict": {"a": "some value"}}),
            ))
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::MemoryFull);
        assert_eq!(all.load(Ordering::Acquire), TOTAL_BYTES - 10);
    }

    #[test]
    fn keys_are_listed_as_python_writes_them() {
        let keys = [
            "a".to_owned(),
            "it's".to_owned(),
            "say \"hi\"".to_owned(),
            "b\\".to_owned(),
        ];
        assert_eq!(py_list(&keys), r#"['a', "it's", 'say "hi"', 'b\\']"#);
    }
}
