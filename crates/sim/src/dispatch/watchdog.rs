//! The watchdog of a run: a thread that turns the deadline and the cancel flag into the
//! stop flag the work-groups poll.

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

/// What the watchdog watches and what it sets.
pub(super) struct Watchdog<'a> {
    /// The wall-clock limit of the run.
    pub timeout: Option<Duration>,
    /// Set from outside to stop the run.
    pub cancel: Option<&'a AtomicBool>,
    /// Set by the watchdog: the work-groups stop.
    pub stop: &'a AtomicBool,
    /// Set by the watchdog when the deadline passed.
    pub timed_out: &'a AtomicBool,
    /// Set by the run when every work-group has finished: the watchdog ends.
    pub finished: &'a AtomicBool,
}

impl<'a> Watchdog<'a> {
    /// Starts the watchdog on `scope` when there is something to watch. Once the run
    /// has set `finished`, unpark the returned thread so that it ends at once.
    pub fn spawn<'scope>(
        self,
        scope: &'scope Scope<'scope, '_>,
    ) -> Option<ScopedJoinHandle<'scope, ()>>
    where
        'a: 'scope,
    {
        (self.timeout.is_some() || self.cancel.is_some()).then(|| scope.spawn(move || self.watch()))
    }

    /// Polls the cancel flag and the clock every 5 ms until the run finishes or one of
    /// them stops it.
    fn watch(&self) {
        let start = Instant::now();
        while !self.finished.load(Ordering::Relaxed) {
            if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                self.stop.store(true, Ordering::Relaxed);
                return;
            }
            if self.timeout.is_some_and(|t| start.elapsed() >= t) {
                self.timed_out.store(true, Ordering::Relaxed);
                self.stop.store(true, Ordering::Relaxed);
                return;
            }
            std::thread::park_timeout(Duration::from_millis(5));
        }
    }
}
