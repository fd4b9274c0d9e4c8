//! `--lab`, `--lab-size` and `--lab-dir` checked before anything is built: known kinds, tools
//! installed (naming the package), root, the kernel's filesystems, the size against each kind's
//! minimum, and the free space of the lab directory for the sparse images.

use super::aged::{self, LabEntry};
use super::probe::{self, Problem};
use super::{LabKind, frag};
use fsbench_model::units::{format_size, parse_size};
use fsbench_model::{EngineResult, Failure};
use std::path::{Path, PathBuf};

/// Default `--lab-size`: the default plan writes 128 MiB files; xfs needs 300 MiB.
pub const DEFAULT_SIZE: u64 = 512 << 20;

/// A validated `--lab` request; nothing is built yet.
#[derive(Debug)]
pub struct LabRequest {
    /// Entries (kind, aging, label) in the order given.
    pub(super) entries: Vec<LabEntry>,
    /// Image (and tmpfs) size, bytes.
    pub(super) size: u64,
    /// Canonical, UTF-8 directory that gets the lab scratch.
    pub(super) dir: PathBuf,
    /// No progress lines.
    pub(super) quiet: bool,
}

/// What the user asked of the lab (`--lab`, `--lab-size`, `--lab-dir`, or a suite's `lab`),
/// not yet checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabSpec {
    /// Entries in the order given, `KIND` or `KIND:aged[:KEY=VALUE,...]` (empty: no lab).
    pub kinds: Vec<String>,
    /// `--lab-size` as given.
    pub size: Option<String>,
    /// `--lab-dir` as given.
    pub dir: Option<PathBuf>,
}

/// Checks the lab options of `args`; `None` without `--lab`. `quiet`: no progress lines.
pub fn request(args: &LabSpec, quiet: bool) -> EngineResult<Option<LabRequest>> {
    if args.kinds.is_empty() {
        if args.size.is_some() || args.dir.is_some() {
            return Err(Failure::input(
                "--lab-size and --lab-dir apply only to --lab — add --lab KIND, or drop them",
            ));
        }
        return Ok(None);
    }
    let entries =
        aged::parse_all(&args.kinds).map_err(|e| Failure::input(format!("--lab: {e}")))?;
    refuse(&entries, tool_problems, "install it, or drop")?;
    if !probe::is_root() {
        return Err(Failure::input(
            "--lab needs root: every lab kind mounts a filesystem (tmpfs too) and the image kinds attach loop devices — run fsbench as root, or measure existing directories with --target",
        ));
    }
    refuse(
        &entries,
        |e| probe::kernel_problems(e.kind),
        "use a kernel that has it, or drop",
    )?;
    let kinds: Vec<&'static LabKind> = entries.iter().map(|e| e.kind).collect();
    let size = size(args.size.as_deref(), &kinds)?;
    let dir = lab_dir(args.dir.as_deref(), &kinds)?;
    check_space(&kinds, size, &dir)?;
    Ok(Some(LabRequest {
        entries,
        size,
        dir,
        quiet,
    }))
}

/// The tools an entry runs: its kind's, and for an aged one the tools that measure the
/// fragmentation.
fn tool_problems(e: &LabEntry) -> Vec<Problem> {
    let mut out = probe::tool_problems(e.kind);
    if e.aging.is_some() {
        out.extend(
            frag::aging_tools(e.kind.fs)
                .iter()
                .filter(|t| super::tool::find(t).is_none())
                .map(|t| Problem::MissingTool(t)),
        );
    }
    out
}

