//! Aging a lab filesystem before it is measured, as Geriatrix does (Kadekodi et al., "Geriatrix:
//! Aging what you see and what you don't see", CMU-PDL-17-106): fill it to `fill`% with files of
//! a realistic size distribution ([`super::ageplan`]), then run `churn` rounds that each delete
//! a random share of those files and write new ones back to the same fullness, so the free space
//! is left in the scattered pieces a used filesystem has. Files go into a two-level tree
//! (`TARGET/fsbench-aged/dXX/dYY/fN`) that stays while the workloads run (the run's scratch is
//! beside it, in what is left).
//!
//! Plain buffered `write` calls through `std::fs::File` (one per MiB): the allocator sees whole
//! files written at once, as a copy or an unpack writes them. After each pass the filesystem is
//! synced (`syncfs`) so the fullness read from `statvfs` counts what was really allocated, and
//! the fill tops up until it is within a block group's worth of the goal. A filesystem that says
//! "no space" before statvfs's goal (btrfs's statvfs is an estimate) ends that fill early; the
//! record says so.

use super::ageplan::{self, DELETE_PCT};
use super::error::Error;
use fsbench_io::Rng;
use fsbench_model::{AgingInfo, AgingSpec};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Name of the aging directory in the target.
pub const DIR: &str = "fsbench-aged";
/// Bytes per `write` call.
const CHUNK: usize = 1 << 20;
/// Most top-up passes of one fill (a filesystem whose metadata grows with the files needs two).
const PASSES: u32 = 4;

/// How aging reports to its caller.
pub struct Report<'a> {
    /// True when aging must stop (a signal, or the lab is being torn down).
    pub stop: &'a dyn Fn() -> bool,
    /// Shows one progress line.
    pub say: &'a dyn Fn(&str),
}

/// The state of one aging: the generator, the live files and the counts so far.
struct Ager<'a> {
    rng: Rng,
    root: PathBuf,
    /// Live aging files: (number, leaf directory, size).
    live: Vec<(u64, String, u64)>,
    next: u64,
    created: u64,
    deleted: u64,
    bytes: u64,
    cap: u64,
    block: u64,
    goal: u64,
    /// The current fill met "no space".
    full: bool,
    /// Fullness at the last "no space", for the record.
    full_at: Option<f64>,
    buf: Vec<u8>,
    report: &'a Report<'a>,
}

/// Ages the filesystem holding `target` as `spec` asks; returns the record and the aging files
/// (for the extent counts).
pub fn age(
    target: &Path,
    spec: &AgingSpec,
    report: &Report<'_>,
) -> Result<(AgingInfo, Vec<PathBuf>), Error> {
    let started = Instant::now();
    let root = target.join(DIR);
    make_tree(&root)?;
    let (used, avail, block) = usage(&root)?;
    let capacity = used + avail;
    let cap = ageplan::size_cap(capacity);
    let mut rng = Rng::new(spec.seed);
    let mut buf = vec![0u8; CHUNK];
    buf.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
    let mut a = Ager {
        rng,
        root,
        live: Vec::new(),
        next: 0,
        created: 0,
        deleted: 0,
        bytes: 0,
        cap,
        block,
        goal: ageplan::goal_used(capacity, spec.fill),
        full: false,
        full_at: None,
        buf,
        report,
    };
    let mut pct = a.fill()?;
    (report.say)(&format!(
        "filled to {pct:.1}% ({} files, {:.1} MiB)",
        a.live.len(),
        a.bytes as f64 / f64::from(1 << 20)
    ));
    for round in 1..=spec.churn {
        let gone = a.delete_share()?;
        let before = a.created;
        pct = a.fill()?;
        (report.say)(&format!(
            "churn round {round}/{}: {gone} deleted, {} written, {pct:.1}% full",
            spec.churn,
            a.created - before
        ));
    }
    let info = AgingInfo {
        fill_pct: spec.fill,
        fill_reached_pct: (pct * 10.0).round() / 10.0,
        churn_rounds: spec.churn,
        delete_pct: DELETE_PCT,
        seed: spec.seed,
        files_created: a.created,
        files_deleted: a.deleted,
        files_kept: a.live.len() as u64,
        bytes_written: a.bytes,
        seconds: started.elapsed().as_secs_f64(),
        dir: a.root.display().to_string(),
        sizes: ageplan::describe(cap),
        note: a.full_at.map_or_else(String::new, |p| {
            format!("the filesystem reported no space at {p:.1}% full (its statvfs overestimated what it holds); fills stopped there")
        }),
    };
    let files = a.live.iter().map(|(n, leaf, _)| a.path(leaf, *n)).collect();
    Ok((info, files))
}

