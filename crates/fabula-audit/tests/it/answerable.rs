//! The answerability check against the stub server.

use fabula_audit::{AnswerabilityConfig, check_answerability};

use crate::common::small_dataset;
use crate::stub;

#[test]
fn every_gold_value_is_readable_through_extract() {
    let dir = small_dataset();
    let addr = stub::start(dir);
    // Small windows make every long page paginate.
    let config = AnswerabilityConfig {
        max_chars: 700,
        ..AnswerabilityConfig::default()
    };
    let report = check_answerability(&addr, dir, &config).unwrap();
    println!("{}", report.to_text());
    assert!(report.tasks >= 6 * 23);
    assert_eq!(report.fraction(), 1.0, "{}", report.to_text());
}