/// One line naming every kind that has a problem of this family and what is missing.
fn refuse(
    entries: &[LabEntry],
    check: fn(&LabEntry) -> Vec<Problem>,
    fix: &str,
) -> EngineResult<()> {
    let mut names = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for e in entries {
        let found = check(e);
        if !found.is_empty() {
            names.push(e.text.as_str());
        }
        for p in found.iter().map(|p| p.to_string()) {
            if !problems.contains(&p) {
                problems.push(p);
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let names = names.join(",");
    Err(Failure::input(format!(
        "cannot build --lab {names}: {} — {fix} {names} from --lab",
        problems.join("; ")
    )))
}

fn size(text: Option<&str>, kinds: &[&'static LabKind]) -> EngineResult<u64> {
    let size = match text {
        None => DEFAULT_SIZE,
        Some(t) => parse_size(t).ok().filter(|&s| s > 0).ok_or_else(|| {
            Failure::input(format!(
                "invalid --lab-size '{t}' — give a size such as 512m or 2g (4k = 4096)"
            ))
        })?,
    };
    if let Some(k) = kinds.iter().find(|k| size < k.min_bytes) {
        let min = format_size(k.min_bytes);
        return Err(Failure::input(format!(
            "--lab-size {} is too small for {} (it needs at least {min}) — give --lab-size {min} or more",
            format_size(size),
            k.name
        )));
    }
    Ok(size)
}

fn lab_dir(given: Option<&Path>, kinds: &[&'static LabKind]) -> EngineResult<PathBuf> {
    let dir = match given {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir().map_err(|e| {
            Failure::input(format!(
                "cannot read the current directory: {e} — give --lab-dir DIR"
            ))
        })?,
    };
    fsbench_scratch::check_target_dir(&dir).map_err(|e| Failure::input(e.message))?;
    let dir = std::fs::canonicalize(&dir).map_err(|e| {
        Failure::input(format!(
            "cannot resolve the lab directory ({}): {e} — check the path",
            dir.display()
        ))
    })?;
    let Some(text) = dir.to_str() else {
        return Err(Failure::input(format!(
            "the lab directory ({}) is not UTF-8 — give --lab-dir with a plain path",
            dir.display()
        )));
    };
    let bad = |c: char| c == ',' || c == ':' || c.is_whitespace() || c.is_control();
    if kinds.iter().any(|k| k.name == "overlay") && text.contains(bad) {
        return Err(Failure::input(format!(
            "the lab directory ({}) has a comma, colon or space, which overlay's mount options cannot carry — give --lab-dir with a plain path",
            fsbench_model::text::escape_controls(text)
        )));
    }
    Ok(dir)
}

fn check_space(kinds: &[&'static LabKind], size: u64, dir: &Path) -> EngineResult<()> {
    let images = kinds.iter().filter(|k| k.image).count() as u64;
    let need = images.saturating_mul(size);
    let Some((free, _)) = fsbench_envinfo::space(dir) else {
        return Ok(());
    };
    if need > free {
        return Err(Failure::input(format!(
            "not enough free space for the lab images in {}: {images} sparse image(s) of {} may grow to {}, {} free — free space, give a smaller --lab-size, or --lab-dir on another filesystem",
            dir.display(),
            format_size(size),
            format_size(need),
            format_size(free)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_checked_by_name_and_once() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(aged::parse_all(&names(&["xfs", "tmpfs"])).unwrap().len(), 2);
        let spec = |v: &[&str]| LabSpec {
            kinds: names(v),
            ..LabSpec::default()
        };
        let e = request(&spec(&["zfs"]), true).unwrap_err().message;
        assert!(
            e.contains("unknown lab kind 'zfs'") && e.contains("bindfs"),
            "{e}"
        );
        let e = request(&spec(&["ext4", "ext4"]), true).unwrap_err().message;
        assert!(e.contains("twice"), "{e}");
        let e = request(&spec(&["ext4:aged:fill=99"]), true)
            .unwrap_err()
            .message;
        assert!(e.starts_with("--lab: invalid fill=99"), "{e}");
    }

    #[test]
    fn sizes_below_a_kinds_minimum_are_refused() {
        let xfs = [crate::find("xfs").unwrap()];
        assert_eq!(size(None, &xfs).unwrap(), DEFAULT_SIZE);
        let e = size(Some("64m"), &xfs).unwrap_err().message;
        assert!(e.contains("too small for xfs") && e.contains("300m"), "{e}");
        assert!(size(Some("0"), &xfs).is_err());
        assert!(size(Some("1q"), &xfs).is_err());
    }
}
