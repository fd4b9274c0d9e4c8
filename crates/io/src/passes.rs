//! Pieces shared by the data-path engines: the common parameters (`direct`, `data`, `seed`,
//! `fsync`), the sequential read and write passes that `seq-*` and `large-file` measure, and one
//! sequential job (a byte range of a file) on either engine.

use crate::file::{self, AlignedBuf, DataFile, DataPattern, Rng};
use crate::queue::{Engine, Jobs, Queue};
use crate::uring::{Ring, RingSpec, Source};
use crate::{Context, Recorder, WorkloadError};
use fsbench_model::metric as k;
use std::fs::File;
use std::ops::Range;

/// When to flush written data to stable storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsyncPolicy {
    /// One fdatasync after the last write (dd `conv=fdatasync`); counted in the sample's time.
    End,
    /// fdatasync after every write (counted in each operation's latency).
    Each,
    /// Never.
    None,
}

/// O_DIRECT choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direct {
    /// Buffered I/O through the page cache.
    Off,
    /// O_DIRECT; an error if the filesystem refuses it.
    On,
    /// O_DIRECT when the filesystem supports it, else buffered (recorded in `direct_used`).
    Auto,
}

/// The data file of a read workload: the user's `file`, else `name` in the scratch (or the device).
pub fn read_file(
    ctx: &Context,
    user: Option<&std::path::Path>,
    name: &str,
    size: u64,
) -> Result<DataFile, WorkloadError> {
    match user {
        Some(path) => DataFile::existing(path, size),
        None => DataFile::resolve(ctx, name, size, false),
    }
}

/// Opens for reading with the direct policy; returns the file and whether O_DIRECT is in use.
pub fn open_for_read(file: &DataFile, direct: Direct) -> Result<(File, bool), WorkloadError> {
    match direct {
        Direct::Off => Ok((file::open_read(file, false)?, false)),
        Direct::On => Ok((file::open_read(file, true)?, true)),
        Direct::Auto => match file::open_read(file, true) {
            Ok(f) => Ok((f, true)),
            Err(WorkloadError::Unsupported(_)) => Ok((file::open_read(file, false)?, false)),
            Err(e) => Err(e),
        },
    }
}

/// Opens for writing with the direct policy; returns the file and whether O_DIRECT is in use.
pub fn open_for_write(
    file: &DataFile,
    direct: Direct,
    truncate: bool,
) -> Result<(File, bool), WorkloadError> {
    let truncate = truncate && !file.external;
    match direct {
        Direct::Off => Ok((file::open_write(file, false, truncate)?, false)),
        Direct::On => Ok((file::open_write(file, true, truncate)?, true)),
        Direct::Auto => match file::open_write(file, true, truncate) {
            Ok(f) => Ok((f, true)),
            Err(WorkloadError::Unsupported(_)) => {
                Ok((file::open_write(file, false, truncate)?, false))
            }
            Err(e) => Err(e),
        },
    }
}

/// Settings of one sequential write pass.
#[derive(Debug, Clone, Copy)]
pub struct WritePass {
    /// Block size of each write.
    pub bs: u64,
    /// Direct policy.
    pub direct: Direct,
    /// Flush policy.
    pub fsync: FsyncPolicy,
    /// Data written.
    pub pattern: DataPattern,
    /// Data seed.
    pub seed: u64,
    /// `verify=true`: seal every whole block with this tag (the sample's number).
    pub seal: Option<u64>,
}

/// Writes `file.size` bytes sequentially in `bs` blocks (the last one may be short), recording
/// each write; the final fdatasync (policy `end`) is reported as phase `fsync`.
pub fn write_pass(
    ctx: &Context,
    rec: &mut dyn Recorder,
    file: &DataFile,
    w: &WritePass,
) -> Result<(), WorkloadError> {
    let (f, used_direct) = open_for_write(file, w.direct, true)?;
    rec.metric(
        fsbench_model::metric::DIRECT_USED,
        if used_direct { 1.0 } else { 0.0 },
    );
    write_range(ctx, rec, file, &f, w, (0..file.size, w.bs))
}

