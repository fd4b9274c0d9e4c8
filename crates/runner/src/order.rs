//! The order a run takes its guards in and gives them back, as types: each step of the start
//! consumes the one before, so the steps cannot be taken out of order, and the guards a run
//! holds are fields dropped in the order that keeps every way out safe. The end of a run reports
//! its failures in a fixed precedence ([`Ending::first`]).
//!
//! 1. [`Begun`]: the signal handlers are installed and the *settling* window is open (a second
//!    signal waits until the run's last words exist, instead of killing a run whose JSON was
//!    asked for). Nothing slow happens before it.
//! 2. [`Begun::speak`]: the forced exit's last words (the JSON, marked interrupted) are
//!    registered, and only then is the settling window closed.
//! 3. [`Speaking::build_lab`]: the lab is built under those words, so that a failed build or a
//!    signal during it still leaves a JSON with its final status.
//! 4. [`Held`]: what the run holds until it ends. The lab is torn down first, the last words are
//!    released after it (a forced exit during the teardown still writes the JSON); the run's own
//!    sink takes the words over with [`Held::words_taken_over`] once it writes the JSON itself.
//! 5. Under MPI every rank's verdict on its inputs is agreed on before any other exchange
//!    ([`Agreed`]): the measuring starts only from an agreed start.
//!
//! ```compile_fail
//! // A lab cannot be built before the last words are registered:
//! let begun = fsbench_runner::order::Begun::new(());
//! let _ = begun.build_lab(|| Ok::<_, ()>(()));
//! ```

/// Step 1: the signal handlers are installed; `S` is the settling window, closed when dropped.
#[derive(Debug)]
#[must_use = "the next step is `speak`"]
pub struct Begun<S> {
    settling: S,
}

impl<S> Begun<S> {
    /// The start, with the settling window `settling` open (the handlers were installed by the
    /// caller just before, as its first act).
    pub fn new(settling: S) -> Self {
        Self { settling }
    }

    /// Step 2: `words` (the forced exit's JSON) registered; the settling window closes after.
    pub fn speak<W>(self, words: W) -> Speaking<W> {
        let speaking = Speaking { words };
        drop(self.settling);
        speaking
    }
}

/// Step 2 done: the last words exist, the settling window is closed.
#[derive(Debug)]
#[must_use = "the next step is `build_lab`"]
pub struct Speaking<W> {
    words: W,
}

impl<W> Speaking<W> {
    /// Step 3: the lab built by `build` under the last words. On failure the words are handed
    /// back with the error, so that the caller writes the JSON of a run that never started.
    pub fn build_lab<L, E>(
        self,
        build: impl FnOnce() -> Result<L, E>,
    ) -> Result<Held<L, W>, (W, E)> {
        match build() {
            Ok(lab) => Ok(Held {
                lab,
                words: Some(self.words),
            }),
            Err(e) => Err((self.words, e)),
        }
    }
}

/// What a run holds until it ends. Fields drop in declaration order: the lab (torn down), then
/// the last words (released).
#[derive(Debug)]
pub struct Held<L, W> {
    lab: L,
    words: Option<W>,
}

impl<L, W> Held<L, W> {
    /// The lab, to read its targets.
    pub fn lab(&self) -> &L {
        &self.lab
    }

    /// The lab, to annotate it.
    pub fn lab_mut(&mut self) -> &mut L {
        &mut self.lab
    }

    /// The run's own sink now writes the JSON on every way out: the early words are released.
    pub fn words_taken_over(&mut self) {
        self.words = None;
    }
}

/// Step 5: a start every rank agreed on (alone, trivially).
#[derive(Debug)]
pub struct Agreed<T>(T);

impl<T> Agreed<T> {
    /// `mine` once `agree` (every rank's verdict on its own inputs, `None` when all went on)
    /// says all ranks go on; the first failing rank's error otherwise.
    pub fn new<E>(
        mine: Result<T, E>,
        agree: impl FnOnce(Option<&E>) -> Option<E>,
    ) -> Result<Self, E> {
        match agree(mine.as_ref().err()) {
            Some(theirs) => Err(theirs),
            None => mine.map(Self),
        }
    }

    /// The agreed start.
    pub fn into_inner(self) -> T {
        self.0
    }

    /// The agreed start, to read.
    pub fn get(&self) -> &T {
        &self.0
    }

