//! The scratch guard: a small process (`fsbench __scratch-guard PID`) that outlives fsbench to
//! clean up after it when fsbench dies without doing so itself — SIGKILL, the OOM killer, an
//! MPI rank killed by mpirun. fsbench tells it over a pipe which scratches are live, and in a
//! table in shared memory which child process groups are; when the pipe closes (fsbench gone,
//! however it ended), the guard kills each group still listed (PR_SET_PDEATHSIG reaches only a
//! direct child: a command's own children, the `sleep` under `sh -c`, would survive), then
//! removes each scratch still listed whose marker names fsbench's pid, with the same safe
//! removal (no symlinks followed, no mount crossed), then exits. It runs in its own process
//! group, so the Ctrl-C of a terminal or mpirun's kill of a rank's group does not reach it.
//!
//! Groups go through shared memory, not the pipe, because a group is listed while the program
//! under test starts: a message would wake the guard on a CPU the program wants (a `/bin/true`
//! read 3–7% slower than under hyperfine with it), where a store into the table wakes nobody.

use fsbench_sys::shared::SharedWords;
use std::io::{BufRead, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::Ordering;

/// The hidden command that runs the guard.
pub const COMMAND: &str = "__scratch-guard";

/// Process groups the table holds at once; beyond, a group travels as a pipe message.
const GROUP_SLOTS: usize = 1024;

/// The guard's pipe and the table of live groups it shares with fsbench.
struct Link {
    pipe: ChildStdin,
    groups: Option<GroupTable>,
}

static LINK: Mutex<Option<Link>> = Mutex::new(None);

/// [`GROUP_SLOTS`] process group ids in words shared through a memory file
/// ([`SharedWords`]; 0: a free slot), written by fsbench and read by the guard once fsbench is
/// gone.
struct GroupTable {
    words: SharedWords,
}

impl GroupTable {
    /// A new table (its memory file is handed to the guard).
    fn new() -> Option<Self> {
        SharedWords::new(GROUP_SLOTS)
            .ok()
            .map(|words| Self { words })
    }

    /// Maps the table in `fd` (the guard's side); `None` when `fd` is not one.
    fn open(fd: &impl AsFd) -> Option<Self> {
        let fd = fd.as_fd().try_clone_to_owned().ok()?;
        SharedWords::open(fd, GROUP_SLOTS)
            .ok()
            .map(|words| Self { words })
    }

    /// Lists `pgid`; false when every slot is taken.
    fn add(&self, pgid: i32) -> bool {
        let Ok(g) = u64::try_from(pgid) else {
            return false;
        };
        self.words.words().iter().any(|s| {
            s.compare_exchange(0, g, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        })
    }

    /// Unlists `pgid`; false when it was not listed here.
    fn remove(&self, pgid: i32) -> bool {
        let Ok(g) = u64::try_from(pgid) else {
            return false;
        };
        self.words.words().iter().any(|s| {
            s.compare_exchange(g, 0, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        })
    }

    /// The groups listed.
    fn listed(&self) -> Vec<i32> {
        self.words
            .words()
            .iter()
            .filter_map(|s| i32::try_from(s.load(Ordering::SeqCst)).ok())
            .filter(|&g| g > 1)
            .collect()
    }
}

/// Asks the guard (started on first use) to remove `path` if fsbench dies.
pub fn watch(path: &Path) {
    send('+', &encode(path));
}

/// The scratch at `path` was removed or is to be kept: the guard forgets it.
pub fn forget(path: &Path) {
    send('-', &encode(path));
}

/// Asks the guard (started on first use) to kill process group `pgid` if fsbench dies while it
/// runs: the group of a child fsbench started, with whatever that child started in turn.
/// A store into the shared table, which wakes nobody (a pipe message when the table is full or
/// could not be made).
pub fn watch_group(pgid: i32) {
    let Ok(mut link) = LINK.lock() else {
        return;
    };
    if link.is_none() {
        *link = start();
    }
    let listed = link
        .as_ref()
        .and_then(|l| l.groups.as_ref())
        .is_some_and(|t| t.add(pgid));
    if !listed {
        send_on(&mut link, 'g', &pgid.to_string());
    }
}

/// Process group `pgid` ended (its leader was reaped): the guard forgets it.
pub fn forget_group(pgid: i32) {
    let Ok(mut link) = LINK.lock() else {
        return;
    };
    let unlisted = link
        .as_ref()
        .and_then(|l| l.groups.as_ref())
        .is_some_and(|t| t.remove(pgid));
    if !unlisted {
        send_on(&mut link, 'G', &pgid.to_string());
    }
}

fn send(op: char, arg: &str) {
    let Ok(mut link) = LINK.lock() else {
        return;
    };
    if link.is_none() && op == '+' {
        *link = start();
    }
    send_on(&mut link, op, arg);
}

/// Writes one message to the guard; a guard that is gone is forgotten.
fn send_on(link: &mut Option<Link>, op: char, arg: &str) {
    if let Some(l) = link.as_mut()
        && writeln!(l.pipe, "{op}{arg}")
            .and_then(|()| l.pipe.flush())
            .is_err()
    {
        *link = None;
    }
}

/// Starts the guard: its standard input is the pipe, its standard output the memory file of the
/// group table (never written to as a stream).
fn start() -> Option<Link> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().ok()?;
    let table = GroupTable::new();
    let out = match &table {
        Some(t) => Stdio::from(t.words.fd().try_clone_to_owned().ok()?),
        None => Stdio::null(),
    };
    let child = Command::new(exe)
        .arg(COMMAND)
        .arg(std::process::id().to_string())
        .stdin(Stdio::piped())
        .stdout(out)
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .ok()?;
    Some(Link {
        pipe: child.stdin?,
        groups: table,
    })
}

/// The guard's main: reads the live scratches until fsbench is gone, then removes those still
/// listed that are `owner`'s. Returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let Some(owner) = args.first().and_then(|a| a.parse::<u32>().ok()) else {
        return 2;
    };
    let table = GroupTable::open(&std::io::stdout());
    let mut live: Vec<PathBuf> = Vec::new();
    let mut groups: Vec<i32> = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let arg = line.get(1..).unwrap_or("");
        match line.as_bytes().first() {
            Some(b'+') => live.extend(decode(arg)),
            Some(b'-') => {
                if let Some(path) = decode(arg) {
                    live.retain(|p| p != &path);
                }
            }
            Some(b'g') => groups.extend(arg.parse::<i32>().ok().filter(|&g| g > 1)),
            Some(b'G') => {
                if let Ok(g) = arg.parse::<i32>() {
                    groups.retain(|&x| x != g);
                }
            }
            _ => {}
        }
    }
    groups.extend(table.iter().flat_map(GroupTable::listed));
    // Processes first: nothing may keep writing into a scratch being removed.
    for pgid in groups {
        if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
    for path in live {
        match marker_owner(&path) {
            Some(pid) if pid == owner => {
                let _ = crate::remove_tree(&path);
            }
            // Killed between mkdir and the end of the marker's write: nothing but an empty or
            // partial marker inside, removed only so (never a directory holding anything else).
            None => remove_unfinished(&path),
            _ => {}
        }
    }
    0
}