/// Writes `range` of `file` (open as `f`) in `bs` blocks with pwrite, then flushes per policy.
/// Block k of the file is stamped k wherever the range starts, so regions written by parallel
/// jobs hold what one pass would have written.
fn write_range(
    ctx: &Context,
    rec: &mut dyn Recorder,
    file: &DataFile,
    f: &File,
    w: &WritePass,
    (range, step): (Range<u64>, u64),
) -> Result<(), WorkloadError> {
    let mut buf = AlignedBuf::new(w.bs as usize);
    w.pattern.fill(buf.as_mut_slice(), w.seed);
    let mut off = range.start;
    let mut t = rec.now_ns();
    while off < range.end {
        let block = off / w.bs;
        if block % file::CANCEL_EVERY == 0 {
            ctx.cancel.check()?;
        }
        let n = (range.end - off).min(w.bs) as usize;
        w.pattern.stamp(buf.as_mut_slice(), block);
        if let Some(tag) = w.seal.filter(|_| n as u64 == w.bs) {
            crate::verify::seal(buf.as_mut_slice(), off, tag);
        }
        file::pwrite_full(f, &buf.as_slice()[..n], off)
            .map_err(|e| WorkloadError::io("write", &file.path, e))?;
        if w.fsync == FsyncPolicy::Each {
            file::sync_data(f, &file.path)?;
        }
        t = rec.op_done(t, n as u64);
        off += step.max(n as u64);
    }
    finish_write(rec, file, f, w.fsync, t)
}

/// The end of a write sample: one fdatasync for policy `end`, timed from `t` as phase `fsync`.
pub fn finish_write(
    rec: &mut dyn Recorder,
    file: &DataFile,
    f: &File,
    fsync: FsyncPolicy,
    t: u64,
) -> Result<(), WorkloadError> {
    if fsync == FsyncPolicy::End {
        file::sync_data(f, &file.path)?;
        let end = rec.now_ns();
        rec.phase("fsync", end - t);
    }
    Ok(())
}

/// Reads `file.size` bytes sequentially in `bs` blocks, recording each read.
pub fn read_pass(
    ctx: &Context,
    rec: &mut dyn Recorder,
    file: &DataFile,
    bs: u64,
    direct: Direct,
) -> Result<(), WorkloadError> {
    let (f, used_direct) = open_for_read(file, direct)?;
    rec.metric(
        fsbench_model::metric::DIRECT_USED,
        if used_direct { 1.0 } else { 0.0 },
    );
    read_range(ctx, rec, file, &f, (bs, false), (0..file.size, bs))
}

/// Reads `range` of `file` (open as `f`) in `bs` blocks with pread; stops at end of file. With
/// `verify`, every whole block is checked against its seal.
fn read_range(
    ctx: &Context,
    rec: &mut dyn Recorder,
    file: &DataFile,
    f: &File,
    (bs, verify): (u64, bool),
    (range, step): (Range<u64>, u64),
) -> Result<(), WorkloadError> {
    let mut buf = AlignedBuf::new(bs as usize);
    let mut checked = 0u64;
    let mut off = range.start;
    let mut block = 0u64;
    let mut t = rec.now_ns();
    while off < range.end {
        if block % file::CANCEL_EVERY == 0 {
            ctx.cancel.check()?;
        }
        let want = (range.end - off).min(bs) as usize;
        let n = file::pread_full(f, &mut buf.as_mut_slice()[..want], off)
            .map_err(|e| WorkloadError::io("read", &file.path, e))?;
        if verify && n as u64 == bs {
            crate::verify::check(buf.as_slice(), off, None)
                .map_err(|m| crate::verify::mismatch(file, off, &m))?;
        }
        t = rec.op_done(t, n as u64);
        if n < want {
            break;
        }
        off += step.max(n as u64);
        block += 1;
        checked += n as u64 / bs * bs;
    }
    if verify {
        rec.metric(k::VERIFIED_BYTES, checked as f64);
    }
    Ok(())
}

/// Reads `job.range` by copying `bs` blocks out of a shared mapping (`engine=mmap`), with the
/// page faults it took as metrics.
fn read_mapped(
    ctx: &Context,
    rec: &mut dyn Recorder,
    job: &SeqJob,
    f: &File,
    (bs, verify): (u64, bool),
) -> Result<(), WorkloadError> {
    let map = crate::mapped::Mapping::new(f, job.file.size, false, &job.file.path)?;
    let mut buf = AlignedBuf::new(bs as usize);
    let (minor, major) = fsbench_measure::thread_faults();
    let mut off = job.range.start;
    let mut t = rec.now_ns();
    while off < job.range.end {
        if (off / bs) % file::CANCEL_EVERY == 0 {
            ctx.cancel.check()?;
        }
        let want = (job.range.end - off).min(bs) as usize;
        let n = map.read(off, &mut buf.as_mut_slice()[..want]);
        if verify && n as u64 == bs {
            crate::verify::check(buf.as_slice(), off, None)
                .map_err(|m| crate::verify::mismatch(&job.file, off, &m))?;
        }
        t = rec.op_done(t, n as u64);
        if n < want {
            break;
        }
        off += job.step.max(n as u64);
    }
    let (minor2, major2) = fsbench_measure::thread_faults();
    rec.metric(k::MMAP_MINOR_FAULTS, minor2.saturating_sub(minor) as f64);
    rec.metric(k::MMAP_MAJOR_FAULTS, major2.saturating_sub(major) as f64);
    if verify {
        rec.metric(
            k::VERIFIED_BYTES,
            ((off - job.range.start) / bs * bs) as f64,
        );
    }
    Ok(())
}

