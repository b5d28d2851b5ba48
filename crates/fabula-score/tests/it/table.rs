//! Tables: WideSearch's row and item precision, recall and F1, hand-computed.
//!
//! Most cases use [`towns`]: three rows, key `Name`, and the inferred metrics `number`
//! (Population), `date` (Founded) and `exact` (Motto). So c = 4 columns and g = 3 gold rows.

use serde_json::{Value, json};

use crate::{check, json, text};

/// The gold table most cases use.
fn towns() -> Value {
    json!({
        "columns": ["Name", "Population", "Founded", "Motto"],
        "key": ["Name"],
        "rows": [
            ["Vess", 12000, "1021-04-02", "Salt and Iron"],
            ["Orr", 4500, "1044-11-30", "By the Tide"],
            ["Kael Moor", 800, "1102-06-15", "Stone Holds"]
        ]
    })
}

/// Renders rows as a bare pipe table under the header of [`towns`].
fn pipe_table(rows: &[[&str; 4]]) -> String {
    let mut out = String::from("| Name | Population | Founded | Motto |\n|---|---|---|---|\n");
    for row in rows {
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    out
}

const VESS: [&str; 4] = ["Vess", "12000", "1021-04-02", "Salt and Iron"];
const ORR: [&str; 4] = ["Orr", "4500", "1044-11-30", "By the Tide"];
const KAEL: [&str; 4] = ["Kael Moor", "800", "1102-06-15", "Stone Holds"];

const PERFECT: &str = "success=1 row=1/1/1 item=1/1/1";

#[test]
fn a_perfect_table() {
    check(&towns(), &text(&pipe_table(&[VESS, ORR, KAEL])), PERFECT);
    // Row order does not matter.
    check(&towns(), &text(&pipe_table(&[KAEL, VESS, ORR])), PERFECT);
}

#[test]
fn one_wrong_cell_zeroes_its_row_only() {
    // Orr's row scores min(1, 0, 1, 1) = 0: tp_row = 2, tp_item = 11.
    // P_row = R_row = 2/3; P_item = R_item = 11/12.
    let orr = ["Orr", "4600", "1044-11-30", "By the Tide"];
    check(
        &towns(),
        &text(&pipe_table(&[VESS, orr, KAEL])),
        "success=0 row=0.6667/0.6667/0.6667 item=0.9167/0.9167/0.9167",
    );
}

#[test]
fn extra_rows_cost_precision() {
    // p = 4, tp_row = 3, tp_item = 12: P_row = 3/4, R_row = 1, F1 = 6/7;
    // P_item = 12/16, R_item = 1, F1 = 6/7.
    let tarn = ["Tarn", "10", "1200-01-01", "None"];
    check(
        &towns(),
        &text(&pipe_table(&[VESS, ORR, KAEL, tarn])),
        "success=0 row=0.75/1/0.8571 item=0.75/1/0.8571",
    );
}

#[test]
fn missing_rows_cost_recall() {
    // p = 2, tp_row = 2, tp_item = 8: P_row = 1, R_row = 2/3, F1 = 0.8; items likewise.
    check(
        &towns(),
        &text(&pipe_table(&[VESS, ORR])),
        "success=0 row=1/0.6667/0.8 item=1/0.6667/0.8",
    );
}

#[test]
fn duplicate_keys_keep_the_first_row() {
    let wrong_vess = ["VESS", "1", "1021-04-02", "Salt and Iron"];
    check(
        &towns(),
        &text(&pipe_table(&[VESS, wrong_vess, ORR, KAEL])),
        "success=1 row=1/1/1 item=1/1/1 issues=[DuplicateRows { n_dropped: 1 }]",
    );
    // With the wrong row first, it is the one kept: as one wrong cell, p = 3 after dropping.
    check(
        &towns(),
        &text(&pipe_table(&[wrong_vess, VESS, ORR, KAEL])),
        "success=0 row=0.6667/0.6667/0.6667 item=0.9167/0.9167/0.9167 \
         issues=[DuplicateRows { n_dropped: 1 }]",
    );
}

#[test]
fn number_near_default_is_exact_equality() {
    let vess = ["Vess", "12,000 people", "1021-04-02", "Salt and Iron"];
    let orr = ["Orr", "4500.0", "1044-11-30", "By the Tide"];
    check(&towns(), &text(&pipe_table(&[vess, orr, KAEL])), PERFECT);
    let kael = ["Kael Moor", "800.5", "1102-06-15", "Stone Holds"];
    check(
        &towns(),
        &text(&pipe_table(&[VESS, ORR, kael])),
        "success=0 row=0.6667/0.6667/0.6667 item=0.9167/0.9167/0.9167",
    );
}

#[test]
fn number_near_with_tolerance() {
    let mut gold = towns();
    gold["tolerance"] = json!(0.1);
    // Vess: |13000 - 12000| = 1000 <= 1200, passes. Orr: 500 > 450, fails.
    // Kael: |880 - 800| = 80 <= 80, passes at the boundary. As one wrong cell.
    let vess = ["Vess", "13000", "1021-04-02", "Salt and Iron"];
    let orr = ["Orr", "5000", "1044-11-30", "By the Tide"];
    let kael = ["Kael Moor", "880", "1102-06-15", "Stone Holds"];
    check(
        &gold,
        &text(&pipe_table(&[vess, orr, kael])),
        "success=0 row=0.6667/0.6667/0.6667 item=0.9167/0.9167/0.9167",
    );
}

#[test]
fn percent_values_are_divided_by_100() {
    let gold = json!({
        "columns": ["Name", "Share"],
        "key": ["Name"],
        "rows": [["Vess", 0.125], ["Orr", "40%"], ["Kael", 0.05]]
    });
    // 12.5% = 0.125 and 0.4 = 40% pass; 5 is not 0.05. c = 2: tp_row = 2, tp_item = 3 + 2 = 5.
    // P_row = R_row = 2/3; P_item = R_item = 5/6.
    let prediction = "| Name | Share |\n|--|--|\n| Vess | 12.5% |\n| Orr | 0.4 |\n| Kael | 5 |";
    check(
        &gold,
        &text(prediction),
        "success=0 row=0.6667/0.6667/0.6667 item=0.8333/0.8333/0.8333",
    );
}

#[test]
fn date_near_allows_31_days() {
    // Vess: 18 days off, passes. Orr: 36 days off, fails. Kael: 31 days off, passes.
    let vess = ["Vess", "12000", "April 20, 1021", "Salt and Iron"];
    let orr = ["Orr", "4500", "1045-01-05", "By the Tide"];
    let kael = ["Kael Moor", "800", "1102-07-16", "Stone Holds"];
    check(
        &towns(),
        &text(&pipe_table(&[vess, orr, kael])),
        "success=0 row=0.6667/0.6667/0.6667 item=0.9167/0.9167/0.9167",
    );
}

#[test]
fn key_spelling_variants_align() {
    let vess = ["**VESS**", "12000", "1021-04-02", "salt and iron"];
    let orr = [" “Orr” ", "4500", "1044-11-30", "By the Tide"];
    let kael = ["Ｋａｅｌ  Ｍｏｏｒ", "800", "1102-06-15", "Stone Holds"];
    check(&towns(), &text(&pipe_table(&[vess, orr, kael])), PERFECT);
    // A hyphen is not a space: Kael-Moor does not join. p = 3, tp_row = 2, tp_item = 8.
    let kael = ["Kael-Moor", "800", "1102-06-15", "Stone Holds"];
    check(
        &towns(),
        &text(&pipe_table(&[VESS, ORR, kael])),
        "success=0 row=0.6667/0.6667/0.6667 item=0.6667/0.6667/0.6667",
    );
}

#[test]
fn every_prediction_shape_reads_the_same() {
    let table = pipe_table(&[VESS, ORR, KAEL]);
    let fenced = format!("Here is the table.\n\n```markdown\n{table}```\n\nAll three towns.");
    check(&towns(), &text(&fenced), PERFECT);
    let bare = format!("Here is the table:\n{table}\nAll three towns.");
    check(&towns(), &text(&bare), PERFECT);
    // The fenced block wins over an earlier draft table.
    let draft = pipe_table(&[VESS]);
    check(
        &towns(),
        &text(&format!("Draft:\n{draft}\nFinal:\n```markdown\n{table}```")),
        PERFECT,
    );
    let records = json!([
        {"name": "Vess", "population": 12000, "founded": "1021-04-02", "motto": "Salt and Iron"},
        {"name": "Orr", "population": "4,500", "founded": "1044-11-30", "motto": "By the Tide"},
        {"name": "Kael Moor", "population": 800, "founded": "1102-06-15", "motto": "Stone Holds"}
    ]);
    check(&towns(), &json(records), PERFECT);
    let positional = json!([
        ["Vess", 12000, "1021-04-02", "Salt and Iron"],
        ["Orr", 4500, "1044-11-30", "By the Tide"],
        ["Kael Moor", 800, "1102-06-15", "Stone Holds"]
    ]);
    check(&towns(), &json(positional.clone()), PERFECT);
    let columns =
        json!({"columns": ["**Name**", "population", "FOUNDED", "Motto"], "rows": positional});
    check(&towns(), &json(columns.clone()), PERFECT);
    check(&towns(), &text(&columns.to_string()), PERFECT);
}

#[test]
fn the_mixed_records_case_by_hand() {
    // JSON keys are case-sensitive, so each spelling is its own column: "name", "Name" and
    // "NAME" all normalise to `name`, a column named twice, which makes the table unusable as
    // a repeated header does in WideSearch (pandas renames it `name.1`, an extra column).
    let records = json!([
        {"name": "Vess", "population": 12000, "founded": "1021-04-02", "motto": "Salt and Iron"},
        {"Name": "Orr", "Population": "4,500", "Founded": "1044-11-30", "Motto": "By the Tide"},
        {"NAME": "Kael Moor", "population": 800, "founded": "1102-06-15", "motto": "Stone Holds"}
    ]);
    check(
        &towns(),
        &json(records),
        "success=0 row=0/0/0 item=0/0/0 issues=[ExtraColumn { column: \"Founded\" }, \
         ExtraColumn { column: \"Motto\" }, ExtraColumn { column: \"Name\" }, \
         ExtraColumn { column: \"Population\" }, ExtraColumn { column: \"NAME\" }]",
    );
}

/// WideSearch's `evaluate_single_query` returns all zeros unless the response's columns, after
/// `norm_column` (and its LLM column mapping, which fabula's normalisation stands in for), are
/// exactly the required columns: a missing column and an extra column both zero the table.
#[test]
fn columns_must_be_exactly_the_gold_columns() {
    let rows = "| Vess | 12000 | 1021-04-02 | x |\n| Orr | 4500 | 1044-11-30 | y |\n\
                | Kael Moor | 800 | 1102-06-15 | z |";
    check(
        &towns(),
        &text(
            "| Name | Population | Founded |\n|-|-|-|\n\
             | Vess | 12000 | 1021-04-02 |\n| Orr | 4500 | 1044-11-30 |\n\
             | Kael Moor | 800 | 1102-06-15 |",
        ),
        "success=0 row=0/0/0 item=0/0/0 issues=[MissingColumn { column: \"Motto\" }]",
    );
    check(
        &towns(),
        &text(&format!(
            "| Name | Population | Founded | Notes |\n|-|-|-|-|\n{rows}"
        )),
        "success=0 row=0/0/0 item=0/0/0 issues=[ExtraColumn { column: \"Notes\" }, \
         MissingColumn { column: \"Motto\" }]",
    );
    let mut extra = pipe_table(&[VESS, ORR, KAEL]).replace(" Motto |", " Motto | Notes |");
    extra = extra.replace("Iron |", "Iron | x |");
    check(
        &towns(),
        &text(&extra),
        "success=0 row=0/0/0 item=0/0/0 issues=[ExtraColumn { column: \"Notes\" }]",
    );
    check(
        &towns(),
        &json(json!({"columns": ["Name", "Population", "Founded", "Motto", "name"], "rows": []})),
        "success=0 row=0/0/0 item=0/0/0 issues=[ExtraColumn { column: \"name\" }]",
    );
}

#[test]
fn columns_without_a_name_are_ignored() {
    // WideSearch drops pandas' `Unnamed` columns, which is what an empty header cell becomes.
    let table = "| Name | Population | Founded | Motto | |\n|-|-|-|-|-|\n\
                 | Vess | 12000 | 1021-04-02 | Salt and Iron | 1 |\n\
                 | Orr | 4500 | 1044-11-30 | By the Tide | 2 |\n\
                 | Kael Moor | 800 | 1102-06-15 | Stone Holds | 3 |";
    check(&towns(), &text(table), PERFECT);
}

#[test]
fn a_missing_key_column_aligns_nothing() {
    let prediction = "| Town | Population | Founded | Motto |\n|-|-|-|-|\n| Vess | 12000 | 1021-04-02 | Salt and Iron |";
    check(
        &towns(),
        &text(prediction),
        "success=0 row=0/0/0 item=0/0/0 issues=[ExtraColumn { column: \"Town\" }, \
         MissingColumn { column: \"Name\" }]",
    );
}

#[test]
fn no_table_at_all() {
    check(
        &towns(),
        &text("I could not find the towns."),
        "success=0 row=0/0/0 item=0/0/0 issues=[NoTable]",
    );
    check(
        &towns(),
        &json(json!(["Vess", "Orr"])),
        "success=0 row=0/0/0 item=0/0/0 issues=[NoTable]",
    );
    // An empty list is an empty table: nothing predicted, nothing found, but not malformed.
    check(&towns(), &json(json!([])), "success=0 row=0/0/0 item=0/0/0");
}

#[test]
fn short_rows_read_as_empty_cells() {
    // Kael's row stops after Population: Founded and Motto are empty, so its minimum is 0.
    // tp_row = 2, tp_item = 4 + 4 + 2 = 10: P_item = R_item = 10/12.
    let prediction = format!("{}| Kael Moor | 800 |\n", pipe_table(&[VESS, ORR]));
    check(
        &towns(),
        &text(&prediction),
        "success=0 row=0.6667/0.6667/0.6667 item=0.8333/0.8333/0.8333 issues=[ShortRows { n_rows: 1 }]",
    );
}

#[test]
fn composite_keys() {
    let gold = json!({
        "columns": ["Club", "Season", "Wins"],
        "key": ["Club", "Season"],
        "rows": [["Vess Rovers", 1021, 12], ["Vess Rovers", 1022, 9], ["Orr United", 1021, 7]]
    });
    // All three join on (club, season); the 1022 Rovers row has a wrong win count.
    // c = 3: tp_row = 2, tp_item = 3 + 2 + 3 = 8. P_row = R_row = 2/3, P_item = R_item = 8/9.
    let prediction = json!([
        {"club": "Vess Rovers", "season": "1021", "wins": 12},
        {"club": "vess rovers", "season": "1022", "wins": 10},
        {"club": "Orr United", "season": 1021, "wins": "7"}
    ]);
    check(
        &gold,
        &json(prediction),
        "success=0 row=0.6667/0.6667/0.6667 item=0.8889/0.8889/0.8889",
    );
}

#[test]
fn in_and_url_metrics() {
    let gold = json!({
        "columns": ["Guild", "Seat", "Site"],
        "key": ["Guild"],
        "rows": [
            ["Salt Guild", "The Old Hall of Vess", "https://salt.test/about"],
            ["Iron Guild", "Orr Keep", "https://iron.test/"]
        ],
        "metrics": {"seat": "in", "site": "url"}
    });
    // Salt: "Old Hall" is in the gold seat, same host: the row scores 1.
    // Iron: "Orr Keep East" is not in "Orr Keep"; another host: the row scores 0, its key 1.
    // c = 3: tp_row = 1, tp_item = 3 + 1 = 4. P_row = R_row = 1/2; P_item = R_item = 4/6.
    let prediction = "| Guild | Seat | Site |\n|-|-|-|\n\
                      | Salt Guild | Old Hall | [site](https://SALT.test/home) |\n\
                      | Iron Guild | Orr Keep East | https://ironworks.test |";
    check(
        &gold,
        &text(prediction),
        "success=0 row=0.5/0.5/0.5 item=0.6667/0.6667/0.6667",
    );
}

#[test]
fn one_column_table_from_a_list() {
    let gold = json!({"columns": ["Name"], "key": ["Name"], "rows": [["Vess"], ["Orr"]]});
    check(
        &gold,
        &json(json!(["vess", "ORR"])),
        "success=1 row=1/1/1 item=1/1/1",
    );
}
