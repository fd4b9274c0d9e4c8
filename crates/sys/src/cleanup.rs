//! The one cleanup registry of a process: what must be undone if it has to stop now (a second
//! signal, the grace period after the first, a panic), registered by whatever made it — a child
//! process group, a lab's mounts and loop devices, a scratch directory — and forgotten when its
//! owner undid it normally. The binary makes one [`Cleanup`] and hands clones down to the
//! runner, the lab, the workloads and the scratch directories; the signal watcher and the panic
//! hook call [`Cleanup::release_all`], which undoes every stage in order: processes killed first
//! (nothing may keep writing), then what must be said written (exports, the store's mark), then
//! labs torn down (mounts over scratch), then scratches removed.

use std::sync::{Arc, Mutex, MutexGuard};

/// When an undo step runs in [`Cleanup::release_all`]: every step of one stage before the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Child process groups, killed.
    Processes,
    /// What must be written before leaving: the exports so far, the store's mark that the run
    /// was interrupted.
    Outputs,
    /// Lab targets, torn down (unmounted, loop devices detached, keys removed).
    Labs,
    /// Scratch directories, removed.
    Scratches,
}

/// An undo step: returns the lines to show the user (notes and problems).
type Undo = Box<dyn FnOnce() -> Vec<String> + Send>;

#[derive(Default)]
struct Registry {
    next: u64,
    steps: Vec<(u64, Stage, Undo)>,
    closed: bool,
    /// Told of every child process group as it starts and ends (the scratch guard).
    group_watcher: Option<GroupWatcher>,
}

/// Functions told of a child process group's start and end: `(started, ended)`.
pub type GroupWatcher = (fn(i32), fn(i32));

/// A shared handle to the registry; clones are the same registry.
#[derive(Clone, Default)]
pub struct Cleanup(Arc<Mutex<Registry>>);

impl std::fmt::Debug for Cleanup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = self.lock();
        f.debug_struct("Cleanup")
            .field("steps", &r.steps.len())
            .field("closed", &r.closed)
            .finish()
    }
}

/// One registered undo step; dropping it forgets the step (its owner undid it normally).
#[derive(Debug)]
#[must_use = "dropping the registration forgets the undo step at once"]
pub struct Registration {
    cleanup: Cleanup,
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.cleanup
            .lock()
            .steps
            .retain(|(id, _, _)| *id != self.id);
    }
}

impl Cleanup {
    /// A new, empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Registry> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers `undo` to run at `stage` if the process must stop before the returned
    /// registration is dropped.
    pub fn register(
        &self,
        stage: Stage,
        undo: impl FnOnce() -> Vec<String> + Send + 'static,
    ) -> Registration {
        let mut r = self.lock();
        r.next += 1;
        let id = r.next;
        r.steps.push((id, stage, Box::new(undo)));
        Registration {
            cleanup: self.clone(),
            id,
        }
    }

    /// Makes something with `make` and registers its `undo` as one step that a concurrent
    /// [`release_all`](Self::release_all) cannot split: `make` runs under the registry's lock,
    /// so a release either ran before (nothing is made: `Ok(None)`) or sees the step and undoes
    /// it. Without this, a directory made just after the release's last stage outlived the
    /// process. `make` must not use this registry.
    pub fn make_registered<T, E>(
        &self,
        stage: Stage,
        make: impl FnOnce() -> Result<T, E>,
        undo: impl FnOnce() -> Vec<String> + Send + 'static,
    ) -> Result<Option<(T, Registration)>, E> {
        let mut r = self.lock();
        if r.closed {
            return Ok(None);
        }
        let made = make()?;
        r.next += 1;
        let id = r.next;
        r.steps.push((id, stage, Box::new(undo)));
        let registration = Registration {
            cleanup: self.clone(),
            id,
        };
        Ok(Some((made, registration)))
    }

    /// Has `watcher` told of every child process group registered from now on: a watcher
    /// outside this process (the scratch guard) can then kill a group's grandchildren when
    /// this process is killed and can undo nothing itself.
    pub fn set_group_watcher(&self, watcher: GroupWatcher) {
        self.lock().group_watcher = Some(watcher);
    }

    /// Child process group `pgid` started (its leader is `pgid`).
    pub fn group_started(&self, pgid: i32) {
        let watcher = self.lock().group_watcher;
        if let Some((started, _)) = watcher {
            started(pgid);
        }
    }

    /// Child process group `pgid` ended (its leader was reaped).
    pub fn group_ended(&self, pgid: i32) {
        let watcher = self.lock().group_watcher;
        if let Some((_, ended)) = watcher {
            ended(pgid);
        }
    }

