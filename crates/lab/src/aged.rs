//! The grammar of one `--lab` entry: `KIND`, or `KIND:aged[:KEY=VALUE,...]` for a target that is
//! filled and churned before it is measured (keys `fill=PCT`, `churn=N`, `seed=N`). A fresh and
//! an aged target of one kind can be built side by side: the aged one is labelled `KIND-aged`,
//! followed by the keys given (`ext4:aged:fill=80` is `ext4-aged-fill80`), so each label says how
//! it was made and two variants never share one.
//!
//! `--lab` is split at commas, so `--lab ext4,ext4:aged:fill=80,churn=3` reaches here as
//! `ext4`, `ext4:aged:fill=80`, `churn=3`: [`join`] glues a `KEY=VALUE` item back onto the entry
//! before it (a kind name never has `=`).

use super::{LabKind, find, kind_names};
use fsbench_model::text::escape_controls;

/// Fullness an aged target is filled to when `fill=` is not given, percent.
pub const DEFAULT_FILL: u32 = 70;
/// Churn rounds when `churn=` is not given.
pub const DEFAULT_CHURN: u32 = 10;
/// Seed of the aging when `seed=` is not given.
pub const DEFAULT_SEED: u64 = 1;
/// Highest `fill=`: above it most filesystems slow down for reasons other than fragmentation
/// (reserved blocks, allocator fallbacks), and the workloads would have no room.
pub const MAX_FILL: u32 = 95;
/// Most `churn=` rounds.
pub const MAX_CHURN: u32 = 100;

/// How to age a lab target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgingSpec {
    /// Fullness to reach, percent of the filesystem (used / (used + available)).
    pub fill: u32,
    /// Churn rounds after the fill.
    pub churn: u32,
    /// Seed of file sizes, directories and deletions.
    pub seed: u64,
}

impl Default for AgingSpec {
    fn default() -> Self {
        Self {
            fill: DEFAULT_FILL,
            churn: DEFAULT_CHURN,
            seed: DEFAULT_SEED,
        }
    }
}

/// One parsed `--lab` entry: the kind, how to age it, and the target's label.
#[derive(Debug, Clone)]
pub struct LabEntry {
    /// The kind built.
    pub kind: &'static LabKind,
    /// Aging before measuring (`KIND:aged`), or `None` for a fresh target.
    pub aging: Option<AgingSpec>,
    /// The target's label (`ext4`, `ext4-aged`, `ext4-aged-fill80`).
    pub label: String,
    /// The entry as given (`ext4:aged:fill=80`), for messages.
    pub text: String,
}

/// Items of `--lab` (or a suite's `lab`) as entries: `KEY=VALUE` items split off by the comma
/// delimiter are glued back onto the entry before them.
pub fn join(items: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items.iter().flat_map(|i| i.split(',')).map(str::trim) {
        match out.last_mut() {
            Some(last) if item.contains('=') && !item.contains(':') => {
                last.push(',');
                last.push_str(item);
            }
            _ => out.push(item.to_string()),
        }
    }
    out
}

/// Parses one entry; `Err` is one line naming the entry and the fix.
pub fn parse(text: &str) -> Result<LabEntry, String> {
    let shown = escape_controls(text);
    let (name, rest) = match text.split_once(':') {
        Some((n, r)) => (n, Some(r)),
        None => (text, None),
    };
    let kind = find(name).ok_or_else(|| match name.split_once('=') {
        Some(_) => {
            format!("'{shown}' follows no aged kind — write it after one, as in ext4:aged:{shown}")
        }
        None => format!(
            "unknown lab kind '{}' — the kinds are {}; 'fsbench lab list' says which work here",
            escape_controls(name),
            kind_names()
        ),
    })?;
    let Some(rest) = rest else {
        return Ok(LabEntry {
            kind,
            aging: None,
            label: kind.name.to_string(),
            text: text.to_string(),
        });
    };
    let (modifier, keys) = rest.split_once(':').unwrap_or((rest, ""));
    if modifier != "aged" {
        return Err(format!(
            "unknown lab modifier '{}' in '{shown}' — the only one is aged: {k}:aged, or {k}:aged:fill={DEFAULT_FILL},churn={DEFAULT_CHURN}",
            escape_controls(modifier),
            k = kind.name
        ));
    }
    if let Some(why) = why_not_aged(kind) {
        return Err(format!(
            "lab kind {} cannot be aged: {why} — age ext4, xfs, btrfs, ext4-fscrypt or dm-crypt",
            kind.name
        ));
    }
    let (aging, suffix) = keys_of(keys, &shown)?;
    Ok(LabEntry {
        kind,
        aging: Some(aging),
        label: format!("{}-aged{suffix}", kind.name),
        text: text.to_string(),
    })
}