/// Makes `root` and its [`ageplan::FANOUT`]² leaf directories (mode 0700).
fn make_tree(root: &Path) -> Result<(), Error> {
    let mkdir = |p: &Path| {
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(p)
            .map_err(|e| Error::io("create", p, e))
    };
    mkdir(root)?;
    for a in 0..ageplan::FANOUT {
        let d = root.join(format!("d{a:02x}"));
        mkdir(&d)?;
        for b in 0..ageplan::FANOUT {
            mkdir(&d.join(format!("d{b:02x}")))?;
        }
    }
    Ok(())
}

/// Syncs the filesystem of `dir`, then its used and available bytes and its block size.
fn usage(dir: &Path) -> Result<(u64, u64, u64), Error> {
    let f = std::fs::File::open(dir).map_err(|e| Error::io("open", dir, e))?;
    rustix::fs::syncfs(&f).map_err(|e| Error::io("sync", dir, e.into()))?;
    let st = rustix::fs::fstatvfs(&f).map_err(|e| Error::io("statvfs", dir, e.into()))?;
    let block = st.f_frsize.max(1);
    let used = st.f_blocks.saturating_sub(st.f_bfree) * block;
    Ok((used, st.f_bavail * block, block))
}

impl Ager<'_> {
    fn path(&self, leaf: &str, n: u64) -> PathBuf {
        self.root.join(leaf).join(format!("f{n}"))
    }

    fn check_stop(&self) -> Result<(), Error> {
        if (self.report.stop)() {
            return Err(Error::Interrupted);
        }
        Ok(())
    }

    /// Writes files until the filesystem is at the goal; returns the fullness reached.
    fn fill(&mut self) -> Result<f64, Error> {
        for _ in 0..PASSES {
            let (used, avail, _) = usage(&self.root)?;
            // Within 1/256 of the capacity (2 MiB of 512 MiB) is at the goal.
            let slack = (used + avail) / 256;
            if used + slack >= self.goal || self.full {
                break;
            }
            let mut need = self.goal - used;
            while need > 0 {
                self.check_stop()?;
                let size = ageplan::file_size(&mut self.rng, self.cap);
                if !self.create(size)? {
                    self.full = true;
                    break;
                }
                need = need.saturating_sub(ageplan::allocated(size, self.block));
            }
        }
        let (used, avail, _) = usage(&self.root)?;
        let pct = ageplan::fullness_pct(used, avail);
        if self.full {
            self.full_at = Some(pct);
        }
        Ok(pct)
    }

    /// Writes one file of `size` bytes; `Ok(false)` when the filesystem is full (the partial
    /// file is removed).
    fn create(&mut self, size: u64) -> Result<bool, Error> {
        let leaf = ageplan::leaf(&mut self.rng);
        let n = self.next;
        self.next += 1;
        let path = self.path(&leaf, n);
        match self.write(&path, size) {
            Ok(()) => {
                self.live.push((n, leaf, size));
                self.created += 1;
                self.bytes += size;
                Ok(true)
            }
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                if e.raw_os_error() == Some(libc::ENOSPC) {
                    return Ok(false);
                }
                Err(Error::io("write", path, e))
            }
        }
    }

    fn write(&self, path: &Path, size: u64) -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)?;
        let mut left = size;
        while left > 0 {
            let n = left.min(CHUNK as u64) as usize;
            f.write_all(&self.buf[..n])?;
            left -= n as u64;
        }
        Ok(())
    }

    /// Deletes [`DELETE_PCT`]% of the live files, drawn at random; returns how many.
    fn delete_share(&mut self) -> Result<u64, Error> {
        let chosen = ageplan::pick(&mut self.rng, self.live.len(), DELETE_PCT);
        for i in &chosen {
            self.check_stop()?;
            let (n, leaf, _) = self.live.swap_remove(*i);
            let p = self.path(&leaf, n);
            std::fs::remove_file(&p).map_err(|e| Error::io("delete", p, e))?;
            self.deleted += 1;
        }
        // A full filesystem has room again: the next fill may go to the goal.
        self.full = false;
        Ok(chosen.len() as u64)
    }
}
