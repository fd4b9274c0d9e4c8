//! Keeping a replay inside its scratch: every symlink it makes (from the start state or
//! replayed) points by an absolute path into the replay's root, to a normalised path without
//! `..`, or — when it pointed outside the recorded root — nowhere (a dangling name inside the
//! root). With every symlink so confined and every path of a trace relative without `..`, no
//! lookup made from the replay's root can leave it.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// What a symlink outside the root is replaced by: a name that does not exist in the root.
pub const OUTSIDE: &str = ".fsbench-outside-the-root";

/// The target to give a symlink at `link` (relative to the root) whose recorded target was
/// `target`, in a replay rooted at `replay_root`; `recorded_root` is the recording's root (an
/// absolute target below it stays below the replay's). `None` when it pointed outside.
pub fn confined(
    link: &[u8],
    target: &[u8],
    recorded_root: &[u8],
    replay_root: &Path,
) -> (PathBuf, bool) {
    let inside = if target.first() == Some(&b'/') {
        let root = recorded_root.strip_suffix(b"/").unwrap_or(recorded_root);
        match target.strip_prefix(root) {
            Some(rest) if rest.is_empty() || rest[0] == b'/' => normal(&[], rest),
            _ => None,
        }
    } else {
        let dir: Vec<&[u8]> = match link.iter().rposition(|&b| b == b'/') {
            Some(i) => link[..i].split(|&b| b == b'/').collect(),
            None => Vec::new(),
        };
        normal(&dir, target)
    };
    match inside {
        Some(rel) => (replay_root.join(std::ffi::OsStr::from_bytes(&rel)), true),
        None => (replay_root.join(OUTSIDE), false),
    }
}

/// `base` (components) joined with `rel`, `.` and `..` taken out; `None` if it climbs above.
fn normal(base: &[&[u8]], rel: &[u8]) -> Option<Vec<u8>> {
    let mut parts: Vec<&[u8]> = base.to_vec();
    for c in rel.split(|&b| b == b'/') {
        match c {
            b"" | b"." => {}
            b".." => {
                parts.pop()?;
            }
            c => parts.push(c),
        }
    }
    Some(parts.join(&b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_inside_stay_inside_and_the_rest_point_nowhere() {
        let r = Path::new("/scratch/r");
        let c = |link: &str, target: &str| {
            confined(link.as_bytes(), target.as_bytes(), b"/home/u/p", r)
        };
        assert_eq!(c("a/l", "x"), (PathBuf::from("/scratch/r/a/x"), true));
        assert_eq!(
            c("a/l", "../b/./y"),
            (PathBuf::from("/scratch/r/b/y"), true)
        );
        assert_eq!(
            c("a/l", "/home/u/p/src"),
            (PathBuf::from("/scratch/r/src"), true)
        );
        assert!(!c("a/l", "../../etc/passwd").1);
        assert_eq!(c("l", "/etc/passwd"), (r.join(OUTSIDE), false));
        assert!(!c("l", "/home/u/pother").1);
    }
}
