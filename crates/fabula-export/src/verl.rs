//! verl's training data: one parquet row per task in the columns verl's `RLHFDataset` and its
//! tool agent loop read, written with the `parquet` crate's low-level column writer (no arrow).
//!
//! The columns are `data_source` (`"fabula"`), `prompt` (a list of `{role, content}`),
//! `ability`, `reward_model` (`{style: "rule", ground_truth: {target: list<string>, answer:
//! string}}`, the answer being the gold JSON as a string so every row has one schema),
//! `extra_info` (`{split, index, world, task_id, kind, tier, need_tools_kwargs, tools_kwargs}`) and
//! `agent_name`. verl 0.9 hands `extra_info.tools_kwargs[tool].create_kwargs` to the tool of
//! that name on every call, so `{"world": N}` there routes the `fabula_env` tools to the task's
//! world; `agent_name` picks verl's agent loop for the row (`tool_agent` for tool calls).

use std::fs;
use std::path::Path;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::column::writer::ColumnWriter;
use parquet::data_type::ByteArray;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use serde_json::{Map, Value, json};

use crate::{Error, Result};

/// The names of the two tools whose `create_kwargs` carry the task's world.
pub const TOOL_NAMES: [&str; 2] = ["web_search", "web_extractor"];

/// The parquet schema of a verl export. The leaves, in this order, are the columns
/// [`write_verl_parquet`] fills.
const SCHEMA: &str = "
message fabula_verl {
  required binary data_source (STRING);
  required group prompt (LIST) {
    repeated group list {
      required group element {
        required binary role (STRING);
        required binary content (STRING);
      }
    }
  }
  required binary ability (STRING);
  required group reward_model {
    required binary style (STRING);
    required group ground_truth {
      required group target (LIST) {
        repeated group list {
          required binary element (STRING);
        }
      }
      required binary answer (STRING);
    }
  }
  required group extra_info {
    required binary split (STRING);
    required int64 index;
    required int64 world;
    required binary task_id (STRING);
    required binary kind (STRING);
    required binary tier (STRING);
    required boolean need_tools_kwargs;
    required group tools_kwargs {
      required group web_search {
        required group create_kwargs {
          required int64 world;
        }
      }
      required group web_extractor {
        required group create_kwargs {
          required int64 world;
        }
      }
    }
  }
  required binary agent_name (STRING);
}
";

/// One chat message of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: String,
    pub content: String,
}

/// One row of a verl export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerlRecord {
    pub data_source: String,
    pub prompt: Vec<Message>,
    pub ability: String,
    /// The strings a Search-R1 style reward accepts.
    pub target: Vec<String>,
    /// The gold answer as JSON text, for `fabula_env.reward.compute_score`.
    pub answer: String,
    pub split: String,
    pub index: i64,
    pub world: u32,
    pub task_id: String,
    pub kind: String,
    /// The task's difficulty tier (`easy` to `frontier`), as its world file stores it.
    pub tier: String,
    /// verl's agent loop for this row.
    pub agent_name: String,
}

impl VerlRecord {
    /// The row as JSON, field for field as the parquet file holds it (the JSON a parquet reader
    /// gives back): the Search-R1 JSONL export writes these, so its lines and its parquet rows
    /// are the same records.
    pub fn to_json(&self) -> Value {
        let route = json!({"create_kwargs": {"world": self.world}});
        let tools_kwargs: Map<String, Value> = TOOL_NAMES
            .iter()
            .map(|name| ((*name).to_owned(), route.clone()))
            .collect();
        let prompt: Vec<Value> = self
            .prompt
            .iter()
            .map(|m| json!({"role": m.role, "content": m.content}))
            .collect();
        json!({
            "data_source": self.data_source,
            "prompt": prompt,
            "ability": self.ability,
            "reward_model": {
                "style": "rule",
                "ground_truth": {"target": self.target, "answer": self.answer},
            },
            "extra_info": {
                "split": self.split,
                "index": self.index,
                "world": self.world,
                "task_id": self.task_id,
                "kind": self.kind,
                "tier": self.tier,
                "need_tools_kwargs": true,
                "tools_kwargs": tools_kwargs,
            },
            "agent_name": self.agent_name,
        })
    }
}

/// The values and levels of one leaf column.
#[derive(Debug, Default)]
struct Leaf {
    texts: Vec<ByteArray>,
    ints: Vec<i64>,
    bools: Vec<bool>,
    /// Definition and repetition levels; empty for a column outside any list.
    def: Vec<i16>,
    rep: Vec<i16>,
}

impl Leaf {
    fn text(&mut self, value: &str) {
        self.texts.push(ByteArray::from(value));
    }

