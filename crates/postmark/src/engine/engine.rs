//! One PostMark execution, operation for operation: the same generator draws in the same order
//! as postmark 1.51 (source text, then per create: location, subdirectory, size; per
//! transaction: read-or-append decision, slot, create-or-delete decision, slot), the same free-
//! slot cursor, the same names (`[sN/]<number>`) and the same system calls. Each operation is
//! timed with one clock read through an [`OpLog`]; phase boundaries are returned as [`Marks`].
//! The engine never prints: progress (postmark's dots) goes to [`OpLog::progress`].

use super::config::Config;
use super::rng::PmRng;
use super::stdio::{self, OpenFor};
use fsbench_io::{CancelToken, WorkloadError};
use rustix::fd::BorrowedFd;
use rustix::fs::{AtFlags, Mode};
use std::ffi::CStr;
use std::path::Path;

/// The four operations postmark times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// Create and fill a new file.
    Create = 0,
    /// Read a whole file.
    Read = 1,
    /// Append to a file (only when it is below the high size bound).
    Append = 2,
    /// Remove a file.
    Delete = 3,
}

impl OpKind {
    /// All kinds, in index order.
    pub const ALL: [OpKind; 4] = [Self::Create, Self::Read, Self::Append, Self::Delete];

    /// Lower-case name (`create`, `read`, ...).
    pub fn name(self) -> &'static str {
        ["create", "read", "append", "delete"][self as usize]
    }
}

/// Points where postmark prints progress, in the order they happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Before making the subdirectories (only with more than one).
    SubdirsStart,
    /// Subdirectories made.
    SubdirsDone,
    /// Before the pool is created.
    CreateStart,
    /// Pool created.
    CreateDone,
    /// Before the transactions.
    TransactionsStart,
    /// Another tenth of the transactions is done (postmark prints `.`).
    Dot,
    /// Every file was deleted before the transactions ended: the run is incomplete.
    OutOfFiles,
    /// All transactions done.
    TransactionsDone,
    /// Before the remaining files are deleted.
    DeleteStart,
    /// Remaining files deleted.
    DeleteDone,
    /// Before the subdirectories are removed.
    RmdirStart,
    /// Subdirectories removed.
    RmdirDone,
}

/// Receives every timed operation and the progress points of a run.
pub trait OpLog {
    /// Current time in nanoseconds (the clock the operation latencies use).
    fn now_ns(&mut self) -> u64;
    /// An operation of `kind` that started at `start_ns` finished having moved `bytes`;
    /// returns the time now (the start of the next operation).
    fn op(&mut self, kind: OpKind, start_ns: u64, bytes: u64) -> u64;
    /// A progress point (postmark's messages); default: ignored.
    fn progress(&mut self, _event: Progress) {}
}

/// One directory files are spread over, with postmark's weight (`set location DIR WEIGHT`).
#[derive(Debug, Clone, Copy)]
pub struct Location<'a> {
    /// The directory, opened.
    pub dir: BorrowedFd<'a>,
    /// Its path, for error messages.
    pub path: &'a Path,
    /// Relative weight (at least 1).
    pub weight: u32,
}

/// Postmark's counters after a run. Bytes are exact; the `_f32` copies accumulate in a C
/// `float` exactly as postmark's counters do (they lose precision past 16 MiB), for its report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    /// Files created (pool plus transactions); also the number of the last file.
    pub files_created: u64,
    /// Files deleted (transactions plus final phase).
    pub files_deleted: u64,
    /// Files read.
    pub files_read: u64,
    /// Appends done (an append to a full file does nothing and is not counted).
    pub files_appended: u64,
    /// Files deleted in the final phase ("Deletion alone").
    pub deleted_alone: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// Bytes read as postmark's `float` counter.
    pub bytes_read_f32: f32,
    /// Bytes written as postmark's `float` counter.
    pub bytes_written_f32: f32,
}

