//! Capturing what the library logs while one test's work runs, with tests running in parallel.
//!
//! One global `tracing` subscriber serves the whole test binary and writes each event into the
//! capture of the thread that emitted it, if that thread has one. A scoped subscriber per test
//! (`tracing::subscriber::with_default`) is not enough: while it is the only dispatcher alive,
//! tracing-core computes the interest of a callsite registered from another thread with that
//! thread's default (none) and caches `never`, so a log line that another test reached first is
//! then missing from the capture (`callsite::Dispatchers::rebuilder`'s `JustOne` case).

use std::cell::RefCell;
use std::sync::{Arc, Mutex, Once};

thread_local! {
    /// The capture of this thread's running [`logged`] call, if any.
    static CAPTURE: RefCell<Option<Arc<Mutex<Vec<u8>>>>> = const { RefCell::new(None) };
}

/// Runs `work` on this thread and returns what it returned and what it logged (info and up, as
/// `tracing_subscriber::fmt` writes it, without colours). Events of other threads are left out.
pub(crate) fn logged<T>(work: impl FnOnce() -> T) -> (T, String) {
    install_global_subscriber();
    let buffer = Arc::new(Mutex::new(Vec::new()));
    CAPTURE.with(|capture| *capture.borrow_mut() = Some(Arc::clone(&buffer)));
    // A panic in `work` fails the test, whose thread then ends with its capture.
    let out = work();
    CAPTURE.with(|capture| *capture.borrow_mut() = None);
    let text = String::from_utf8(buffer.lock().unwrap().clone()).unwrap();
    (out, text)
}

/// Sets the binary's one subscriber, the first time only.
fn install_global_subscriber() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(|| ThreadCapture)
            .finish();
        tracing::subscriber::set_global_default(subscriber)
            .expect("no other global subscriber in this test binary");
    });
}

/// A writer into the emitting thread's capture; a thread without one drops what it is given.
struct ThreadCapture;

impl std::io::Write for ThreadCapture {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        CAPTURE.with(|capture| {
            if let Some(buffer) = capture.borrow().as_ref() {
                buffer.lock().unwrap().extend_from_slice(bytes);
            }
        });
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A callsite that only the test below reaches, so its first registration is under its control.
fn shared_callsite() {
    tracing::info!("reached the shared callsite");
}

#[test]
fn a_callsite_first_reached_on_another_thread_is_still_captured() {
    // Another thread (as another test would) registers the callsite first, while this thread's
    // capture is running; then this thread reaches it. With a scoped subscriber per test the
    // second event was dropped: the callsite's interest had been cached as `never`.
    let ((), log) = logged(|| {
        std::thread::spawn(shared_callsite).join().unwrap();
        shared_callsite();
    });
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(log.contains("INFO"), "{log}");
    assert!(log.contains("reached the shared callsite"), "{log}");
}