    /// Adds one list of strings: an empty list is a single null slot at level 0.
    fn text_list<'a>(&mut self, items: impl ExactSizeIterator<Item = &'a str>) {
        if items.len() == 0 {
            self.def.push(0);
            self.rep.push(0);
            return;
        }
        for (i, item) in items.enumerate() {
            self.texts.push(ByteArray::from(item));
            self.def.push(1);
            self.rep.push(i16::from(i > 0));
        }
    }
}

/// The leaves of every record, in the schema's order.
fn leaves(records: &[VerlRecord]) -> Vec<Leaf> {
    let mut leaves: Vec<Leaf> = (0..17).map(|_| Leaf::default()).collect();
    for r in records {
        leaves[0].text(&r.data_source);
        leaves[1].text_list(r.prompt.iter().map(|m| m.role.as_str()));
        leaves[2].text_list(r.prompt.iter().map(|m| m.content.as_str()));
        leaves[3].text(&r.ability);
        leaves[4].text("rule");
        leaves[5].text_list(r.target.iter().map(String::as_str));
        leaves[6].text(&r.answer);
        leaves[7].text(&r.split);
        leaves[8].ints.push(r.index);
        leaves[9].ints.push(i64::from(r.world));
        leaves[10].text(&r.task_id);
        leaves[11].text(&r.kind);
        leaves[12].text(&r.tier);
        leaves[13].bools.push(true);
        leaves[14].ints.push(i64::from(r.world));
        leaves[15].ints.push(i64::from(r.world));
        leaves[16].text(&r.agent_name);
    }
    leaves
}

fn parquet_error(path: &Path, error: parquet::errors::ParquetError) -> Error {
    Error::io(path, std::io::Error::other(error))
}

/// Writes records as one uncompressed parquet file with one row group. The bytes depend only
/// on the records (and the `parquet` crate's version, which the file names).
pub fn write_verl_parquet(path: &Path, records: &[VerlRecord]) -> Result<()> {
    let schema = Arc::new(parse_message_type(SCHEMA).map_err(|e| parquet_error(path, e))?);
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::UNCOMPRESSED)
            .build(),
    );
    let file = fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut writer =
        SerializedFileWriter::new(file, schema, props).map_err(|e| parquet_error(path, e))?;
    let mut row_group = writer
        .next_row_group()
        .map_err(|e| parquet_error(path, e))?;
    for leaf in leaves(records) {
        let Some(mut column) = row_group
            .next_column()
            .map_err(|e| parquet_error(path, e))?
        else {
            return Err(Error::BadInput(
                "the verl schema has fewer leaves than its writer fills".into(),
            ));
        };
        write_leaf(&mut column, &leaf).map_err(|e| parquet_error(path, e))?;
        column.close().map_err(|e| parquet_error(path, e))?;
    }
    row_group.close().map_err(|e| parquet_error(path, e))?;
    writer.close().map_err(|e| parquet_error(path, e))?;
    Ok(())
}

fn write_leaf(
    column: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    leaf: &Leaf,
) -> parquet::errors::Result<()> {
    let (def, rep) = if leaf.def.is_empty() {
        (None, None)
    } else {
        (Some(leaf.def.as_slice()), Some(leaf.rep.as_slice()))
    };
    match column.untyped() {
        ColumnWriter::ByteArrayColumnWriter(w) => w.write_batch(&leaf.texts, def, rep)?,
        ColumnWriter::Int64ColumnWriter(w) => w.write_batch(&leaf.ints, def, rep)?,
        ColumnWriter::BoolColumnWriter(w) => w.write_batch(&leaf.bools, def, rep)?,
        _ => {
            return Err(parquet::errors::ParquetError::General(
                "the verl schema holds only strings, integers and booleans".into(),
            ));
        }
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_get_levels_and_empty_lists_a_null_slot() {
        let mut leaf = Leaf::default();
        leaf.text_list(["a", "b"].into_iter());
        leaf.text_list(std::iter::empty());
        leaf.text_list(["c"].into_iter());
        assert_eq!(leaf.texts.len(), 3);
        assert_eq!(leaf.def, [1, 1, 0, 1]);
        assert_eq!(leaf.rep, [0, 1, 0, 0]);
    }

    #[test]
    fn the_schema_has_one_leaf_per_filled_column() {
        let schema = parse_message_type(SCHEMA).unwrap();
        let descr = parquet::schema::types::SchemaDescriptor::new(Arc::new(schema));
        assert_eq!(descr.num_columns(), leaves(&[]).len());
        let world = descr.column(14);
        assert_eq!(
            world.path().string(),
            "extra_info.tools_kwargs.web_search.create_kwargs.world"
        );
    }
}
