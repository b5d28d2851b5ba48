//! The numbers a dataset promises its users, as the checker holds worlds to them.
//!
//! These are the product's contract (README's tasks section, ARCHITECTURE.md's `fabula-check`), written here on
//! purpose and not imported from the generator: were the task builder to lower its own targets,
//! `fabula check` would still hold its output to these.

/// The fewest tasks a world has.
pub const MIN_TASKS: usize = 60;

/// The fewest table (WideSearch-style) tasks a world has.
pub const MIN_TABLE_TASKS: usize = 5;

/// The fewest people any one clue of a frontier question holds for.
pub const FRONTIER_MIN_CANDIDATES: usize = 20;

/// The fewest near misses (people who fail exactly one clue) of a frontier question.
pub const FRONTIER_MIN_NEAR_MISSES: usize = 2;

/// How many people the clues of a name-all frontier question fit.
pub const FRONTIER_SET_ANSWERS: std::ops::RangeInclusive<usize> = 2..=4;

/// How many rows the clues of a frontier table fit: tens of rows, as WideSearch's tables have.
pub const FRONTIER_TABLE_ROWS: std::ops::RangeInclusive<usize> = 15..=40;

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, checker: usize, generator: usize) {
        assert!(
            generator >= checker,
            "{name}: the generator aims at {generator}, below the contract's {checker}"
        );
    }

    /// The generator aims at the same contract (it may aim higher, never lower).
    #[test]
    fn the_generator_aims_at_the_contract() {
        check("MIN_TASKS", MIN_TASKS, fabula_tasks::MIN_TASKS);
        check(
            "MIN_TABLE_TASKS",
            MIN_TABLE_TASKS,
            fabula_tasks::MIN_TABLE_TASKS,
        );
        check(
            "FRONTIER_MIN_CANDIDATES",
            FRONTIER_MIN_CANDIDATES,
            fabula_tasks::difficulty::FRONTIER_MIN_CANDIDATES,
        );
        check(
            "FRONTIER_MIN_NEAR_MISSES",
            FRONTIER_MIN_NEAR_MISSES,
            fabula_tasks::difficulty::FRONTIER_MIN_NEAR_MISSES,
        );
    }
}
