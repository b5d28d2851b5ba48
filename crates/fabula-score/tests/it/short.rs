//! Short answers: SQuAD-style exact match and token F1, and list answers as sets.

use serde_json::json;

use crate::{check, json, text};

#[test]
fn numbers_agree_however_written() {
    let gold = json!("12,345");
    check(&gold, &text("12345.0"), "em=1 f1=1");
    check(&gold, &text("12345"), "em=1 f1=1");
    check(&gold, &json(json!(12345)), "em=1 f1=1");
    check(&gold, &text("12,346"), "em=0 f1=0");
    // A JSON number gold against a number inside prose: tokens [42] and [42, ships].
    check(&json!(42), &text("42 ships."), "em=0 f1=0.6667");
}

#[test]
fn case_punctuation_and_articles_are_ignored() {
    let gold = json!("The Order of the Lamp");
    check(&gold, &text("order of lamp"), "em=1 f1=1");
    check(&gold, &text("**Order of the Lamp.**"), "em=1 f1=1");
    // Tokens [order, of, lamp] against [lamp]: P=1, R=1/3, F1=0.5.
    check(&gold, &text("Lamp"), "em=0 f1=0.5");
}

#[test]
fn token_f1_is_partial_credit() {
    // Tokens [vel, arun] against [vel, arun, hall]: P=2/3, R=1, F1=0.8.
    check(&json!("Vel Arun"), &text("Vel Arun Hall"), "em=0 f1=0.8");
    check(&json!("Vel Arun"), &text(""), "em=0 f1=0");
}

#[test]
fn dates_are_normalised() {
    let gold = json!("1987-03-05");
    check(&gold, &text("March 5, 1987"), "em=1 f1=1");
    check(&gold, &text("5th Mar 1987."), "em=1 f1=1");
    check(&gold, &text("1987-03-06"), "em=0 f1=0");
}

#[test]
fn lists_compare_as_sets() {
    let gold = json!(["Vess", "Orr", "Kael Moor"]);
    check(
        &gold,
        &json(json!(["kael moor", "VESS", "Orr", "Orr"])),
        "em=1 f1=1",
    );
    check(&gold, &text("Orr, Vess, and Kael Moor"), "em=1 f1=1");
    check(&gold, &text("- Orr\n- Vess\n- The Kael Moor"), "em=1 f1=1");
    // Items {vess, orr, tarn, moor} against three gold items: P=2/4, R=2/3, F1=4/7.
    check(
        &gold,
        &json(json!(["Vess", "Orr", "Tarn", "Moor"])),
        "em=0 f1=0.5714",
    );
    check(&gold, &text("nothing"), "em=0 f1=0");
}

#[test]
fn a_one_item_list_answers_a_string() {
    check(&json!("Vess"), &json(json!(["Vess"])), "em=1 f1=1");
}