/// Where part `index` of `parts` works in a shared `range` of `bs` blocks: its region
/// (step `bs`), or with `interleave` every `parts`-th block from its own (step `parts × bs`).
pub fn part_of(
    range: Range<u64>,
    bs: u64,
    (parts, index): (u64, u64),
    interleave: bool,
) -> (Range<u64>, u64) {
    if interleave {
        let start = (range.start + index * bs).min(range.end);
        return (start..range.end, parts * bs);
    }
    let r = region(range.end - range.start, bs, parts as u32, index as u32);
    (range.start + r.start..range.start + r.end, bs)
}

/// Which part of how many job `k` of this rank is, among the parts sharing one file: with
/// `sharing` (`--layout shared`) every job of every rank, else this rank's jobs.
pub fn part_index(ctx: &Context, sharing: bool, k: u32, jobs: Jobs) -> (u64, u64) {
    let per = u64::from(jobs.count);
    match sharing {
        true => (
            per * ctx.ranks.size as u64,
            ctx.ranks.rank as u64 * per + u64::from(k),
        ),
        false => (per, u64::from(k)),
    }
}

/// One sequential job: `range` of `file`, with the engine and depth of `queue`.
#[derive(Debug, Clone)]
pub struct SeqJob {
    /// The file.
    pub file: DataFile,
    /// The bytes this job reads or writes.
    pub range: Range<u64>,
    /// Distance between the starts of this job's blocks: `bs` when it covers its range, or
    /// `parts × bs` when it interleaves with the other parts on one file (IOR's strided shared
    /// file, `interleave=true`: part k does blocks k, k + parts, …).
    pub step: u64,
    /// Truncate the file when opening it (a write job on its own file).
    pub truncate: bool,
}

/// The distinct files of `jobs` (the pages a cold sample drops and residency measures); none
/// when the jobs cannot be resolved.
pub fn job_paths(jobs: Result<Vec<SeqJob>, WorkloadError>) -> Vec<std::path::PathBuf> {
    let mut paths: Vec<std::path::PathBuf> = jobs
        .map(|js| js.into_iter().map(|j| j.file.path).collect())
        .unwrap_or_default();
    paths.dedup();
    paths
}

/// Reads `job.range` in `bs` blocks with `queue`'s engine (`seq-read`, one job).
pub fn read_job(
    ctx: &Context,
    rec: &mut dyn Recorder,
    job: &SeqJob,
    (bs, verify): (u64, bool),
    direct: Direct,
    queue: Queue,
) -> Result<(), WorkloadError> {
    let (f, used_direct) = open_for_read(&job.file, direct)?;
    rec.metric(
        fsbench_model::metric::DIRECT_USED,
        if used_direct { 1.0 } else { 0.0 },
    );
    rec.metric(fsbench_model::metric::ENGINE_IO_URING, queue.uring_flag());
    if queue.engine == Engine::Psync {
        return read_range(
            ctx,
            rec,
            &job.file,
            &f,
            (bs, verify),
            (job.range.clone(), job.step),
        );
    }
    if queue.engine == Engine::Mmap {
        return read_mapped(ctx, rec, job, &f, (bs, verify));
    }
    let spec = RingSpec {
        depth: queue.depth,
        bs: bs as usize,
        write: false,
        path: &job.file.path,
    };
    let mut ring = Ring::new(&f, spec, |_| {})?;
    let mut src = SeqSource::new(job.range.clone(), bs, None);
    ring.run(ctx, rec, &mut src, u64::MAX).map(drop)
}