    /// The agreed start, to change.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// How a run ended, every failure it had, reported in one fixed precedence by [`Ending::first`].
#[derive(Debug)]
pub struct Ending<E> {
    /// An export or the store failed: the results are not where they were asked to be.
    pub outputs: Option<E>,
    /// The scratch or the lab could not be removed.
    pub cleanup: Option<E>,
    /// A signal stopped the run.
    pub interrupted: Option<E>,
    /// Workloads that failed, in order (the last one is reported, the others printed).
    pub failures: Vec<E>,
    /// The tables could not be printed.
    pub printing: Option<E>,
    /// `--html` could not be written.
    pub html: Option<E>,
    /// The gate against `--baseline` failed or could not judge.
    pub gate: Option<E>,
}

impl<E> Default for Ending<E> {
    fn default() -> Self {
        Self {
            outputs: None,
            cleanup: None,
            interrupted: None,
            failures: Vec::new(),
            printing: None,
            html: None,
            gate: None,
        }
    }
}

impl<E> Ending<E> {
    /// The failure the run exits with, and the workload failures printed before it: outputs
    /// first (a result not kept is the worst), then the cleanup, an interruption, the
    /// workloads' failures (the last one), printing, the HTML, and last the gate (a judgement
    /// on results that were kept and shown).
    pub fn first(self) -> (Option<E>, Vec<E>) {
        let Self {
            outputs,
            cleanup,
            interrupted,
            mut failures,
            printing,
            html,
            gate,
        } = self;
        if let Some(e) = outputs.or(cleanup).or(interrupted) {
            return (Some(e), Vec::new());
        }
        if let Some(last) = failures.pop() {
            return (Some(last), failures);
        }
        (printing.or(html).or(gate), Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// A guard that logs its name when it is dropped.
    #[derive(Debug)]
    struct Logged(&'static str, Rc<RefCell<Vec<&'static str>>>);

    impl Drop for Logged {
        fn drop(&mut self) {
            self.1.borrow_mut().push(self.0);
        }
    }

    #[test]
    fn settling_ends_after_the_words_and_the_lab_goes_before_them() {
        let log = Rc::new(RefCell::new(Vec::new()));
        let guard = |name| Logged(name, log.clone());
        let begun = Begun::new(guard("settling closed"));
        log.borrow_mut().push("words registered");
        let speaking = begun.speak(guard("words released"));
        log.borrow_mut().push("lab building");
        let held = speaking
            .build_lab(|| Ok::<_, ()>(guard("lab torn down")))
            .unwrap();
        log.borrow_mut().push("run measured");
        drop(held);
        assert_eq!(
            *log.borrow(),
            [
                "words registered",
                "settling closed",
                "lab building",
                "run measured",
                "lab torn down",
                "words released"
            ]
        );
    }

    #[test]
    fn a_failed_lab_hands_the_words_back_and_a_taken_over_run_releases_them_early() {
        let log = Rc::new(RefCell::new(Vec::new()));
        let speaking = Begun::new(()).speak(Logged("words", log.clone()));
        let (words, e) = speaking
            .build_lab(|| Err::<(), _>("no loop device"))
            .unwrap_err();
        assert_eq!(e, "no loop device");
        assert!(log.borrow().is_empty(), "the words outlive a failed build");
        drop(words);
        let mut held = Begun::new(())
            .speak(Logged("early words", log.clone()))
            .build_lab(|| Ok::<_, ()>(Logged("lab", log.clone())))
            .unwrap();
        held.words_taken_over();
        drop(held);
        assert_eq!(*log.borrow(), ["words", "early words", "lab"]);
    }

    #[test]
    fn another_ranks_failure_stops_this_one() {
        let ok = Agreed::new(Ok::<_, String>(1), |_| None).unwrap();
        assert_eq!(ok.into_inner(), 1);
        let theirs = Agreed::new(Ok::<u8, _>(1), |_| {
            Some("rank 2 on h2: no target".to_string())
        });
        assert_eq!(theirs.unwrap_err(), "rank 2 on h2: no target");
        let mine = Agreed::new(Err::<u8, _>("mine".to_string()), |e| e.cloned());
        assert_eq!(mine.unwrap_err(), "mine");
    }

    #[test]
    fn failures_are_reported_outputs_first_and_the_gate_last() {
        let all = || Ending {
            outputs: Some("outputs"),
            cleanup: Some("cleanup"),
            interrupted: Some("interrupted"),
            failures: vec!["w1", "w2"],
            printing: Some("printing"),
            html: Some("html"),
            gate: Some("gate"),
        };
        assert_eq!(all().first(), (Some("outputs"), vec![]));
        let mut e = all();
        e.outputs = None;
        assert_eq!(e.first().0, Some("cleanup"));
        let mut e = all();
        (e.outputs, e.cleanup) = (None, None);
        assert_eq!(e.first().0, Some("interrupted"));
        let mut e = all();
        (e.outputs, e.cleanup, e.interrupted) = (None, None, None);
        assert_eq!(e.first(), (Some("w2"), vec!["w1"]));
        let mut e = all();
        (e.outputs, e.cleanup, e.interrupted) = (None, None, None);
        e.failures.clear();
        assert_eq!(e.first().0, Some("printing"));
        e = Ending {
            html: Some("html"),
            gate: Some("gate"),
            ..Ending::default()
        };
        assert_eq!(e.first().0, Some("html"));
        e = Ending {
            gate: Some("gate"),
            ..Ending::default()
        };
        assert_eq!(e.first().0, Some("gate"));
        assert_eq!(Ending::<&str>::default().first(), (None, vec![]));
    }
}
