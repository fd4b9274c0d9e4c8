//! One postmark run: create the pool, run the transactions, delete everything, in exactly
//! postmark's order of random draws and file operations, timed with nanosecond clocks per phase
//! and per operation.

use super::config::PmConfig;
use super::rng::PmRng;
use crate::{CancelToken, Recorder, WorkloadError};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// stdio's buffer size for files on common filesystems (glibc uses st_blksize, 4096).
const STDIO_BUF: usize = 4096;

/// Counters of a run, as postmark reports them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PmCounts {
    /// Files created (pool and transactions).
    pub created: u64,
    /// Files deleted (transactions and final phase).
    pub deleted: u64,
    /// Files read.
    pub read: u64,
    /// Files appended to.
    pub appended: u64,
    /// Files deleted in the final phase.
    pub deleted_final: u64,
    /// Bytes read, exact.
    pub bytes_read: u64,
    /// Bytes written, exact.
    pub bytes_written: u64,
    /// postmark's own `float` byte counters (24-bit mantissa), for its report.
    pub bytes_read_f32: f32,
    /// As above, written.
    pub bytes_written_f32: f32,
    /// The transaction loop ran out of files (postmark then prints no report).
    pub out_of_files: bool,
    /// Transactions completed before the end (or before running out of files).
    pub transactions_done: u64,
}

/// Phase boundaries: monotonic ns (precise) and `time()` seconds (postmark's own report).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PmTimes {
    /// Monotonic ns at start, after creation, after transactions, at end.
    pub ns: [u64; 4],
    /// Wall-clock seconds at the same points.
    pub secs: [u64; 4],
}

/// Per-operation latency sums (ns) and counts, by kind: create, read, append, delete.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PmOpTimes {
    /// Total ns per kind.
    pub total_ns: [u64; 4],
    /// Operations per kind.
    pub count: [u64; 4],
}

/// Operation kinds, in `PmOpTimes` order.
pub const KINDS: [&str; 4] = ["create", "read", "append", "delete"];

struct Run<'a> {
    cfg: &'a PmConfig,
    dir: &'a Path,
    rng: PmRng,
    source: Vec<u8>,
    sizes: Vec<u64>,
    names: Vec<String>,
    cursor: usize,
    counts: PmCounts,
    ops: PmOpTimes,
    rbuf: Vec<u8>,
}