    /// True once [`release_all`](Self::release_all) ran: nothing more should be built.
    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Undoes every registered step, stage by stage (newest first within a stage), and closes
    /// the registry. Each stage's steps are taken out just before they run, so a step may
    /// itself start a process (`umount`) that registers and finishes normally, and a step of an
    /// earlier stage may forget one of a later stage (a lab that keeps its scratch because a
    /// loop device is still attached to an image in it). Returns the steps' lines.
    pub fn release_all(&self) -> Vec<String> {
        self.lock().closed = true;
        let mut lines = Vec::new();
        for stage in [
            Stage::Processes,
            Stage::Outputs,
            Stage::Labs,
            Stage::Scratches,
        ] {
            let steps: Vec<(u64, Stage, Undo)> = {
                let mut r = self.lock();
                let (now, later) = std::mem::take(&mut r.steps)
                    .into_iter()
                    .partition(|(_, s, _)| *s == stage);
                r.steps = later;
                now
            };
            // Undo in the reverse order of making.
            lines.extend(steps.into_iter().rev().flat_map(|(_, _, undo)| undo()));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_runs_stages_in_order_newest_first_and_skips_what_was_forgotten() {
        let c = Cleanup::new();
        let log = Arc::new(Mutex::new(Vec::new()));
        let step = |name: &'static str| {
            let log = log.clone();
            move || {
                log.lock().unwrap().push(name);
                vec![format!("undid {name}")]
            }
        };
        let _a = c.register(Stage::Scratches, step("scratch 1"));
        let _b = c.register(Stage::Processes, step("process 1"));
        let forgotten = c.register(Stage::Labs, step("lab forgotten"));
        let _d = c.register(Stage::Labs, step("lab 2"));
        let _e = c.register(Stage::Processes, step("process 2"));
        drop(forgotten);
        let lines = c.release_all();
        assert_eq!(
            *log.lock().unwrap(),
            ["process 2", "process 1", "lab 2", "scratch 1"]
        );
        assert_eq!(lines.len(), 4);
        assert!(c.is_closed());
        assert!(c.release_all().is_empty(), "each step runs once");
    }

    #[test]
    fn a_step_may_forget_a_step_of_a_later_stage() {
        let c = Cleanup::new();
        let scratch = Arc::new(Mutex::new(Some(
            c.register(Stage::Scratches, || vec!["scratch removed".into()]),
        )));
        let keep = scratch.clone();
        let _lab = c.register(Stage::Labs, move || {
            keep.lock().unwrap().take(); // the lab keeps its scratch
            vec!["lab kept its scratch".into()]
        });
        assert_eq!(c.release_all(), ["lab kept its scratch"]);
    }

    #[test]
    fn nothing_is_made_once_released_and_what_was_made_before_is_undone() {
        let c = Cleanup::new();
        let made = c.make_registered(
            Stage::Scratches,
            || Ok::<_, ()>(1),
            || vec!["undone".into()],
        );
        let (value, _registration) = made.unwrap().unwrap();
        assert_eq!(value, 1);
        assert_eq!(c.release_all(), ["undone"]);
        let late = c.make_registered(
            Stage::Scratches,
            || -> Result<(), ()> { panic!("made after release") },
            Vec::new,
        );
        assert!(late.unwrap().is_none());
    }

    #[test]
    fn a_release_waits_for_a_make_in_progress_and_undoes_it() {
        let c = Cleanup::new();
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let maker = {
            let c = c.clone();
            std::thread::spawn(move || {
                c.make_registered(
                    Stage::Scratches,
                    || {
                        started_tx.send(()).unwrap();
                        std::thread::sleep(std::time::Duration::from_millis(100));
                        Ok::<_, ()>(())
                    },
                    || vec!["undone".into()],
                )
                .unwrap()
                .map(|(_, r)| std::mem::forget(r))
            })
        };
        started_rx.recv().unwrap();
        assert_eq!(
            c.release_all(),
            ["undone"],
            "the release saw the step made under it"
        );
        assert!(maker.join().unwrap().is_some());
    }

    #[test]
    fn a_step_may_register_while_the_registry_is_released() {
        let c = Cleanup::new();
        let inner = c.clone();
        let _r = c.register(Stage::Labs, move || {
            let _nested = inner.register(Stage::Processes, Vec::new);
            vec!["nested ok".into()]
        });
        assert_eq!(c.release_all(), ["nested ok"]);
    }
}
