//! The Simulation Instruction of a task's trajectory: the question the agent is pursuing and its
//! gold answer, which Qwen-AgentWorld's search world model reads beside the current tool call
//! ("Simulation Instruction (Optional): May contain Target Query and Reference Answer as ground
//! truth", its `prompts/search/system_prompt.txt`), so it renders observations that agree with
//! the answer. [`task_samples`] closes every turn's prompt with it.

use fabula_score::Gold;
use serde_json::Value;

use crate::error::Result;
use crate::prompt::{PromptConfig, task_system_prompt};
use crate::samples::{LwmSample, LwmTurn, lwm_samples};
use crate::view::WorldView;

/// The heading of the instruction in a turn's prompt, bold like the seed's `**Action:**` and
/// `**Environment Observation:**`.
pub const INSTRUCTION_HEADING: &str = "**Simulation Instruction:**";

/// What the world model is told about the task behind a trajectory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimulationInstruction {
    /// The task's question.
    pub target_query: String,
    /// The gold answer as text (see [`reference_answer`]).
    pub reference_answer: String,
}

impl SimulationInstruction {
    /// The instruction for a task: its question and its gold answer's JSON.
    pub fn for_task(question: &str, answer: &Value) -> SimulationInstruction {
        SimulationInstruction {
            target_query: question.trim().to_owned(),
            reference_answer: reference_answer(answer),
        }
    }

    /// The instruction as it closes a turn's prompt:
    ///
    /// ```
    /// let instruction = fabula_lwm::SimulationInstruction::for_task(
    ///     "Who founded Kest?",
    ///     &serde_json::json!("Ann Vrask"),
    /// );
    /// assert_eq!(
    ///     instruction.text(),
    ///     "**Simulation Instruction:**\nTarget Query: Who founded Kest?\nReference Answer: Ann Vrask"
    /// );
    /// ```
    ///
    /// An answer of several lines (a table) starts on the line after its label.
    pub fn text(&self) -> String {
        let answer = &self.reference_answer;
        let separator = if answer.contains('\n') { "\n" } else { " " };
        format!(
            "{INSTRUCTION_HEADING}\nTarget Query: {}\nReference Answer:{separator}{answer}",
            self.target_query
        )
    }
}

/// A gold answer as text: a string as it is, a number as written, a list's items joined by
/// `; `, a table in Markdown (header, separator, one line per row). An answer fabula-score
/// cannot read stays its JSON text.
pub fn reference_answer(answer: &Value) -> String {
    match Gold::from_json(answer) {
        Ok(Gold::Text(text)) => text,
        Ok(Gold::List(items)) => items.join("; "),
        Ok(Gold::Table(table)) => {
            let line = |cells: &[String]| format!("| {} |", cells.join(" | "));
            let mut lines = vec![
                line(table.columns()),
                line(&vec!["---".to_owned(); table.columns().len()]),
            ];
            lines.extend(table.rows().iter().map(|row| line(row)));
            lines.join("\n")
        }
        Err(_) => answer.to_string(),
    }
}

/// [`lwm_samples`] of a task's trajectory: fabula's system prompt with its paragraph on the
/// instruction ([`task_system_prompt`]), and every turn's prompt closed by the instruction after
/// a blank line, so each turn, the history's included, says which task the agent pursues.
pub fn task_samples(
    world: &dyn WorldView,
    turns: &[LwmTurn],
    config: &PromptConfig,
    instruction: &SimulationInstruction,
) -> Result<Vec<LwmSample>> {
    let mut samples = lwm_samples(world, turns, config)?;
    let system_str = task_system_prompt(world.world_id())?;
    let text = instruction.text();
    for sample in &mut samples {
        sample.system_str.clone_from(&system_str);
        sample.prompt = format!("{}\n\n{text}", sample.prompt.trim_end());
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(answer: Value, expect: &str) {
        assert_eq!(reference_answer(&answer), expect);
    }

    #[test]
    fn answers_read_as_text() {
        check(json!("Ann Vrask"), "Ann Vrask");
        check(json!(1770), "1770");
        check(json!(["Kest", "Orr", 3]), "Kest; Orr; 3");
        check(
            json!({"columns": ["Name", "Founded"], "key": ["Name"], "rows": [["Vess", 1021], ["Orr", null]]}),
            "| Name | Founded |\n| --- | --- |\n| Vess | 1021 |\n| Orr |  |",
        );
        check(json!({"odd": true}), r#"{"odd":true}"#);
    }

    #[test]
    fn a_table_answer_starts_on_its_own_line() {
        let instruction = SimulationInstruction::for_task(
            " List the guilds. ",
            &json!({"columns": ["Name"], "key": ["Name"], "rows": [["Vess"]]}),
        );
        assert_eq!(
            instruction.text(),
            "**Simulation Instruction:**\nTarget Query: List the guilds.\n\
             Reference Answer:\n| Name |\n| --- |\n| Vess |"
        );
    }
}
