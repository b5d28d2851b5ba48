//! Hand-written good and bad renders against every verifier rule.

use fabula_lwm::{FallbackReason, Hiding, verify_extract, verify_search};

use crate::fixtures::{self, KEST, MARO, QUAY_NEWS};

/// Verifies a search render and compares the outcome with `expect` (None: accepted).
fn check_search(text: &str, hiding: Hiding, expect: Option<FallbackReason>) {
    let world = fixtures::world();
    let got = verify_search(&world, text, hiding).err();
    assert_eq!(
        got.as_ref().map(|r| r.reason),
        expect,
        "{got:?}\n---\n{text}"
    );
}

fn check_extract(url: &str, text: &str, earlier: &[&str], expect: Option<FallbackReason>) {
    let world = fixtures::world();
    let earlier: Vec<String> = earlier.iter().map(|s| s.to_string()).collect();
    let got = verify_extract(&world, url, text, &earlier).err();
    assert_eq!(
        got.as_ref().map(|r| r.reason),
        expect,
        "{got:?}\n---\n{text}"
    );
}

fn block(url: &str, title: &str, snippet: &str, date: &str) -> String {
    format!("[1] {url}\nTitle: {title}\nSnippet: {snippet}\nDate: {date}\n")
}

#[test]
fn template_text_is_accepted() {
    check_search(&fixtures::search_template(), Hiding::Partial, None);
}

#[test]
fn good_search_renders_are_accepted() {
    // A paraphrase that states values the page states, with no hiding.
    let text = block(
        KEST,
        "Kest",
        "Founded in 1204 by Maro Venn, Kest had 12345 people.",
        "N/A",
    );
    check_search(&text, Hiding::None, None);
    // A dated page may give its date in another form.
    let text = block(
        QUAY_NEWS,
        "Kest opens Tesh Quay",
        "A harbour of … berths.",
        "April 2, 2031",
    );
    check_search(&text, Hiding::Partial, None);
    // Strict: a generic description naming only the page's subject.
    let text = block(KEST, "Kest", "An encyclopedia article about Kest.", "N/A");
    check_search(&text, Hiding::Strict, None);
    // Several queries, each with its heading.
    let text = format!(
        "## Query: kest\n\n{}\n## Query: venn\n\n{}",
        block(KEST, "Kest", "Kest is a city on the … delta.", "N/A"),
        block(MARO, "Maro Venn", "Maro Venn was the founder of …", "N/A"),
    );
    check_search(&text, Hiding::Partial, None);
}

#[test]
fn unparsable_search_renders_fall_back() {
    let reason = Some(FallbackReason::Unparsable);
    check_search(
        "Here are the results you asked for.",
        Hiding::Partial,
        reason,
    );
    check_search("", Hiding::Partial, reason);
    let no_date = format!("[1] {KEST}\nTitle: Kest\nSnippet: Kest is a city.\n");
    check_search(&no_date, Hiding::Partial, reason);
    let falling_rank = format!(
        "{}\n{}",
        block(KEST, "Kest", "A city.", "N/A").replace("[1]", "[2]"),
        block(MARO, "Maro Venn", "A founder.", "N/A")
    );
    check_search(&falling_rank, Hiding::Partial, reason);
}

#[test]
fn unknown_urls_fall_back() {
    let text = block(
        "https://w-test.fab/wiki/Nowhere",
        "Nowhere",
        "A place.",
        "N/A",
    );
    check_search(&text, Hiding::Partial, Some(FallbackReason::UnknownUrl));
    let text = block("https://example.com/", "Example", "A real site.", "N/A");
    check_search(&text, Hiding::None, Some(FallbackReason::UnknownUrl));
}

#[test]
fn contradicting_search_renders_fall_back() {
    let reason = Some(FallbackReason::ContradictsWorld);
    // A wrong title.
    check_search(
        &block(KEST, "Kesta", "A city.", "N/A"),
        Hiding::Partial,
        reason,
    );
    // A date for a reference page, and a wrong date for a dated page.
    check_search(
        &block(KEST, "Kest", "A city.", "2031-04-02"),
        Hiding::Partial,
        reason,
    );
    let text = block(
        QUAY_NEWS,
        "Kest opens Tesh Quay",
        "A harbour opened.",
        "2031-04-03",
    );
    check_search(&text, Hiding::Partial, reason);
    // A number the page does not state.
    let text = block(KEST, "Kest", "Kest had 12,346 people.", "N/A");
    check_search(&text, Hiding::None, reason);
    // A year the page does not state.
    let text = block(KEST, "Kest", "Kest was founded in 1205.", "N/A");
    check_search(&text, Hiding::None, reason);
    // A full date the page does not state.
    let text = block(
        QUAY_NEWS,
        "Kest opens Tesh Quay",
        "Opened on 3 April 2031.",
        "2031-04-02",
    );
    check_search(&text, Hiding::None, reason);
    // An entity name from another page of the world, and an invented one.
    let text = block(KEST, "Kest", "Kest was founded by Ilsa Dorn.", "N/A");
    check_search(&text, Hiding::None, reason);
    let text = block(
        KEST,
        "Kest",
        "Kest was founded by Zorvath the Elder.",
        "N/A",
    );
    check_search(&text, Hiding::None, reason);
}