fn unix_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Runs postmark with `cfg` in `dir` (which must exist; its `s<N>` subdirectories are created and
/// removed here). Every operation goes through `rec`.
pub fn run(
    cfg: &PmConfig,
    dir: &Path,
    rec: &mut dyn Recorder,
    cancel: &CancelToken,
) -> Result<(PmCounts, PmTimes, PmOpTimes), WorkloadError> {
    let mut r = Run::new(cfg, dir);
    r.make_subdirs()?;
    let mut t = PmTimes::default();
    let mut mark = |i: usize, rec: &mut dyn Recorder| {
        t.ns[i] = rec.now_ns();
        t.secs[i] = unix_secs();
    };
    mark(0, rec);
    let result = r.phases(rec, cancel, &mut |i, rec| mark(i, rec));
    let cleanup = r.remove_subdirs();
    result?;
    cleanup?;
    Ok((r.counts, t, r.ops))
}

impl<'a> Run<'a> {
    fn new(cfg: &'a PmConfig, dir: &'a Path) -> Self {
        let mut rng = PmRng::new(cfg.seed);
        let source: Vec<u8> = (0..2 * cfg.size_high)
            .map(|_| 32 + rng.rnd(95) as u8)
            .collect();
        let slots = 2 * cfg.number as usize;
        Run {
            cfg,
            dir,
            rng,
            source,
            sizes: vec![0; slots],
            names: vec![String::new(); slots],
            cursor: 0,
            counts: PmCounts::default(),
            ops: PmOpTimes::default(),
            rbuf: vec![0; cfg.read_bs.max(1) as usize],
        }
    }

    fn make_subdirs(&self) -> Result<(), WorkloadError> {
        if self.cfg.subdirectories > 1 {
            for i in 0..self.cfg.subdirectories {
                let p = self.dir.join(format!("s{i}"));
                std::fs::DirBuilder::new()
                    .mode(0o700)
                    .create(&p)
                    .map_err(|e| WorkloadError::io("mkdir", &p, e))?;
            }
        }
        Ok(())
    }

    fn remove_subdirs(&self) -> Result<(), WorkloadError> {
        if self.cfg.subdirectories > 1 {
            for i in 0..self.cfg.subdirectories {
                let p = self.dir.join(format!("s{i}"));
                crate::fsops::remove_all(&p)?;
            }
        }
        Ok(())
    }

    fn phases(
        &mut self,
        rec: &mut dyn Recorder,
        cancel: &CancelToken,
        mark: &mut dyn FnMut(usize, &mut dyn Recorder),
    ) -> Result<(), WorkloadError> {
        let outcome = self.create_pool(rec, cancel).and_then(|()| {
            mark(1, rec);
            self.transactions(rec, cancel)
        });
        if outcome.is_ok() {
            mark(2, rec);
        }
        // Whatever happened, delete every file (postmark does so even after "out of files!").
        let deleted = self.delete_all(rec);
        mark(3, rec);
        outcome.and(deleted)
    }

    fn create_pool(
        &mut self,
        rec: &mut dyn Recorder,
        cancel: &CancelToken,
    ) -> Result<(), WorkloadError> {
        for i in 0..self.cfg.number {
            if i % 256 == 0 {
                cancel.check()?;
            }
            self.create_file(rec)?;
        }
        Ok(())
    }

    fn transactions(
        &mut self,
        rec: &mut dyn Recorder,
        cancel: &CancelToken,
    ) -> Result<(), WorkloadError> {
        for i in 0..self.cfg.transactions {
            if i % 256 == 0 {
                cancel.check()?;
            }
            if self.counts.created == self.counts.deleted {
                self.counts.out_of_files = true;
                return Ok(());
            }
            if self.cfg.bias_read != -1 {
                let read = self.rng.rnd(10) < self.cfg.bias_read;
                let n = self.find_used();
                if read {
                    self.read_file(n, rec)?
                } else {
                    self.append_file(n, rec)?
                }
            }
            if self.cfg.bias_create != -1 {
                if self.rng.rnd(10) < self.cfg.bias_create {
                    self.create_file(rec)?;
                } else {
                    let n = self.find_used();
                    self.delete_file(n, rec)?;
                    self.counts.deleted += 1;
                }
            }
            self.counts.transactions_done += 1;
        }
        Ok(())
    }

    fn delete_all(&mut self, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let mut first_error = None;
        for n in 0..self.sizes.len() {
            if self.sizes[n] != 0 {
                if let Err(e) = self.delete_file(n, rec) {
                    first_error.get_or_insert(e);
                }
                self.counts.deleted += 1;
                self.counts.deleted_final += 1;
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    fn find_free(&mut self) -> Option<usize> {
        if self.cursor < self.sizes.len() && self.sizes[self.cursor] == 0 {
            self.cursor += 1;
            return Some(self.cursor - 1);
        }
        let free = self.sizes.iter().position(|&s| s == 0)?;
        self.cursor = free + 1;
        Some(free)
    }

    fn find_used(&mut self) -> usize {
        loop {
            let n = self.rng.rnd(2 * self.cfg.number as i64) as usize;
            if self.sizes[n] != 0 {
                return n;
            }
        }
    }

    fn path(&self, n: usize) -> PathBuf {
        self.dir.join(&self.names[n])
    }

    fn timed(&mut self, kind: usize, rec: &mut dyn Recorder, bytes: u64, t0: u64) {
        let t1 = rec.op_done(t0, bytes);
        self.ops.total_ns[kind] += t1 - t0;
        self.ops.count[kind] += 1;
    }

    fn create_file(&mut self, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let Some(n) = self.find_free() else {
            return Ok(());
        };
        let mut name = String::new();
        if self.cfg.subdirectories > 1 {
            name.push_str(&format!(
                "s{}/",
                self.rng.rnd(self.cfg.subdirectories as i64)
            ));
        }
        self.counts.created += 1;
        name.push_str(&self.counts.created.to_string());
        let size = self.cfg.size_low
            + self
                .rng
                .rnd((self.cfg.size_high - self.cfg.size_low) as i64) as u64;
        self.names[n] = name;
        let path = self.path(n);
        let t0 = rec.now_ns();
        let mut o = OpenOptions::new();
        if self.cfg.buffered {
            o.write(true).create(true).truncate(true);
        } else {
            o.read(true).write(true).create(true).mode(0o644);
        }
        let file = o
            .open(&path)
            .map_err(|e| WorkloadError::io("create", &path, e))?;
        self.write_data(file, size, &path)?;
        self.sizes[n] = size;
        self.timed(0, rec, size, t0);
        Ok(())
    }

    /// Writes `source[0..size)` in write_bs chunks plus the (possibly empty) remainder.
    fn write_data(&mut self, file: File, size: u64, path: &Path) -> Result<(), WorkloadError> {
        let bs = self.cfg.write_bs.max(1);
        let (whole, rest) = ((size / bs) as usize, (size % bs) as usize);
        let bs = bs as usize;
        let err = |e| WorkloadError::io("write", path, e);
        if self.cfg.buffered {
            let mut w = BufWriter::with_capacity(STDIO_BUF, file);
            for i in 0..whole {
                w.write_all(&self.source[i * bs..(i + 1) * bs])
                    .map_err(err)?;
            }
            w.write_all(&self.source[whole * bs..whole * bs + rest])
                .map_err(err)?;
            w.flush().map_err(err)?;
        } else {
            let mut f = file;
            for i in 0..whole {
                f.write_all(&self.source[i * bs..(i + 1) * bs])
                    .map_err(err)?;
            }
            // postmark always makes the remainder call, even for 0 bytes.
            let _ = f
                .write(&self.source[whole * bs..whole * bs + rest])
                .map_err(err)?;
        }
        self.counts.bytes_written += size;
        self.counts.bytes_written_f32 += size as f32;
        Ok(())
    }

    fn read_file(&mut self, n: usize, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let path = self.path(n);
        let size = self.sizes[n];
        let t0 = rec.now_ns();
        let file = File::open(&path).map_err(|e| WorkloadError::io("open", &path, e))?;
        let bs = self.cfg.read_bs.max(1) as usize;
        let (whole, rest) = (size as usize / bs, size as usize % bs);
        let err = |e| WorkloadError::io("read", &path, e);
        if self.cfg.buffered {
            let mut r = BufReader::with_capacity(STDIO_BUF, file);
            for _ in 0..whole {
                r.read_exact(&mut self.rbuf[..bs]).map_err(err)?;
            }
            r.read_exact(&mut self.rbuf[..rest]).map_err(err)?;
        } else {
            let mut f = file;
            for _ in 0..whole {
                f.read_exact(&mut self.rbuf[..bs]).map_err(err)?;
            }
            let _ = f.read(&mut self.rbuf[..rest]).map_err(err)?;
        }
        self.counts.read += 1;
        self.counts.bytes_read += size;
        self.counts.bytes_read_f32 += size as f32;
        self.timed(1, rec, size, t0);
        Ok(())
    }

    fn append_file(&mut self, n: usize, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let size = self.sizes[n];
        if size >= self.cfg.size_high {
            return Ok(());
        }
        let block = self.rng.rnd((self.cfg.size_high - size) as i64) as u64 + 1;
        let path = self.path(n);
        let t0 = rec.now_ns();
        let mut o = OpenOptions::new();
        if self.cfg.buffered {
            o.append(true);
        } else {
            o.read(true).append(true);
        }
        let file = o
            .open(&path)
            .map_err(|e| WorkloadError::io("append", &path, e))?;
        self.write_data(file, block, &path)?;
        self.sizes[n] = size + block;
        self.counts.appended += 1;
        self.timed(2, rec, block, t0);
        Ok(())
    }

    fn delete_file(&mut self, n: usize, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let path = self.path(n);
        let t0 = rec.now_ns();
        self.sizes[n] = 0;
        std::fs::remove_file(&path).map_err(|e| WorkloadError::io("remove", &path, e))?;
        self.timed(3, rec, 0, t0);
        Ok(())
    }
}