/// Clock readings (the [`OpLog`]'s clock, ns) at postmark's four `time()` calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Marks {
    /// Before the pool is created.
    pub start_ns: u64,
    /// Before the transactions.
    pub t_start_ns: u64,
    /// After the transactions.
    pub t_end_ns: u64,
    /// After the final deletion.
    pub end_ns: u64,
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Postmark's counters.
    pub counts: Counts,
    /// Transactions performed (fewer than configured when out of files).
    pub transactions_done: u64,
    /// True when the pool ran out of files (postmark prints no report then).
    pub out_of_files: bool,
    /// Phase boundaries.
    pub marks: Marks,
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    size: u32,
    loc: u32,
    sub: u32,
    num: u32,
}

/// Marks a slot name without a subdirectory.
const NO_SUB: u32 = u32::MAX;

/// Runs postmark once over `locs` (at least one). On error or cancellation every file and
/// subdirectory made so far is removed before the error is returned.
pub fn run(
    cfg: &Config,
    locs: &[Location<'_>],
    log: &mut dyn OpLog,
    cancel: &CancelToken,
) -> Result<Outcome, WorkloadError> {
    run_skewed(cfg, locs, log, cancel, fsbench_io::skew::Dist::Uniform)
}

/// As [`run`], with the files each transaction reads, appends to or deletes chosen from `dist`
/// over the file table instead of postmark's uniform draw (`dist=`; its own seeded generator,
/// so postmark's generator still makes every other choice — but fewer of them, so the sequence
/// is no longer postmark's).
pub fn run_skewed(
    cfg: &Config,
    locs: &[Location<'_>],
    log: &mut dyn OpLog,
    cancel: &CancelToken,
    dist: fsbench_io::skew::Dist,
) -> Result<Outcome, WorkloadError> {
    cfg.validate()
        .map_err(|e| WorkloadError::Invalid(e.to_string()))?;
    if locs.is_empty() || locs.iter().any(|l| l.weight == 0) {
        return Err(WorkloadError::Invalid(
            "postmark needs at least one location, each with a weight of 1 or more".into(),
        ));
    }
    let mut e = Engine::new(cfg, locs, cancel)?;
    if dist != fsbench_io::skew::Dist::Uniform {
        let picker = fsbench_io::skew::Picker::new(dist, e.table.len() as u64, u64::from(cfg.seed));
        e.skew = Some((picker, fsbench_io::Rng::new(u64::from(cfg.seed) ^ 0x5EED)));
    }
    let result = e.run_phases(log);
    if result.is_err() {
        e.remove_everything();
    }
    result
}

struct Engine<'a> {
    cfg: &'a Config,
    locs: &'a [Location<'a>],
    total_weight: i64,
    cancel: &'a CancelToken,
    rng: PmRng,
    source: Vec<u8>,
    table: Vec<Slot>,
    cursor: usize,
    counts: Counts,
    read_buf: Vec<u8>,
    stdio_buf: Vec<u8>,
    subdirs_made: u32,
    /// `dist=`: the skewed choice of used files, with its own generator.
    skew: Option<(fsbench_io::skew::Picker, fsbench_io::Rng)>,
}

fn alloc(what: &str, len: usize) -> Result<Vec<u8>, WorkloadError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        WorkloadError::Invalid(format!("cannot allocate {len} bytes for the {what}"))
    })?;
    v.resize(len, 0);
    Ok(v)
}