/// Parses every entry of `items` (after [`join`]); refuses a label given twice.
pub fn parse_all(items: &[String]) -> Result<Vec<LabEntry>, String> {
    let mut out: Vec<LabEntry> = Vec::new();
    for text in join(items) {
        let e = parse(&text)?;
        if out.iter().any(|o| o.label == e.label) {
            return Err(format!(
                "lab target '{}' is given twice — give each kind (and each aging of it) once",
                e.label
            ));
        }
        out.push(e);
    }
    Ok(out)
}

/// True when `kind` can be aged: it is a filesystem on an image of its own (ext4, xfs, btrfs,
/// ext4-fscrypt, dm-crypt).
pub fn ageable(kind: &LabKind) -> bool {
    why_not_aged(kind).is_none()
}

/// Why `kind` cannot be aged, or `None` when it can.
fn why_not_aged(kind: &LabKind) -> Option<&'static str> {
    match kind.name {
        "tmpfs" => Some("its files live in RAM, with no disk layout to fragment"),
        "gocryptfs" | "bindfs" => Some(
            "it is a FUSE layer; aging would fragment the ext4 image under it, which --lab ext4:aged measures directly",
        ),
        "nfs" => Some(
            "it is served over NFS from an ext4 image; aging through NFS would fragment that image, which --lab ext4:aged measures directly",
        ),
        "overlay" => Some(
            "its files live on the lab directory's own filesystem, which fsbench did not build",
        ),
        _ => None,
    }
}

/// The aging keys (`fill=80,churn=3`) and the label suffix they give (`-fill80-churn3`).
fn keys_of(keys: &str, shown: &str) -> Result<(AgingSpec, String), String> {
    let mut spec = AgingSpec::default();
    let mut given: Vec<&str> = Vec::new();
    let keys_help = format!(
        "the keys are fill=PCT (1-{MAX_FILL}, default {DEFAULT_FILL}), churn=N (0-{MAX_CHURN}, default {DEFAULT_CHURN}), seed=N (default {DEFAULT_SEED})"
    );
    for pair in keys.split([',', ':']).filter(|p| !p.is_empty()) {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(format!(
                "'{}' in '{shown}' is not KEY=VALUE — {keys_help}",
                escape_controls(pair)
            ));
        };
        if given.contains(&key) {
            return Err(format!("{key}= is given twice in '{shown}' — give it once"));
        }
        let bad = |range: &str| {
            format!(
                "invalid {key}={} in '{shown}' — give {key}={range}",
                escape_controls(value)
            )
        };
        match key {
            "fill" => {
                spec.fill = value
                    .parse()
                    .ok()
                    .filter(|v| (1..=MAX_FILL).contains(v))
                    .ok_or_else(|| bad(&format!("1..{MAX_FILL} (percent of the filesystem)")))?;
            }
            "churn" => {
                spec.churn = value
                    .parse()
                    .ok()
                    .filter(|v| *v <= MAX_CHURN)
                    .ok_or_else(|| bad(&format!("0..{MAX_CHURN} (rounds)")))?;
            }
            "seed" => {
                spec.seed = value
                    .parse()
                    .map_err(|_| bad("a whole number (0 or more)"))?;
            }
            _ => {
                return Err(format!(
                    "unknown aging key '{}' in '{shown}' — {keys_help}",
                    escape_controls(key)
                ));
            }
        }
        given.push(key);
    }
    let suffix = ["fill", "churn", "seed"]
        .iter()
        .filter(|k| given.contains(k))
        .map(|k| match *k {
            "fill" => format!("-fill{}", spec.fill),
            "churn" => format!("-churn{}", spec.churn),
            _ => format!("-seed{}", spec.seed),
        })
        .collect();
    Ok((spec, suffix))
}

