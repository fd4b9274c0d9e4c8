//! The fragmentation of a lab filesystem, measured with the filesystems' own tools while it is
//! mounted: free-space extents from `e2freefrag DEVICE` (ext4; on a mounted filesystem it asks
//! the kernel through GETFSMAP) and `xfs_spaceman -c 'freesp -s' MOUNT` (xfs; GETFSMAP too, so
//! neither reads a stale on-disk copy); btrfs has no such report in btrfs-progs. Extents per
//! file come from FIEMAP through `filefrag` (e2fsprogs; it works on every filesystem with
//! FIEMAP), over the aging files or a seeded sample of them. The parsers are pure and tested on
//! the tools' output.

use super::error::Error;
use super::tool;
use fsbench_io::Rng;
use fsbench_model::{FileExtents, Fragmentation, FreeBucket, FreeSpace};
use fsbench_sys::cleanup::Cleanup;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Most aging files whose extents are counted (a seeded sample beyond that).
const MAX_FILES: usize = 4000;
/// Files per `filefrag` call.
const BATCH: usize = 200;
/// How long one measuring command may run.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Tools that measuring an aged target of filesystem `fs` needs (all from packages its mkfs
/// comes with).
pub fn aging_tools(fs: &str) -> &'static [&'static str] {
    match fs {
        "ext4" => &["filefrag", "e2freefrag"],
        "xfs" => &["filefrag", "xfs_spaceman"],
        _ => &["filefrag"],
    }
}

/// What to measure: the filesystem, its device and mount root, and the aging files.
pub struct Subject<'a> {
    /// Filesystem type (`ext4`, `xfs`, `btrfs`).
    pub fs: &'a str,
    /// The block device it was made on (a loop device, or a dm-crypt mapping over one).
    pub device: Option<&'a str>,
    /// Its mount root.
    pub mount: &'a Path,
    /// The aging files (none for a fresh target).
    pub files: &'a [PathBuf],
    /// Seed of the sample of files.
    pub seed: u64,
}

/// Measures the free-space extents and the extents per aging file; a tool that is missing or
/// fails leaves its part empty with the reason.
pub fn measure(s: &Subject<'_>, cleanup: &Cleanup) -> Fragmentation {
    let mut out = Fragmentation::default();
    match free_space(s, cleanup, &mut out.commands) {
        Ok(f) => out.free_space = Some(f),
        Err(why) => out.free_space_note = why.to_string(),
    }
    if !s.files.is_empty() {
        out.files = file_extents(s, cleanup, &mut out.commands);
    }
    out
}

fn free_space(
    s: &Subject<'_>,
    cleanup: &Cleanup,
    cmds: &mut Vec<String>,
) -> Result<FreeSpace, Error> {
    let mount = s
        .mount
        .to_str()
        .ok_or_else(|| Error::NotUtf8(s.mount.to_path_buf()))?;
    let (program, args): (&str, Vec<&str>) = match (s.fs, s.device) {
        ("ext4", Some(dev)) => ("e2freefrag", vec![dev]),
        ("xfs", _) => ("xfs_spaceman", vec!["-c", "freesp -s", mount]),
        (fs, _) => return Err(Error::NoFreeSpaceReport(fs.to_string())),
    };
    let shown = tool::find(program).map_or(program.to_string(), |p| p.display().to_string());
    cmds.push(tool::display(&shown, &args));
    let text = tool::run(program, &args, TIMEOUT, cleanup)?;
    let parsed = match program {
        "e2freefrag" => parse_e2freefrag(&text),
        _ => {
            let block = rustix::fs::statvfs(s.mount).map_or(4096, |st| st.f_frsize);
            parse_freesp(&text, block)
        }
    };
    parsed.ok_or_else(|| Error::ToolOutput {
        program: program.to_string(),
        missing: "no summary",
        output: tool::last_line(&text).to_string(),
    })
}

