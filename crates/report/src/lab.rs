//! The lines that say how a lab target was aged and how fragmented it was when measuring began
//! (`--lab KIND:aged`; fresh image kinds have a free-space line too), under the target in the
//! terminal header and the HTML report.

use crate::format::bytes;
use fsbench_model::LabInfo;

/// The aging and fragmentation lines of a lab target (none when neither was recorded).
pub fn lines(info: &LabInfo) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(a) = &info.aging {
        out.push(format!(
            "aged: {:.1}% full ({}% asked), {} churn rounds deleting {}% each, seed {}; {} files written ({}), {} deleted, {} kept in {}; {:.1} s",
            a.fill_reached_pct,
            a.fill_pct,
            a.churn_rounds,
            a.delete_pct,
            a.seed,
            a.files_created,
            bytes(a.bytes_written),
            a.files_deleted,
            a.files_kept,
            a.dir,
            a.seconds
        ));
        if !a.note.is_empty() {
            out.push(format!("aging note: {}", a.note));
        }
    }
    let Some(f) = &info.fragmentation else {
        return out;
    };
    match &f.free_space {
        Some(s) => out.push(format!(
            "free space: {} extents, mean {}, {} free ({})",
            s.extents,
            bytes(s.mean_extent_bytes as u64),
            bytes(s.free_bytes),
            s.tool
        )),
        None if !f.free_space_note.is_empty() => {
            out.push(format!("free space: not measured: {}", f.free_space_note));
        }
        None => {}
    }
    if let Some(x) = &f.files {
        out.push(format!(
            "aging files: {:.2} extents per file (median {}, p99 {}, max {}), {:.1}% in more than one extent, {} files examined (FIEMAP)",
            x.mean, x.median, x.p99, x.max, x.fragmented_pct, x.files
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::{AgingInfo, FileExtents, Fragmentation, FreeSpace};

    #[test]
    fn aged_and_fresh_targets_say_what_was_recorded() {
        assert!(lines(&LabInfo::default()).is_empty());
        let fresh = LabInfo {
            fragmentation: Some(Fragmentation {
                free_space_note: "btrfs-progs has no free-space extent report".into(),
                ..Fragmentation::default()
            }),
            ..LabInfo::default()
        };
        assert_eq!(
            lines(&fresh),
            ["free space: not measured: btrfs-progs has no free-space extent report"]
        );
        let aged = LabInfo {
            aging: Some(AgingInfo {
                fill_pct: 70,
                fill_reached_pct: 70.4,
                churn_rounds: 10,
                delete_pct: 40,
                seed: 1,
                files_created: 10,
                files_deleted: 4,
                files_kept: 6,
                bytes_written: 3 << 20,
                seconds: 1.25,
                dir: "/m/fsbench-aged".into(),
                ..AgingInfo::default()
            }),
            fragmentation: Some(Fragmentation {
                free_space: Some(FreeSpace {
                    tool: "e2freefrag".into(),
                    extents: 600,
                    free_bytes: 150 << 20,
                    mean_extent_bytes: 256.0 * 1024.0,
                    histogram: Vec::new(),
                }),
                files: Some(FileExtents {
                    files: 6,
                    mean: 1.5,
                    median: 1.0,
                    p99: 3.0,
                    max: 3,
                    fragmented_pct: 33.3,
                }),
                ..Fragmentation::default()
            }),
            ..LabInfo::default()
        };
        let l = lines(&aged);
        assert_eq!(l.len(), 3, "{l:?}");
        assert!(
            l[0].starts_with("aged: 70.4% full (70% asked), 10 churn rounds"),
            "{}",
            l[0]
        );
        assert!(
            l[0].contains("3.0 MiB") && l[0].ends_with("1.2 s"),
            "{}",
            l[0]
        );
        assert_eq!(
            l[1],
            "free space: 600 extents, mean 256.0 KiB, 150.0 MiB free (e2freefrag)"
        );
        assert!(
            l[2].starts_with("aging files: 1.50 extents per file (median 1, p99 3, max 3), 33.3%"),
            "{}",
            l[2]
        );
    }
}