/// True when `name` is the directory of a lab target in a lab scratch: a kind's name, or the
/// label of an aged one (`ext4-aged`, `ext4-aged-fill80-churn3`).
pub fn is_target_dir(name: &str) -> bool {
    if find(name).is_some() {
        return true;
    }
    name.split_once("-aged").is_some_and(|(kind, rest)| {
        find(kind).is_some()
            && (rest.is_empty() || rest.starts_with('-'))
            && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn fresh_and_aged_entries_get_their_own_labels() {
        let all = parse_all(&items(&[
            "ext4",
            "ext4:aged",
            "xfs:aged:fill=80",
            "churn=3",
        ]))
        .unwrap();
        let labels: Vec<&str> = all.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels, ["ext4", "ext4-aged", "xfs-aged-fill80-churn3"]);
        assert_eq!(all[0].aging, None);
        assert_eq!(all[1].aging, Some(AgingSpec::default()));
        let xfs = all[2].aging.unwrap();
        assert_eq!((xfs.fill, xfs.churn, xfs.seed), (80, 3, DEFAULT_SEED));
        // A suite's list keeps the commas inside one item; colons work as separators too.
        let one = parse_all(&items(&["btrfs:aged:seed=7,fill=50"])).unwrap();
        assert_eq!(one[0].label, "btrfs-aged-fill50-seed7");
        assert_eq!(
            parse("ext4:aged:fill=50:churn=0").unwrap().label,
            "ext4-aged-fill50-churn0"
        );
    }

    #[test]
    fn malformed_modifiers_are_one_line_naming_the_fix() {
        let err = |t: &str| parse(t).unwrap_err();
        let e = err("ext4:old");
        assert!(
            e.contains("unknown lab modifier 'old'") && e.contains("ext4:aged"),
            "{e}"
        );
        let e = err("tmpfs:aged");
        assert!(
            e.contains("tmpfs cannot be aged") && e.contains("RAM"),
            "{e}"
        );
        assert!(err("bindfs:aged").contains("FUSE"));
        assert!(err("overlay:aged").contains("cannot be aged"));
        let e = err("ext4:aged:fill=99");
        assert!(e.contains("invalid fill=99") && e.contains("1..95"), "{e}");
        assert!(err("ext4:aged:fill=0").contains("invalid fill=0"));
        assert!(err("ext4:aged:churn=-1").contains("invalid churn=-1"));
        assert!(err("ext4:aged:churn=101").contains("0..100"));
        assert!(err("ext4:aged:seed=x").contains("whole number"));
        let e = err("ext4:aged:fil=3");
        assert!(
            e.contains("unknown aging key 'fil'") && e.contains("fill=PCT"),
            "{e}"
        );
        assert!(err("ext4:aged:fill").contains("not KEY=VALUE"));
        assert!(err("ext4:aged:fill=5,fill=6").contains("twice"));
        assert!(err("zfs:aged").contains("unknown lab kind 'zfs'"));
        let e = parse_all(&items(&["churn=3"])).unwrap_err();
        assert!(e.contains("follows no aged kind"), "{e}");
        let e = parse_all(&items(&["ext4:aged", "ext4:aged"])).unwrap_err();
        assert!(e.contains("'ext4-aged' is given twice"), "{e}");
        assert!(parse_all(&items(&["ext4", "ext4"])).is_err());
        for e in [err("ext4:aged:fill=99"), err("tmpfs:aged"), err("ext4:x")] {
            assert_eq!(e.lines().count(), 1, "{e}");
        }
    }

    #[test]
    fn only_the_labs_target_directories_are_recognised() {
        for ok in [
            "ext4",
            "ext4-aged",
            "ext4-fscrypt-aged",
            "xfs-aged-fill80-churn3",
        ] {
            assert!(is_target_dir(ok), "{ok}");
        }
        for no in [
            "ext",
            "zfs-aged",
            "ext4-agedx",
            "ext4-aged-a/b",
            "ext4-aged-..",
        ] {
            assert!(!is_target_dir(no), "{no}");
        }
    }
}
