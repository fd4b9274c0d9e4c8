//! The outside programs a lab runs (`mkfs.*`, `losetup`, `mount`, `gocryptfs`...): found on
//! `$PATH` only (what the user's shell would run, so a `PATH` without a tool proves the error),
//! started through `fsbench_sys::child::spawn` (own process group, dies with fsbench, killed
//! on timeout), their output captured in an in-memory file so a chatty tool cannot block on a
//! full pipe.

use super::error::Error;
use fsbench_sys::cancel::CancelToken;
use fsbench_sys::child::{self, WaitError};
use fsbench_sys::cleanup::Cleanup;
use std::io::{Read, Seek};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// A program a lab kind needs and the Debian package that ships it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tool {
    /// Command name (`mkfs.xfs`).
    pub name: &'static str,
    /// Debian package (`xfsprogs`).
    pub package: &'static str,
}

/// The tools fsbench runs, with their packages (the one place that maps a command to a package).
pub const TOOLS: &[Tool] = &[
    Tool {
        name: "mount",
        package: "mount",
    },
    Tool {
        name: "umount",
        package: "mount",
    },
    Tool {
        name: "losetup",
        package: "mount",
    },
    Tool {
        name: "cryptsetup",
        package: "cryptsetup-bin",
    },
    Tool {
        name: "dmsetup",
        package: "dmsetup",
    },
    Tool {
        name: "exportfs",
        package: "nfs-kernel-server",
    },
    Tool {
        name: "mount.nfs",
        package: "nfs-common",
    },
    Tool {
        name: "mkfs.ext4",
        package: "e2fsprogs",
    },
    Tool {
        name: "e2freefrag",
        package: "e2fsprogs",
    },
    Tool {
        name: "filefrag",
        package: "e2fsprogs",
    },
    Tool {
        name: "xfs_spaceman",
        package: "xfsprogs",
    },
    Tool {
        name: "mkfs.xfs",
        package: "xfsprogs",
    },
    Tool {
        name: "mkfs.btrfs",
        package: "btrfs-progs",
    },
    Tool {
        name: "gocryptfs",
        package: "gocryptfs",
    },
    Tool {
        name: "bindfs",
        package: "bindfs",
    },
    Tool {
        name: "fusermount3",
        package: "fuse3",
    },
    Tool {
        name: "unshare",
        package: "util-linux",
    },
    Tool {
        name: "nsenter",
        package: "util-linux",
    },
    Tool {
        name: "setsid",
        package: "util-linux",
    },
    Tool {
        name: "ip",
        package: "iproute2",
    },
    Tool {
        name: "tc",
        package: "iproute2",
    },
    Tool {
        name: "glusterd",
        package: "glusterfs-server",
    },
    Tool {
        name: "gluster",
        package: "glusterfs-server",
    },
    Tool {
        name: "glusterfs",
        package: "glusterfs-client",
    },
    Tool {
        name: "sshd",
        package: "openssh-server",
    },
    Tool {
        name: "ssh",
        package: "openssh-client",
    },
    Tool {
        name: "ssh-keygen",
        package: "openssh-client",
    },
    Tool {
        name: "sshfs",
        package: "sshfs",
    },
];

/// The Debian package of command `name` (the command itself when unknown).
pub fn package_of(name: &str) -> &str {
    TOOLS
        .iter()
        .find(|t| t.name == name)
        .map_or(name, |t| t.package)
}

/// The executable `name` in a directory of `$PATH`, if any.
pub fn find(name: &str) -> Option<PathBuf> {
    fsbench_sys::process::find_program(name)
}

/// The executable `name` on `$PATH`, or the error naming its package.
pub fn require(name: &str) -> Result<PathBuf, Error> {
    find(name).ok_or_else(|| Error::NotInstalled {
        program: name.to_string(),
        package: package_of(name).to_string(),
    })
}

/// The command line as run, for the record (arguments with spaces are quoted).
pub fn display(program: &str, args: &[&str]) -> String {
    let quote = |a: &str| {
        if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'') {
            format!("'{}'", a.replace('\'', r"'\''"))
        } else {
            a.to_string()
        }
    };
    std::iter::once(program)
        .chain(args.iter().copied())
        .map(quote)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `program args` to completion (killed after `timeout`) and returns its output, trimmed;
/// the error says what failed and holds the tool's last line of output. The child is registered
/// in `cleanup` while it runs.
pub fn run(
    program: &str,
    args: &[&str],
    timeout: Duration,
    cleanup: &Cleanup,
) -> Result<String, Error> {
    let path = find(program).ok_or_else(|| Error::NotInstalled {
        program: program.to_string(),
        package: package_of(program).to_string(),
    })?;
    let io = |action| {
        move |source| Error::ToolIo {
            action,
            program: program.to_string(),
            source,
        }
    };
    let out = memfd().map_err(io("capture the output of"))?;
    let mut cmd = Command::new(&path);
    cmd.args(args).env("LC_ALL", "C").stdin(Stdio::null());
    cmd.stdout(out.try_clone().map_err(io("capture the output of"))?);
    cmd.stderr(out.try_clone().map_err(io("capture the output of"))?);
    let mut child = child::spawn(&mut cmd, cleanup).map_err(io("start"))?;
    drop(cmd);
    let status = child
        .wait(&CancelToken::new(), Some(timeout))
        .map_err(|e| match e {
            WaitError::TimedOut(after) => Error::ToolTimedOut {
                program: program.to_string(),
                after,
            },
            WaitError::Cancelled => Error::ToolCancelled {
                program: program.to_string(),
            },
            WaitError::Io(e) => io("wait for")(e),
        })?;
    let text = read_all(out);
    if status.success() {
        return Ok(text.trim().to_string());
    }
    Err(Error::ToolFailed {
        program: program.to_string(),
        status,
        last_line: last_line(&text).to_string(),
    })
}

/// The last line of `text` that is not blank, trimmed.
pub(crate) fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
}

fn memfd() -> std::io::Result<std::fs::File> {
    let fd = rustix::fs::memfd_create("fsbench-lab-tool", rustix::fs::MemfdFlags::CLOEXEC)?;
    Ok(std::fs::File::from(fd))
}

/// What a tool wrote, at most 64 KiB of it (lossy UTF-8).
fn read_all(mut f: std::fs::File) -> String {
    let mut buf = Vec::new();
    if f.rewind().is_ok() {
        let _ = f.take(64 << 10).read_to_end(&mut buf);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_and_failures_are_captured() {
        let t = Duration::from_secs(10);
        let c = Cleanup::new();
        assert_eq!(
            run("sh", &["-c", "echo hi; echo there >&2"], t, &c).unwrap(),
            "hi\nthere"
        );
        let e = run(
            "sh",
            &["-c", "echo first; echo 'the reason' >&2; exit 3"],
            t,
            &c,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("sh failed") && e.ends_with("the reason"), "{e}");
        let e = run("no-such-tool-fsbench", &[], t, &c)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not installed"), "{e}");
    }

    #[test]
    fn a_hanging_tool_is_killed() {
        let e = run(
            "sleep",
            &["30"],
            Duration::from_millis(100),
            &Cleanup::new(),
        )
        .unwrap_err();
        assert!(matches!(e, Error::ToolTimedOut { .. }), "{e}");
        assert!(e.to_string().contains("killed"), "{e}");
    }

    #[test]
    fn commands_are_displayed_quoted() {
        assert_eq!(display("mount", &["-o", "a b", "x"]), "mount -o 'a b' x");
        assert_eq!(package_of("mkfs.btrfs"), "btrfs-progs");
        assert_eq!(package_of("fusermount3"), "fuse3");
    }
}
