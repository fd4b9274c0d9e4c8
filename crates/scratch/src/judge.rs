//! What `fsbench clean` does with each `.fsbench-*` directory it finds: remove it (its owner is
//! gone), leave it for a reason that is no fault (a live run, another host's, one being made), or
//! leave it although it looks stale (no marker for a long time, no owner named) — said with what
//! to do, and a failure of the command.

use crate::Found;
use std::time::Duration;

/// A directory without a marker that has not changed for this long is no scratch being made.
pub const UNMARKED_STALE_AFTER: Duration = Duration::from_secs(60);

/// What `clean` does with one scratch directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Its owner is gone: undo its lab and remove it.
    Remove,
    /// Not ours to judge or still in use: left, with the reason.
    Keep(String),
    /// Left although it looks stale: the reason and what to do.
    LooksStale(String),
}

/// The verdict on `f`; host names from its marker are escaped for the terminal.
pub fn judge(f: &Found) -> Verdict {
    if let Some(host) = &f.elsewhere {
        return Verdict::Keep(format!(
            "made by a run on host {} — run 'fsbench clean' there",
            fsbench_model::text::escape_controls(host)
        ));
    }
    if !f.marked {
        let why = "it has no fsbench marker, so it may not be fsbench's";
        return match f.age >= UNMARKED_STALE_AFTER {
            true => Verdict::LooksStale(format!(
                "{why}, and nothing changed in it for {} s — remove it by hand if no run of yours uses it",
                f.age.as_secs()
            )),
            false => Verdict::Keep(format!("{why}; a run may be making it this moment")),
        };
    }
    match (f.stale, f.pid) {
        (true, _) => Verdict::Remove,
        (false, Some(pid)) => Verdict::Keep(format!("its run, pid {pid}, is still running")),
        (false, None) => Verdict::LooksStale(
            "its marker names no owner — remove it by hand if no run of yours uses it".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(stale: bool, pid: Option<u32>, marked: bool, age_s: u64) -> Found {
        Found {
            path: "/t/.fsbench-x".into(),
            pid,
            stale,
            marked,
            elsewhere: None,
            age: Duration::from_secs(age_s),
        }
    }

    #[test]
    fn each_kind_of_scratch_gets_its_verdict() {
        assert_eq!(judge(&found(true, Some(7), true, 0)), Verdict::Remove);
        assert!(
            matches!(judge(&found(false, Some(7), true, 0)), Verdict::Keep(w) if w.contains("pid 7"))
        );
        assert!(matches!(
            judge(&found(false, None, false, 5)),
            Verdict::Keep(_)
        ));
        assert!(
            matches!(judge(&found(false, None, false, 600)), Verdict::LooksStale(w) if w.contains("600 s"))
        );
        assert!(matches!(
            judge(&found(false, None, true, 0)),
            Verdict::LooksStale(_)
        ));
        let mut other = found(false, Some(7), true, 0);
        other.elsewhere = Some("node\u{1b}2".into());
        assert!(matches!(judge(&other), Verdict::Keep(w) if w.contains("node\\u{1b}2")));
    }
}