/// Extents of the aging files (a seeded sample of [`MAX_FILES`] when there are more).
fn file_extents(s: &Subject<'_>, cleanup: &Cleanup, cmds: &mut Vec<String>) -> Option<FileExtents> {
    let mut files: Vec<&str> = s.files.iter().filter_map(|p| p.to_str()).collect();
    if files.len() > MAX_FILES {
        let mut rng = Rng::new(s.seed ^ 0x00F1_1EF2_A600);
        let keep = super::ageplan::pick(&mut rng, files.len(), 100);
        files = keep.iter().take(MAX_FILES).map(|&i| files[i]).collect();
    }
    let mut counts = Vec::with_capacity(files.len());
    for batch in files.chunks(BATCH) {
        let text = tool::run("filefrag", batch, TIMEOUT, cleanup).ok()?;
        counts.extend(parse_filefrag(&text));
    }
    let shown = tool::find("filefrag").map_or("filefrag".into(), |p| p.display().to_string());
    cmds.push(format!(
        "{shown} FILE... ({} aging files, {} per call)",
        files.len(),
        BATCH
    ));
    summarize(&mut counts)
}

/// A size as e2freefrag prints it (`4K`, `64M`), bytes.
fn size_of(text: &str) -> Option<u64> {
    let t = text.trim().trim_end_matches('-').trim();
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let mult: u64 = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return None,
    };
    num.parse::<u64>().ok()?.checked_mul(mult)
}

