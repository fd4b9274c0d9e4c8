//! `--lab`, `--lab-size` and `--lab-dir` checked before anything is built: known kinds, tools
//! installed (naming the package), root, the kernel's filesystems, the size against each kind's
//! minimum, and the free space of the lab directory for the sparse images.

use super::error::Error;
use super::probe::{self, Problem};
use super::{Recipe, frag};
use fsbench_model::text::escape_controls;
use fsbench_model::units::{format_size, parse_size};
use fsbench_model::{EngineResult, Failure, LabEntry, LabKind};
use std::path::{Path, PathBuf};

/// Default `--lab-size`: the default plan writes 128 MiB files; xfs needs 300 MiB.
pub const DEFAULT_SIZE: u64 = 512 << 20;

/// A validated `--lab` request; nothing is built yet.
#[derive(Debug)]
pub struct LabRequest {
    /// Entries (kind, aging, label) in the order given, each with its kind's recipe.
    pub(super) entries: Vec<(LabEntry, &'static Recipe)>,
    /// Image (and tmpfs) size, bytes.
    pub(super) size: u64,
    /// Canonical, UTF-8 directory that gets the lab scratch.
    pub(super) dir: PathBuf,
    /// No progress lines.
    pub(super) quiet: bool,
}

/// Checks the parsed `--lab` entries (`fsbench_spec::lab::LabSpec::entries`) against this
/// machine, with `--lab-size` and `--lab-dir` as given; `None` without entries. `quiet`: no
/// progress lines. Every refusal is an input error.
pub fn request(
    entries: Vec<LabEntry>,
    size: Option<&str>,
    dir: Option<&Path>,
    quiet: bool,
) -> EngineResult<Option<LabRequest>> {
    if entries.is_empty() {
        return Ok(None);
    }
    check(entries, size, dir, quiet)
        .map(Some)
        .map_err(|e| Failure::input(e.to_string()))
}

fn check(
    entries: Vec<LabEntry>,
    size: Option<&str>,
    dir: Option<&Path>,
    quiet: bool,
) -> Result<LabRequest, Error> {
    let entries = entries
        .into_iter()
        .map(|e| match super::recipe(&e.kind) {
            Some(r) => Ok((e, r)),
            None => Err(Error::refused(format!(
                "unknown lab kind '{}' — 'fsbench lab list' lists the kinds",
                escape_controls(e.kind.name())
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    refuse(&entries, tool_problems, "install it, or drop")?;
    if !probe::is_root() {
        return Err(Error::refused(
            "--lab needs root: every lab kind mounts a filesystem (tmpfs too) and the image kinds attach loop devices — run fsbench as root, or measure existing directories with --target",
        ));
    }
    refuse(
        &entries,
        |(e, r)| {
            let mut all = probe::kernel_problems(r);
            let delayed = e.net.is_some_and(|n| n.rtt_us.is_some());
            if delayed && !probe::has_netem() && !probe::has_tap() {
                all.push(Problem::NoNetem);
            }
            all
        },
        "use a kernel that has it, or drop",
    )?;
    let recipes: Vec<&'static Recipe> = entries.iter().map(|(_, r)| *r).collect();
    let size = self::size(size, &recipes)?;
    let dir = lab_dir(dir, &recipes)?;
    // A served kind makes one image per server host.
    let images = entries
        .iter()
        .filter(|(_, r)| r.image)
        .map(|(e, _)| e.net.map_or(1, |n| u64::from(n.replica.max(1))))
        .sum();
    check_space(images, size, &dir)?;
    Ok(LabRequest {
        entries,
        size,
        dir,
        quiet,
    })
}

/// The tools an entry runs: its kind's, and for an aged one the tools that measure the
/// fragmentation.
fn tool_problems((e, recipe): &(LabEntry, &'static Recipe)) -> Vec<Problem> {
    let mut out = probe::tool_problems(recipe);
    if e.aging.is_some() {
        out.extend(
            frag::aging_tools(recipe.fs)
                .iter()
                .filter(|t| super::tool::find(t).is_none())
                .map(|t| Problem::MissingTool(t)),
        );
    }
    out
}

/// Refuses the entries that have a problem of this family, naming each and what is missing.
fn refuse(
    entries: &[(LabEntry, &'static Recipe)],
    check: fn(&(LabEntry, &'static Recipe)) -> Vec<Problem>,
    fix: &'static str,
) -> Result<(), Error> {
    let mut names = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for e in entries {
        let found = check(e);
        if !found.is_empty() {
            names.push(e.0.text.as_str());
        }
        for p in found.iter().map(Problem::to_string) {
            if !problems.contains(&p) {
                problems.push(p);
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(Error::Lacks {
        entries: names.join(","),
        problems,
        fix,
    })
}

fn size(text: Option<&str>, recipes: &[&'static Recipe]) -> Result<u64, Error> {
    let size = match text {
        None => DEFAULT_SIZE,
        Some(t) => parse_size(t).ok().filter(|&s| s > 0).ok_or_else(|| {
            Error::refused(format!(
                "invalid --lab-size '{}' — give a size such as 512m or 2g (4k = 4096)",
                escape_controls(t)
            ))
        })?,
    };
    if let Some(r) = recipes.iter().find(|r| size < r.kind.min_bytes()) {
        let min = format_size(r.kind.min_bytes());
        return Err(Error::refused(format!(
            "--lab-size {} is too small for {} (it needs at least {min}) — give --lab-size {min} or more",
            format_size(size),
            r.kind
        )));
    }
    Ok(size)
}

fn lab_dir(given: Option<&Path>, recipes: &[&'static Recipe]) -> Result<PathBuf, Error> {
    let dir = match given {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir().map_err(|e| {
            Error::refused(format!(
                "cannot read the current directory: {e} — give --lab-dir DIR"
            ))
        })?,
    };
    fsbench_scratch::check_target_dir(&dir).map_err(|e| Error::refused(e.message))?;
    let dir = std::fs::canonicalize(&dir).map_err(|e| {
        Error::refused(format!(
            "cannot resolve the lab directory ({}): {e} — check the path",
            dir.display()
        ))
    })?;
    let Some(text) = dir.to_str() else {
        return Err(Error::refused(format!(
            "the lab directory ({}) is not UTF-8 — give --lab-dir with a plain path",
            dir.display()
        )));
    };
    let bad = |c: char| c == ',' || c == ':' || c.is_whitespace() || c.is_control();
    if recipes.iter().any(|r| r.kind == LabKind::Overlay) && text.contains(bad) {
        return Err(Error::refused(format!(
            "the lab directory ({}) has a comma, colon or space, which overlay's mount options cannot carry — give --lab-dir with a plain path",
            fsbench_model::text::escape_controls(text)
        )));
    }
    Ok(dir)
}

fn check_space(images: u64, size: u64, dir: &Path) -> Result<(), Error> {
    let need = images.saturating_mul(size);
    let Some((free, _)) = fsbench_envinfo::space(dir) else {
        return Ok(());
    };
    if need > free {
        return Err(Error::refused(format!(
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
    fn sizes_below_a_kinds_minimum_are_refused() {
        let xfs = [super::super::recipe(&LabKind::Xfs).unwrap()];
        assert_eq!(size(None, &xfs).unwrap(), DEFAULT_SIZE);
        let e = size(Some("64m"), &xfs).unwrap_err().to_string();
        assert!(e.contains("too small for xfs") && e.contains("300m"), "{e}");
        assert!(size(Some("0"), &xfs).is_err());
        assert!(size(Some("1q"), &xfs).is_err());
    }

    #[test]
    fn no_entries_is_no_lab_and_an_unknown_kind_is_refused() {
        assert!(request(Vec::new(), None, None, true).unwrap().is_none());
        let zfs = LabEntry {
            kind: LabKind::Other("zfs".into()),
            aging: None,
            label: "zfs".into(),
            text: "zfs".into(),
            net: None,
        };
        let e = request(vec![zfs], None, None, true).unwrap_err();
        assert_eq!(e.kind, fsbench_model::FailureKind::Input);
        assert!(
            e.message.contains("unknown lab kind 'zfs'"),
            "{}",
            e.message
        );
    }
}
