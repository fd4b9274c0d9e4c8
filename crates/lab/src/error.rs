//! The lab's one error type. Each variant says what failed (a tool and the last line it wrote, a
//! path and the I/O error, what the machine lacks, a request refused with its fix) in one line;
//! the public functions turn it into the engine's [`fsbench_model::Failure`]: a refused request
//! is an input error, anything that fails while building is a run error.

use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

/// Why a lab step failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A tool the step runs is not on `$PATH`.
    #[error("{program} is not installed (apt-get install {package})")]
    NotInstalled {
        /// The command (`mkfs.xfs`).
        program: String,
        /// The Debian package that ships it (`xfsprogs`).
        package: String,
    },
    /// A tool ran and failed.
    #[error("{program} failed ({status}): {last_line}")]
    ToolFailed {
        /// The command.
        program: String,
        /// How it exited.
        status: ExitStatus,
        /// The last line it wrote (stdout and stderr together), trimmed.
        last_line: String,
    },
    /// A tool ran past its time limit and was killed.
    #[error("{program} did not finish within {} s and was killed", .after.as_secs())]
    ToolTimedOut {
        /// The command.
        program: String,
        /// Its time limit.
        after: Duration,
    },
    /// A tool was cancelled while it ran.
    #[error("{program} was cancelled")]
    ToolCancelled {
        /// The command.
        program: String,
    },
    /// A tool could not be started, its output captured, or its end waited for.
    #[error("cannot {action} {program}: {source}")]
    ToolIo {
        /// `start`, `capture the output of`, `wait for`.
        action: &'static str,
        /// The command.
        program: String,
        /// The error.
        source: std::io::Error,
    },
    /// A tool succeeded but did not print what it should have.
    #[error("{program} printed {missing}: {output}")]
    ToolOutput {
        /// The command.
        program: String,
        /// What was missing (`no device`).
        missing: &'static str,
        /// What it printed instead (its last line).
        output: String,
    },
    /// An I/O error (or a refused ioctl) on a path.
    #[error("cannot {action} {}: {source}", .path.display())]
    Io {
        /// What was done (`create`, `make the image`, `set an fscrypt policy on`).
        action: &'static str,
        /// Where.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A path that must be text is not UTF-8.
    #[error("{} is not UTF-8", .0.display())]
    NotUtf8(PathBuf),
    /// The filesystem has no free-space extent report fsbench can read.
    #[error("{}", no_report(.0))]
    NoFreeSpaceReport(String),
    /// The dm-crypt mapping's name would be longer than the device-mapper allows.
    #[error(
        "the dm-crypt mapping name {name} is longer than the device-mapper's {max} characters — give a shorter --lab label"
    )]
    NameTooLong {
        /// The name.
        name: String,
        /// The longest name the device-mapper takes.
        max: usize,
    },
    /// The machine lacks what some entries need (a tool, a kernel part): refused before building.
    #[error("cannot build --lab {entries}: {} — {fix} {entries} from --lab", .problems.join("; "))]
    Lacks {
        /// The entries that cannot be built, comma-separated as given.
        entries: String,
        /// Every missing part (a tool and its package, a kernel part), each once.
        problems: Vec<String>,
        /// What to do about it (`install it, or drop`).
        fix: &'static str,
    },
    /// A request refused before anything is built (a size, a directory, a label): the reason
    /// and the fix.
    #[error("{0}")]
    Refused(String),
    /// Something the lab made could not be undone, with how to undo it by hand.
    #[error("cannot {what}: {cause} — {fix}")]
    NotUndone {
        /// What was tried (`detach /dev/loop3`).
        what: String,
        /// Why it failed.
        cause: Box<Error>,
        /// What the user can do (`run 'losetup -d /dev/loop3'`).
        fix: String,
    },
    /// A mount stayed busy and `umount -l` failed too.
    #[error("cannot unmount {point}: {busy}; 'umount -l' failed too: {lazy} — unmount it by hand")]
    StillMounted {
        /// The mount point.
        point: String,
        /// Why the plain unmounts failed (the last reason).
        busy: String,
        /// Why the lazy one failed.
        lazy: Box<Error>,
    },
    /// A build step was refused because the lab is being torn down (a signal arrived).
    #[error("interrupted: the lab is being torn down")]
    TearingDown,
    /// Aging stopped: a signal arrived, or the lab is being torn down.
    #[error("interrupted while aging")]
    Interrupted,
}

impl Error {
    /// An I/O error of `action` on `path`.
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        Self::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// A refused request: the reason and the fix, one line.
    pub(crate) fn refused(line: impl Into<String>) -> Self {
        Self::Refused(line.into())
    }
}

/// Why `fs` has no free-space extent report.
fn no_report(fs: &str) -> String {
    match fs {
        "btrfs" => "btrfs-progs has no free-space extent report".into(),
        _ => format!("no free-space extent report for {fs}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_is_one_line_naming_what_failed() {
        let io = || std::io::Error::from_raw_os_error(libc::ENOSPC);
        let all = [
            Error::io("make the image", "/x/ext4/disk.img", io()),
            Error::NotUndone {
                what: "detach /dev/loop3".into(),
                cause: Box::new(Error::ToolCancelled {
                    program: "losetup".into(),
                }),
                fix: "run 'losetup -d /dev/loop3'".into(),
            },
            Error::Lacks {
                entries: "xfs,btrfs".into(),
                problems: vec![
                    "mkfs.xfs is not installed (apt-get install xfsprogs)".into(),
                    "this kernel has no btrfs filesystem".into(),
                ],
                fix: "install it, or drop",
            },
            Error::NoFreeSpaceReport("btrfs".into()),
        ];
        let lines: Vec<String> = all.iter().map(Error::to_string).collect();
        for l in &lines {
            assert_eq!(l.lines().count(), 1, "{l}");
        }
        assert!(lines[0].starts_with("cannot make the image /x/ext4/disk.img: No space"));
        assert_eq!(
            lines[1],
            "cannot detach /dev/loop3: losetup was cancelled — run 'losetup -d /dev/loop3'"
        );
        assert!(lines[2].starts_with("cannot build --lab xfs,btrfs: mkfs.xfs is not installed (apt-get install xfsprogs); this kernel has no btrfs"));
        assert!(lines[2].ends_with("— install it, or drop xfs,btrfs from --lab"));
        assert_eq!(lines[3], "btrfs-progs has no free-space extent report");
    }
}