/// Writes `job.range` in `bs` blocks with `queue`'s engine, then flushes (`seq-write`, one job).
pub fn write_job(
    ctx: &Context,
    rec: &mut dyn Recorder,
    job: &SeqJob,
    w: &WritePass,
    queue: Queue,
) -> Result<(), WorkloadError> {
    let (f, used_direct) = open_for_write(&job.file, w.direct, job.truncate)?;
    rec.metric(
        fsbench_model::metric::DIRECT_USED,
        if used_direct { 1.0 } else { 0.0 },
    );
    rec.metric(fsbench_model::metric::ENGINE_IO_URING, queue.uring_flag());
    if queue.engine == Engine::Mmap {
        return Err(WorkloadError::Invalid(
            "invariant: seq-write refuses engine=mmap".into(),
        ));
    }
    if queue.engine == Engine::Psync {
        return write_range(ctx, rec, &job.file, &f, w, (job.range.clone(), job.step));
    }
    let spec = RingSpec {
        depth: queue.depth,
        bs: w.bs as usize,
        write: true,
        path: &job.file.path,
    };
    let mut ring = Ring::new(&f, spec, |b| w.pattern.fill(b, w.seed))?;
    let mut src = SeqSource::new(job.range.clone(), w.bs, Some(w.pattern));
    let t = ring.run(ctx, rec, &mut src, u64::MAX)?;
    drop(ring);
    finish_write(rec, &job.file, &f, w.fsync, t)
}

/// Consecutive `bs` blocks of a byte range (the last may be short), for the io_uring engine;
/// write blocks are stamped with their block number in the file, as the psync pass does.
struct SeqSource {
    next: u64,
    end: u64,
    bs: u64,
    stamp: Option<DataPattern>,
}

impl SeqSource {
    fn new(range: Range<u64>, bs: u64, stamp: Option<DataPattern>) -> Self {
        Self {
            next: range.start,
            end: range.end,
            bs,
            stamp,
        }
    }
}

impl Source for SeqSource {
    #[inline]
    fn next(&mut self, _i: u64, buf: &mut [u8]) -> Option<(u64, usize)> {
        let off = self.next;
        if off >= self.end {
            return None;
        }
        let len = (self.end - off).min(self.bs);
        if let Some(p) = self.stamp {
            p.stamp(buf, off / self.bs);
        }
        self.next += len;
        Some((off, len as usize))
    }
}

/// The bytes of job `job` of `jobs` sharing one file of `size` bytes: consecutive regions of
/// whole `bs` blocks, the last job taking the rest (fio `offset_increment`).
pub fn region(size: u64, bs: u64, jobs: u32, job: u32) -> Range<u64> {
    let blocks = size.div_ceil(bs);
    let per_job = blocks / u64::from(jobs);
    let start = (per_job * u64::from(job) * bs).min(size);
    let end = if job + 1 == jobs {
        size
    } else {
        (per_job * u64::from(job + 1) * bs).min(size)
    };
    start..end
}

/// This rank's segment of a data file holding `size` bytes per rank: all of `0..size` alone or
/// with `--layout per-rank`; `rank*size..(rank+1)*size` of the one shared file with
/// `--layout shared` (IOR's shared-file mode, segmented by rank).
pub fn rank_segment(ctx: &Context, size: u64) -> Range<u64> {
    let r = &ctx.ranks;
    if r.sharing() {
        let start = r.rank as u64 * size;
        start..start + size
    } else {
        0..size
    }
}

/// The size of a data file holding `size` bytes per rank (see [`rank_segment`]).
pub fn shared_size(ctx: &Context, size: u64) -> u64 {
    if ctx.ranks.sharing() {
        size * ctx.ranks.size as u64
    } else {
        size
    }
}

/// Refuses, with `--layout shared`, a per-rank size that would put rank segments off the block
/// grid (a segment must start on a block boundary, for O_DIRECT and for IOR's layout).
pub fn check_segment(ctx: &Context, size: u64, bs: u64) -> Result<(), WorkloadError> {
    if ctx.ranks.sharing() && size % bs != 0 {
        return Err(WorkloadError::Invalid(format!(
            "with --layout shared, size= ({size} bytes per rank) must be a multiple of bs= ({bs}) \
             so that every rank's segment starts on a block"
        )));
    }
    Ok(())
}

/// Random block offsets in `0..size`, aligned to `bs`, from a seeded stream that continues
/// across samples (sample k of a seed is the same in every run).
#[derive(Debug, Clone)]
pub struct Offsets {
    base: u64,
    rng: Rng,
    blocks: u64,
    bs: u64,
    /// Offsets drawn so far.
    drawn: u64,
    /// `dist=` other than uniform.
    skew: Option<Box<Skewed>>,
}

