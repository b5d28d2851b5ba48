//! The years (or numbers) a question states as a threshold: "founded after 2106", "born
//! before 2664". A threshold never equals a value that the compared column holds anywhere in
//! the world, so "after" reads the same strictly or not and no row sits on the line.
//! `fabula check` enforces this on each task's SQL (rule `tasks.threshold`).

use std::collections::BTreeSet;

/// The threshold that keeps rows up to `kept` and leaves out `next` (the first row left out,
/// if any): for a cut "before", the smallest free value above `kept` and below `next`; for a
/// cut "after", the largest free value below `kept` and above `next`. `taken` is every value
/// of the compared column in the world. `None` when no free value lies between the two.
pub(super) fn between(
    taken: &BTreeSet<i64>,
    kept: i64,
    next: Option<i64>,
    after: bool,
) -> Option<i64> {
    let step = if after { -1 } else { 1 };
    let beyond = |t: i64| next.is_some_and(|n| if after { t <= n } else { t >= n });
    let mut t = kept + step;
    while !beyond(t) {
        if !taken.contains(&t) {
            return Some(t);
        }
        t += step;
    }
    None
}

/// The distances `1..=spread` from `from` (towards later values, or earlier ones with
/// `earlier`) whose value is free of `taken`: the years a clue "born before" (or "after") may
/// state about someone born in `from`.
pub(super) fn free_offsets(
    taken: &BTreeSet<i64>,
    from: i64,
    spread: i64,
    earlier: bool,
) -> Vec<i64> {
    let sign = if earlier { -1 } else { 1 };
    (1..=spread)
        .filter(|d| !taken.contains(&(from + sign * d)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_between(
        taken: &[i64],
        kept: i64,
        next: Option<i64>,
        after: bool,
        expect: Option<i64>,
    ) {
        let taken: BTreeSet<i64> = taken.iter().copied().collect();
        assert_eq!(
            between(&taken, kept, next, after),
            expect,
            "{taken:?} kept {kept} next {next:?} after {after}"
        );
    }

    #[test]
    fn a_threshold_lies_on_no_value() {
        // Before: the first free year above the kept rows, short of the first row left out.
        check_between(&[2600, 2601, 2603], 2600, Some(2603), false, Some(2602));
        check_between(&[2600, 2601, 2602], 2600, Some(2602), false, None);
        check_between(&[2600, 2601], 2600, Some(2601), false, None);
        check_between(&[2600, 2650], 2650, None, false, Some(2651));
        // Another row of the world (not of the group) holds 2601: it is skipped.
        check_between(&[2600, 2601, 2610], 2600, Some(2610), false, Some(2602));
        // After: the last free year below the kept rows, above the first row left out.
        check_between(&[2600, 2602, 2603], 2603, Some(2600), true, Some(2601));
        check_between(&[2600, 2601], 2601, Some(2600), true, None);
        check_between(&[2600, 2650], 2600, None, true, Some(2599));
        check_between(&[2598, 2599, 2600], 2600, None, true, Some(2597));
    }

    #[test]
    fn offsets_skip_taken_years() {
        let taken: BTreeSet<i64> = [2601, 2603, 2598].into_iter().collect();
        assert_eq!(free_offsets(&taken, 2600, 4, false), vec![2, 4]);
        assert_eq!(free_offsets(&taken, 2600, 4, true), vec![1, 3, 4]);
        assert_eq!(free_offsets(&taken, 2600, 0, true), Vec::<i64>::new());
    }
}