/// The number after `key` on its line (`Free blocks: 118102 (90.1%)` → 118102).
fn field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.trim_start().starts_with(key))?;
    line[line.find(key)? + key.len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `e2freefrag DEVICE`'s summary and histogram.
pub fn parse_e2freefrag(text: &str) -> Option<FreeSpace> {
    let block = field(text, "Blocksize:")?;
    let free_blocks = field(text, "Free blocks:")?;
    let extents = field(text, "Num. free extent:")?;
    let histogram = text
        .lines()
        .filter_map(|l| {
            let (range, counts) = l.split_once(':')?;
            let (from, to) = range.split_once("...")?;
            let mut n = counts.split_whitespace();
            Some(FreeBucket {
                from_bytes: size_of(from)?,
                to_bytes: size_of(to)?,
                extents: n.next()?.parse().ok()?,
                bytes: n.next()?.parse::<u64>().ok()? * block,
            })
        })
        .collect();
    Some(summary(
        "e2freefrag",
        extents,
        free_blocks * block,
        histogram,
    ))
}

/// `xfs_spaceman -c 'freesp -s'` (or `xfs_db -c 'freesp -s'`): rows of `from to extents blocks
/// pct` in blocks of `block` bytes, then the totals.
pub fn parse_freesp(text: &str, block: u64) -> Option<FreeSpace> {
    let extents = field(text, "total free extents")?;
    let blocks = field(text, "total free blocks")?;
    let histogram = text
        .lines()
        .filter_map(|l| {
            let n: Vec<&str> = l.split_whitespace().collect();
            if n.len() != 5 {
                return None;
            }
            let num = |i: usize| n[i].parse::<u64>().ok();
            Some(FreeBucket {
                from_bytes: num(0)? * block,
                to_bytes: (num(1)? + 1) * block,
                extents: num(2)?,
                bytes: num(3)? * block,
            })
        })
        .collect();
    Some(summary(
        "xfs_spaceman freesp",
        extents,
        blocks * block,
        histogram,
    ))
}

fn summary(tool: &str, extents: u64, free_bytes: u64, histogram: Vec<FreeBucket>) -> FreeSpace {
    FreeSpace {
        tool: tool.into(),
        extents,
        free_bytes,
        mean_extent_bytes: if extents == 0 {
            0.0
        } else {
            free_bytes as f64 / extents as f64
        },
        histogram,
    }
}

/// Extents per file from `filefrag FILE...` (`PATH: 3 extents found`).
pub fn parse_filefrag(text: &str) -> Vec<u64> {
    text.lines()
        .filter(|l| l.contains(" extent"))
        .filter_map(|l| {
            l.rsplit_once(": ")?
                .1
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .collect()
}

/// Mean, median, p99 (nearest rank), max and the share above one extent.
pub fn summarize(counts: &mut [u64]) -> Option<FileExtents> {
    if counts.is_empty() {
        return None;
    }
    counts.sort_unstable();
    let n = counts.len();
    let median = if n % 2 == 1 {
        counts[n / 2] as f64
    } else {
        (counts[n / 2 - 1] + counts[n / 2]) as f64 / 2.0
    };
    let p99 = counts[(n * 99).div_ceil(100) - 1] as f64;
    let multi = counts.iter().filter(|&&c| c > 1).count();
    Some(FileExtents {
        files: n as u64,
        mean: counts.iter().sum::<u64>() as f64 / n as f64,
        median,
        p99,
        max: counts[n - 1],
        fragmented_pct: multi as f64 * 100.0 / n as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const E2FREEFRAG: &str = "Device: /dev/loop0
Blocksize: 4096 bytes
Total blocks: 131072
Free blocks: 118102 (90.1%)

Min. free extent: 24 KB 
Max. free extent: 130812 KB
Avg. free extent: 78732 KB
Num. free extent: 6

HISTOGRAM OF FREE EXTENT SIZES:
Extent Size Range :  Free extents   Free Blocks  Percent
   16K...   32K-  :             1             6    0.01%
  128K...  256K-  :             1            37    0.03%
   64M...  128M-  :             4        118059   99.96%
";

    const FREESP: &str = "   from      to extents  blocks    pct
      1       1      16      16   0.01
      4       7       1       6   0.01
   8192   16383       1   16374  14.28
  16384   32768       3   98260  85.70
total free extents 21
total free blocks 114656
average free extent size 5459.81
";

    #[test]
    fn e2freefrag_summary_and_histogram_are_read() {
        let f = parse_e2freefrag(E2FREEFRAG).unwrap();
        assert_eq!((f.extents, f.free_bytes), (6, 118102 * 4096));
        assert_eq!(f.histogram.len(), 3);
        assert_eq!(f.histogram[0].from_bytes, 16 << 10);
        assert_eq!(f.histogram[2].to_bytes, 128 << 20);
        assert_eq!(f.histogram[2].bytes, 118059 * 4096);
        assert!((f.mean_extent_bytes - 118102.0 * 4096.0 / 6.0).abs() < 1.0);
        assert!(parse_e2freefrag("e2freefrag: Bad magic number").is_none());
    }

    #[test]
    fn xfs_freesp_rows_are_read_in_blocks() {
        let f = parse_freesp(FREESP, 4096).unwrap();
        assert_eq!((f.extents, f.free_bytes), (21, 114656 * 4096));
        assert_eq!(f.histogram.len(), 4);
        assert_eq!(f.histogram[1].from_bytes, 4 * 4096);
        assert_eq!(f.histogram[1].to_bytes, 8 * 4096);
        assert_eq!(f.histogram[3].extents, 3);
        assert!(parse_freesp("xfs_spaceman: no such command", 4096).is_none());
    }

    #[test]
    fn filefrag_counts_are_summarized() {
        let text = "/m/fsbench-aged/d00/d01/f1: 1 extent found\n/m/a b: c/f2: 3 extents found\nfilefrag: cannot open x\n/m/f3: 0 extents found\n";
        let mut c = parse_filefrag(text);
        assert_eq!(c, [1, 3, 0]);
        let s = summarize(&mut c).unwrap();
        assert_eq!((s.files, s.median, s.max), (3, 1.0, 3));
        assert!((s.mean - 4.0 / 3.0).abs() < 1e-9);
        assert!((s.fragmented_pct - 100.0 / 3.0).abs() < 1e-9);
        let mut many: Vec<u64> = (1..=200).collect();
        let s = summarize(&mut many).unwrap();
        assert_eq!((s.median, s.p99), (100.5, 198.0));
        assert!(summarize(&mut []).is_none());
    }

    #[test]
    fn e2freefrag_sizes_have_binary_units() {
        assert_eq!(size_of("  4K"), Some(4096));
        assert_eq!(size_of(" 128M- "), Some(128 << 20));
        assert_eq!(size_of("1G"), Some(1 << 30));
        assert_eq!(size_of("3Q"), None);
    }
}