#[test]
fn hidden_values_in_snippets_fall_back() {
    let reason = Some(FallbackReason::HiddenValueLeak);
    // Partial hides years and numbers (any word with a digit) ...
    let text = block(KEST, "Kest", "Kest was founded in 1204.", "N/A");
    check_search(&text, Hiding::Partial, reason);
    // ... and related entities.
    let text = block(KEST, "Kest", "Kest was founded by Maro Venn.", "N/A");
    check_search(&text, Hiding::Partial, reason);
    let text = block(
        QUAY_NEWS,
        "Kest opens Tesh Quay",
        "Built by Ilsa Dorn.",
        "2031-04-02",
    );
    check_search(&text, Hiding::Partial, reason);
    // The same values are fine when nothing is hidden.
    let text = block(
        KEST,
        "Kest",
        "Kest was founded by Maro Venn in 1204.",
        "N/A",
    );
    check_search(&text, Hiding::None, None);
    // Strict hides even text facts, but not the page's own subject.
    let text = block(KEST, "Kest", "Kest is a river city-state.", "N/A");
    check_search(&text, Hiding::Strict, reason);
    // A hidden value is a leak even in another casing.
    let text = block(KEST, "Kest", "Founded by maro venn.", "N/A");
    check_search(&text, Hiding::Partial, reason);
}

const GOOD_PAGE: &str = "# Kest\n\nKest is a river city-state on the Orun delta, founded in \
                         1204 by Maro Venn. In 1410 it had 12,345 people.\n\n\
                         - Harbour: Tesh Quay\n";

#[test]
fn good_extract_renders_are_accepted() {
    check_extract(KEST, GOOD_PAGE, &[], None);
    // It agrees with every snippet shown earlier, including masked ones.
    let earlier = [
        "Kest is a river city-state on the … delta. It was founded in … by …",
        "Founded in 1204 by Maro Venn, Kest had 12345 people.",
    ];
    check_extract(KEST, GOOD_PAGE, &earlier, None);
    let news = "# Kest opens Tesh Quay\n\nOn 2031-04-02 Kest opened Tesh Quay, 38 berths.\n";
    check_extract(
        QUAY_NEWS,
        news,
        &["On April 2, 2031, the city of Kest opened …"],
        None,
    );
}

#[test]
fn unparsable_extract_renders_fall_back() {
    let reason = Some(FallbackReason::Unparsable);
    check_extract(KEST, "Kest is a river city-state.", &[], reason);
    check_extract(KEST, "# Kest\n", &[], reason);
    let blocks = format!("# Kest\n\n{}", block(KEST, "Kest", "A city.", "N/A"));
    check_extract(KEST, &blocks, &[], reason);
}

#[test]
fn extracting_an_unknown_url_falls_back() {
    let reason = Some(FallbackReason::UnknownUrl);
    check_extract(
        "https://w-test.fab/wiki/Nowhere",
        "# Nowhere\n\nA place.",
        &[],
        reason,
    );
}

#[test]
fn contradicting_extract_renders_fall_back() {
    let reason = Some(FallbackReason::ContradictsWorld);
    check_extract(KEST, &GOOD_PAGE.replace("# Kest", "# Kesta"), &[], reason);
    check_extract(KEST, &GOOD_PAGE.replace("12,345", "12,354"), &[], reason);
    check_extract(
        KEST,
        &GOOD_PAGE.replace("Maro Venn", "Ilsa Dorn"),
        &[],
        reason,
    );
    let news = "# Kest opens Tesh Quay\n\nOn 2031-05-02 Kest opened Tesh Quay.\n";
    check_extract(QUAY_NEWS, news, &[], reason);
}

#[test]
fn extracts_disagreeing_with_earlier_snippets_fall_back() {
    let reason = Some(FallbackReason::ContradictsEarlierSnippet);
    // The page is true but omits the population an earlier snippet stated.
    let short = "# Kest\n\nKest is a river city-state founded by Maro Venn.\n";
    check_extract(KEST, short, &[], None);
    check_extract(KEST, short, &["Kest had 12,345 people in 1410."], reason);
    // ... or omits a name an earlier snippet stated.
    check_extract(KEST, short, &["The harbour of Kest is Tesh Quay."], reason);
    // ... or a date.
    let news = "# Kest opens Tesh Quay\n\nKest opened Tesh Quay.\n";
    check_extract(
        QUAY_NEWS,
        news,
        &["On April 2, 2031, Kest opened …"],
        reason,
    );
}