/// Skewed offsets: the picker, and the distinct blocks drawn since [`Offsets::take_unique`]
/// (the uniform formula of unique bytes no longer holds).
#[derive(Debug, Clone)]
struct Skewed {
    picker: crate::skew::Picker,
    /// One bit per block: drawn since the last `take_unique`.
    seen: Vec<u64>,
    /// Bits set in `seen`.
    unique: u64,
}

impl Offsets {
    /// Offsets of `bs`-sized blocks within `size` bytes.
    pub fn new(seed: u64, size: u64, bs: u64) -> Self {
        Self {
            base: 0,
            rng: Rng::new(seed),
            blocks: (size / bs).max(1),
            bs,
            drawn: 0,
            skew: None,
        }
    }

    /// These offsets drawn from `dist` (seeded by `seed`) instead of uniformly.
    pub fn with_dist(mut self, dist: crate::skew::Dist, seed: u64) -> Self {
        if dist != crate::skew::Dist::Uniform {
            self.skew = Some(Box::new(Skewed {
                picker: crate::skew::Picker::new(dist, self.blocks, seed),
                seen: vec![0; (self.blocks / 64 + 1) as usize],
                unique: 0,
            }));
        }
        self
    }

    /// With a skewed `dist`: the distinct blocks drawn since the last call (then forgotten).
    pub fn take_unique(&mut self) -> Option<u64> {
        let skew = self.skew.as_mut()?;
        skew.seen.fill(0);
        Some(std::mem::take(&mut skew.unique))
    }

    /// The note on what share of requests a cache of part of the range would serve.
    pub fn skew_note(&self) -> Option<String> {
        self.skew.as_ref()?.picker.note("blocks")
    }

    /// Offsets of `bs`-sized blocks within `range` (a rank's segment of a shared file).
    pub fn within(seed: u64, range: Range<u64>, bs: u64) -> Self {
        let mut o = Self::new(seed, range.end - range.start, bs);
        o.base = range.start;
        o
    }

    /// The next offset.
    #[inline]
    pub fn next_offset(&mut self) -> u64 {
        self.drawn += 1;
        let block = match self.skew.as_mut() {
            None => self.rng.below(self.blocks),
            Some(skew) => {
                let b = skew.picker.pick(&mut self.rng);
                let (w, bit) = ((b / 64) as usize, 1u64 << (b % 64));
                skew.unique += u64::from(skew.seen[w] & bit == 0);
                skew.seen[w] |= bit;
                b
            }
        };
        self.base + block * self.bs
    }

    /// Offsets drawn so far, and the blocks they are drawn from.
    pub fn drawn(&self) -> (u64, u64) {
        (self.drawn, self.blocks)
    }
}

/// Bytes that `draws` uniform random blocks of `bs` out of `blocks` cover, expected: a block
/// drawn twice before a flush is written to the device once, so random writes reach it as
/// `blocks × (1 − (1 − 1/blocks)^draws)` blocks, not `draws` (63% of them when as many writes as
/// blocks).
pub fn expected_unique_bytes(draws: u64, blocks: u64, bs: u64) -> f64 {
    if blocks == 0 || draws == 0 {
        return 0.0;
    }
    let m = blocks as f64;
    // (1 − 1/blocks)^draws, the chance that a block is never drawn.
    let missed = (draws as f64 * (-1.0 / m).ln_1p()).exp();
    m * (1.0 - missed) * bs as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_parts_take_turns_and_cover_the_range_once() {
        let mut seen = vec![0u32; 10];
        for k in 0..3 {
            let (r, step) = part_of(0..40_960, 4096, (3, k), true);
            let mut off = r.start;
            while off < r.end {
                seen[(off / 4096) as usize] += 1;
                off += step;
            }
        }
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
        assert_eq!(
            part_of(0..40_960, 4096, (3, 1), false),
            (12_288..24_576, 4096)
        );
    }

    #[test]
    fn random_writes_cover_fewer_blocks_than_they_write() {
        // As many uniform draws as blocks cover 1 − 1/e of them.
        let u = expected_unique_bytes(100_000, 100_000, 4096) / (100_000.0 * 4096.0);
        assert!((u - (1.0 - (-1.0f64).exp())).abs() < 1e-3, "{u}");
        // Few draws over many blocks are nearly all distinct; none cover nothing.
        let few = expected_unique_bytes(10, 1_000_000, 4096);
        assert!((few - 10.0 * 4096.0).abs() < 1.0, "{few}");
        assert_eq!(expected_unique_bytes(0, 10, 4096), 0.0);
        let mut o = Offsets::new(1, 1 << 20, 4096);
        o.next_offset();
        o.next_offset();
        assert_eq!(o.drawn(), (2, 256));
    }
}