/// Removes `path` if it is a scratch fsbench was killed in the middle of making: a directory
/// (not a symlink) holding nothing, or only a marker that names no owner yet (created, not yet
/// written, or written in part). Anything else in it means it is not ours to remove.
fn remove_unfinished(path: &Path) {
    let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_dir());
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    let names: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.file_name()))
        .collect();
    if !is_dir || names.iter().any(|n| n != crate::MARKER) {
        return;
    }
    let marker = path.join(crate::MARKER);
    if !names.is_empty() {
        let regular = std::fs::symlink_metadata(&marker).is_ok_and(|m| m.file_type().is_file());
        if !regular || std::fs::remove_file(&marker).is_err() {
            return;
        }
    }
    let _ = std::fs::remove_dir(path);
}

/// Paths travel hex-encoded: any byte, newlines included, survives the line protocol.
fn encode(path: &Path) -> String {
    path.as_os_str()
        .as_encoded_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn decode(hex: &str) -> Option<PathBuf> {
    if hex.len() % 2 != 0 || !hex.is_ascii() {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect();
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes?)))
}

/// The pid in the scratch's marker, if it is a scratch at all.
fn marker_owner(path: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(path.join(crate::MARKER)).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("pid="))
        .and_then(|p| p.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_stored_by_fsbench_are_what_the_guard_reads_and_a_full_table_says_so() {
        let ours = GroupTable::new().expect("a memory file");
        let guards = GroupTable::open(&ours.words.fd()).expect("the same table, mapped again");
        assert!(ours.add(4242) && ours.add(4343));
        assert!(ours.remove(4242));
        assert!(!ours.remove(4242), "listed once, removed once");
        assert_eq!(guards.listed(), vec![4343]);
        for g in 2..GROUP_SLOTS as i32 + 1 {
            assert!(ours.add(10_000 + g), "slot for {g}");
        }
        assert!(!ours.add(99), "full: the caller sends a message instead");
        assert_eq!(guards.listed().len(), GROUP_SLOTS);
        let other = tempfile::tempfile().unwrap();
        assert!(
            GroupTable::open(&other).is_none(),
            "an empty file is no table"
        );
    }

    #[test]
    fn paths_round_trip_through_hex_and_bad_lines_are_skipped() {
        let p = Path::new("/tmp/a b\nc/.fsbench-x");
        assert_eq!(decode(&encode(p)).as_deref(), Some(p));
        assert_eq!(decode("zz"), None);
        assert_eq!(decode("abc"), None);
        assert_eq!(decode("é0"), None);
    }

    #[test]
    fn a_scratch_killed_before_its_marker_was_written_is_removed_and_nothing_else() {
        let t = tempfile::tempdir().unwrap();
        let empty = t.path().join(".fsbench-empty");
        std::fs::create_dir(&empty).unwrap();
        remove_unfinished(&empty);
        assert!(!empty.exists(), "an empty directory is removed");
        let partial = t.path().join(".fsbench-partial");
        std::fs::create_dir(&partial).unwrap();
        std::fs::write(partial.join(crate::MARKER), "pi").unwrap();
        remove_unfinished(&partial);
        assert!(!partial.exists(), "a partial marker alone is removed");
        let other = t.path().join(".fsbench-other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join(crate::MARKER), "").unwrap();
        std::fs::write(other.join("data"), "x").unwrap();
        remove_unfinished(&other);
        assert!(
            other.join("data").exists(),
            "a directory holding more is left"
        );
        let link = t.path().join(".fsbench-link");
        std::os::unix::fs::symlink(empty.with_file_name("nowhere"), &link).unwrap();
        std::fs::create_dir(t.path().join("nowhere")).unwrap();
        remove_unfinished(&link);
        assert!(
            t.path().join("nowhere").exists(),
            "a symlink is never followed"
        );
    }

    #[test]
    fn only_a_scratch_marked_with_the_owner_pid_is_claimed() {
        let t = tempfile::tempdir().unwrap();
        let s = crate::Scratch::create(t.path(), "guard", &fsbench_sys::cleanup::Cleanup::new())
            .unwrap();
        assert_eq!(marker_owner(s.path()), Some(std::process::id()));
        assert_eq!(marker_owner(t.path()), None);
    }
}