impl<'a> Engine<'a> {
    fn new(
        cfg: &'a Config,
        locs: &'a [Location<'a>],
        cancel: &'a CancelToken,
    ) -> Result<Self, WorkloadError> {
        let mut rng = PmRng::new(cfg.seed);
        let mut source = alloc("source text", 2 * cfg.size_high as usize)?;
        for b in source.iter_mut() {
            *b = (32 + rng.rnd(95)) as u8;
        }
        let slots = 2 * cfg.number as usize;
        let mut table = Vec::new();
        table.try_reserve_exact(slots).map_err(|_| {
            WorkloadError::Invalid(format!("cannot allocate a table of {slots} files"))
        })?;
        table.resize(slots, Slot::default());
        Ok(Self {
            cfg,
            locs,
            total_weight: locs.iter().map(|l| i64::from(l.weight)).sum(),
            cancel,
            rng,
            source,
            table,
            cursor: 0,
            counts: Counts::default(),
            read_buf: alloc("read buffer", cfg.read_block as usize)?,
            stdio_buf: Vec::new(),
            subdirs_made: 0,
            skew: None,
        })
    }

    fn run_phases(&mut self, log: &mut dyn OpLog) -> Result<Outcome, WorkloadError> {
        self.make_subdirs(log)?;
        let mut marks = Marks {
            start_ns: log.now_ns(),
            ..Marks::default()
        };
        log.progress(Progress::CreateStart);
        let mut t = log.now_ns();
        for _ in 0..self.cfg.number {
            self.cancel.check()?;
            t = self.create(log, t)?;
        }
        log.progress(Progress::CreateDone);
        log.progress(Progress::TransactionsStart);
        marks.t_start_ns = log.now_ns();
        let (done, out_of_files) = self.transactions(log, marks.t_start_ns)?;
        marks.t_end_ns = log.now_ns();
        if !out_of_files {
            log.progress(Progress::TransactionsDone);
        }
        log.progress(Progress::DeleteStart);
        let base = self.counts.files_deleted;
        let mut t = log.now_ns();
        for slot in 0..self.table.len() {
            if slot % 256 == 0 {
                self.cancel.check()?;
            }
            t = self.delete(log, slot, t)?;
        }
        self.counts.deleted_alone = self.counts.files_deleted - base;
        log.progress(Progress::DeleteDone);
        marks.end_ns = log.now_ns();
        self.remove_subdirs(log)?;
        Ok(Outcome {
            counts: self.counts.clone(),
            transactions_done: done,
            out_of_files,
            marks,
        })
    }

    /// The transaction loop; returns (transactions done, ran out of files).
    fn transactions(
        &mut self,
        log: &mut dyn OpLog,
        mut t: u64,
    ) -> Result<(u64, bool), WorkloadError> {
        let n = self.cfg.transactions;
        let percent = n / 10;
        for i in 0..n {
            self.cancel.check()?;
            if self.counts.files_created == self.counts.files_deleted {
                log.progress(Progress::OutOfFiles);
                return Ok((u64::from(i), true));
            }
            if self.cfg.bias_read != -1 {
                let read = self.rng.rnd(10) < i64::from(self.cfg.bias_read);
                let slot = self.find_used();
                t = if read {
                    self.read(log, slot, t)?
                } else {
                    self.append(log, slot, t)?
                };
            }
            if self.cfg.bias_create != -1 {
                if self.rng.rnd(10) < i64::from(self.cfg.bias_create) {
                    t = self.create(log, t)?;
                } else {
                    let slot = self.find_used();
                    t = self.delete(log, slot, t)?;
                }
            }
            // postmark divides by zero here below 10 transactions; fsbench prints every one.
            if percent == 0 || i % percent == 0 {
                log.progress(Progress::Dot);
                t = log.now_ns();
            }
        }
        Ok((u64::from(n), false))
    }

    /// `find_free_file`: the slot after the last one allocated if free, else the first hole.
    fn find_free(&mut self) -> Option<usize> {
        let slot = if self.cursor < self.table.len() && self.table[self.cursor].size == 0 {
            self.cursor
        } else {
            self.table.iter().position(|s| s.size == 0)?
        };
        self.cursor = slot + 1;
        Some(slot)
    }

    /// `find_used_file`: random slots until one holds a file (callers ensure one does).
    fn find_used(&mut self) -> usize {
        if let Some((picker, rng)) = self.skew.as_mut() {
            // Skewed: hot slots may be empty for a while; after a few misses, postmark's way.
            for _ in 0..64 {
                let slot = picker.pick(rng) as usize;
                if self.table[slot].size != 0 {
                    return slot;
                }
            }
        }
        let n = self.table.len() as i64;
        loop {
            let slot = self.rng.rnd(n) as usize;
            if self.table[slot].size != 0 {
                return slot;
            }
        }
    }

    fn pick_location(&mut self) -> u32 {
        if self.locs.len() < 2 {
            return 0;
        }
        let mut r = self.rng.rnd(self.total_weight);
        for (i, l) in self.locs.iter().enumerate() {
            if r < i64::from(l.weight) {
                return i as u32;
            }
            r -= i64::from(l.weight);
        }
        (self.locs.len() - 1) as u32
    }

    fn create(&mut self, log: &mut dyn OpLog, t: u64) -> Result<u64, WorkloadError> {
        let Some(slot) = self.find_free() else {
            return Ok(t); // table full: postmark silently skips the create
        };
        let loc = self.pick_location();
        let subs = self.cfg.used_subdirectories();
        let sub = if subs > 1 {
            self.rng.rnd(i64::from(subs)) as u32
        } else {
            NO_SUB
        };
        self.counts.files_created += 1;
        let (low, high) = (self.cfg.size_low, self.cfg.size_high);
        let size = low + self.rng.rnd(i64::from(high - low)) as u32;
        let entry = Slot {
            size,
            loc,
            sub,
            num: self.counts.files_created as u32,
        };
        self.table[slot] = entry;
        let name = Name::of(&entry);
        let dir = self.locs[loc as usize].dir;
        let fd = stdio::open(dir, name.as_cstr(), OpenFor::Create, self.cfg.buffering)
            .map_err(|e| self.err("create", &entry, e))?;
        self.write(&fd, &entry, size as usize)?;
        drop(fd);
        Ok(log.op(OpKind::Create, t, u64::from(size)))
    }

    fn write(
        &mut self,
        fd: &rustix::fd::OwnedFd,
        entry: &Slot,
        len: usize,
    ) -> Result<(), WorkloadError> {
        use rustix::fd::AsFd;
        let block = self.cfg.write_block as usize;
        stdio::write_blocks(
            fd.as_fd(),
            &self.source[..len],
            block,
            self.cfg.buffering,
            &mut self.stdio_buf,
        )
        .map_err(|e| self.err("write", entry, e))?;
        self.counts.bytes_written += len as u64;
        self.counts.bytes_written_f32 += len as f32;
        Ok(())
    }

    fn read(&mut self, log: &mut dyn OpLog, slot: usize, t: u64) -> Result<u64, WorkloadError> {
        use rustix::fd::AsFd;
        let entry = self.table[slot];
        let name = Name::of(&entry);
        let dir = self.locs[entry.loc as usize].dir;
        let fd = stdio::open(dir, name.as_cstr(), OpenFor::Read, self.cfg.buffering)
            .map_err(|e| self.err("open", &entry, e))?;
        stdio::read_blocks(
            fd.as_fd(),
            entry.size as usize,
            &mut self.read_buf,
            self.cfg.buffering,
            &mut self.stdio_buf,
        )
        .map_err(|e| self.err("read", &entry, e))?;
        drop(fd);
        self.counts.bytes_read += u64::from(entry.size);
        self.counts.bytes_read_f32 += entry.size as f32;
        self.counts.files_read += 1;
        Ok(log.op(OpKind::Read, t, u64::from(entry.size)))
    }

    fn append(&mut self, log: &mut dyn OpLog, slot: usize, t: u64) -> Result<u64, WorkloadError> {
        let entry = self.table[slot];
        let high = self.cfg.size_high;
        if entry.size >= high {
            return Ok(t); // full: no draw, no count
        }
        let name = Name::of(&entry);
        let dir = self.locs[entry.loc as usize].dir;
        let fd = stdio::open(dir, name.as_cstr(), OpenFor::Append, self.cfg.buffering)
            .map_err(|e| self.err("open", &entry, e))?;
        let block = self.rng.rnd(i64::from(high - entry.size)) as u32 + 1;
        self.write(&fd, &entry, block as usize)?;
        drop(fd);
        self.table[slot].size += block;
        self.counts.files_appended += 1;
        Ok(log.op(OpKind::Append, t, u64::from(block)))
    }

    fn delete(&mut self, log: &mut dyn OpLog, slot: usize, t: u64) -> Result<u64, WorkloadError> {
        let entry = self.table[slot];
        if entry.size == 0 {
            return Ok(t);
        }
        let name = Name::of(&entry);
        let dir = self.locs[entry.loc as usize].dir;
        rustix::fs::unlinkat(dir, name.as_cstr(), AtFlags::empty())
            .map_err(|e| self.err("remove", &entry, e.into()))?;
        self.table[slot].size = 0;
        self.counts.files_deleted += 1;
        Ok(log.op(OpKind::Delete, t, 0))
    }

    fn err(&self, op: &'static str, entry: &Slot, e: std::io::Error) -> WorkloadError {
        let name = Name::of(entry);
        let rel = String::from_utf8_lossy(name.as_bytes()).into_owned();
        WorkloadError::io(op, self.locs[entry.loc as usize].path.join(rel), e)
    }

    fn make_subdirs(&mut self, log: &mut dyn OpLog) -> Result<(), WorkloadError> {
        let subs = self.cfg.used_subdirectories();
        if subs == 0 {
            return Ok(());
        }
        log.progress(Progress::SubdirsStart);
        for i in 0..subs {
            for loc in self.locs {
                let name = Name::subdir(i);
                rustix::fs::mkdirat(loc.dir, name.as_cstr(), Mode::from_raw_mode(0o700)).map_err(
                    |e| {
                        let rel = String::from_utf8_lossy(name.as_bytes()).into_owned();
                        WorkloadError::io("mkdir", loc.path.join(rel), e.into())
                    },
                )?;
            }
            self.subdirs_made = i + 1;
        }
        log.progress(Progress::SubdirsDone);
        Ok(())
    }

    fn remove_subdirs(&mut self, log: &mut dyn OpLog) -> Result<(), WorkloadError> {
        if self.subdirs_made == 0 {
            return Ok(());
        }
        log.progress(Progress::RmdirStart);
        for i in 0..self.subdirs_made {
            for loc in self.locs {
                let name = Name::subdir(i);
                rustix::fs::unlinkat(loc.dir, name.as_cstr(), AtFlags::REMOVEDIR).map_err(|e| {
                    let rel = String::from_utf8_lossy(name.as_bytes()).into_owned();
                    WorkloadError::io("rmdir", loc.path.join(rel), e.into())
                })?;
            }
        }
        self.subdirs_made = 0;
        log.progress(Progress::RmdirDone);
        Ok(())
    }

    /// Best-effort removal of every file and subdirectory after a failure or cancellation.
    fn remove_everything(&mut self) {
        for slot in 0..self.table.len() {
            let entry = self.table[slot];
            if entry.size != 0 {
                let dir = self.locs[entry.loc as usize].dir;
                let _ = rustix::fs::unlinkat(dir, Name::of(&entry).as_cstr(), AtFlags::empty());
                self.table[slot].size = 0;
            }
        }
        for i in 0..self.subdirs_made {
            for loc in self.locs {
                let _ =
                    rustix::fs::unlinkat(loc.dir, Name::subdir(i).as_cstr(), AtFlags::REMOVEDIR);
            }
        }
        self.subdirs_made = 0;
    }
}

/// A NUL-terminated relative name built on the stack: `[s<sub>/]<num>` (at most 22 bytes).
struct Name {
    buf: [u8; 32],
    len: usize,
}

impl Name {
    fn new() -> Self {
        Self {
            buf: [0; 32],
            len: 0,
        }
    }

    fn push_num(&mut self, mut n: u32) {
        let mut digits = [0u8; 10];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let d = &digits[i..];
        self.buf[self.len..self.len + d.len()].copy_from_slice(d);
        self.len += d.len();
    }

    fn subdir(sub: u32) -> Self {
        let mut n = Self::new();
        n.buf[0] = b's';
        n.len = 1;
        n.push_num(sub);
        n
    }

    fn of(slot: &Slot) -> Self {
        let mut n = if slot.sub == NO_SUB {
            Self::new()
        } else {
            let mut n = Self::subdir(slot.sub);
            n.buf[n.len] = b'/';
            n.len += 1;
            n
        };
        n.push_num(slot.num);
        n
    }

    fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    fn as_cstr(&self) -> &CStr {
        CStr::from_bytes_with_nul(&self.buf[..=self.len])
            .expect("invariant: names are digits, 's' and '/' followed by NUL")
    }
}
