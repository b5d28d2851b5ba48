//! What the dataset commands (`generate`, `check`, `index`) share: the default number of worker
//! threads and the progress bar, shown only on a terminal.

use std::io::IsTerminal;

/// One worker thread per core (2 when the count is unknown).
pub(crate) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// A bar of `total` worlds on stderr, hidden when stderr is not a terminal.
pub(crate) fn progress_bar(total: u64) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} worlds  {elapsed} (eta {eta})",
        )
        .expect("valid template"),
    );
    bar
}
