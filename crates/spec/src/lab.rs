//! What the user asked of the lab (`--lab`, `--lab-size`, `--lab-dir`, or a suite's `lab` and
//! `lab_size`), as a plain value the spec holds, and the grammar of one `--lab` entry: `KIND`,
//! or `KIND:aged[:KEY=VALUE,...]` for a target that is filled and churned before it is measured
//! (keys `fill=PCT`, `churn=N`, `seed=N`). The lab (`fsbench-lab`) takes the parsed entries and
//! checks what this machine can build.
//!
//! A fresh and an aged target of one kind can be built side by side: the aged one is labelled
//! `KIND-aged`, followed by the keys given (`ext4:aged:fill=80` is `ext4-aged-fill80`), so each
//! label says how it was made and two variants never share one.
//!
//! `--lab` is split at commas, so `--lab ext4,ext4:aged:fill=80,churn=3` reaches here as
//! `ext4`, `ext4:aged:fill=80`, `churn=3`: [`join`] glues a `KEY=VALUE` item back onto the entry
//! before it (a kind name never has `=`).

use fsbench_model::text::escape_controls;
use fsbench_model::{AgingSpec, EngineResult, Failure, LabEntry, LabKind, NetSpec};
use std::path::PathBuf;

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

impl LabSpec {
    /// The entries of `--lab`, parsed (empty without `--lab`, which `--lab-size` and `--lab-dir`
    /// then must not be given without).
    pub fn entries(&self) -> EngineResult<Vec<LabEntry>> {
        if self.kinds.is_empty() && (self.size.is_some() || self.dir.is_some()) {
            return Err(Failure::input(
                "--lab-size and --lab-dir apply only to --lab — add --lab KIND, or drop them",
            ));
        }
        parse_all(&self.kinds).map_err(|e| Failure::input(format!("--lab: {e}")))
    }
}

/// Why a `--lab` entry was refused: one line naming the entry and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EntryError {
    /// A `KEY=VALUE` item with no aged entry before it.
    #[error("'{}' follows no aged kind — write it after one, as in ext4:aged:{}", escape_controls(.0), escape_controls(.0))]
    Orphan(String),
    /// A kind this fsbench does not build.
    #[error("unknown lab kind '{}' — the kinds are {}; 'fsbench lab list' says which work here", escape_controls(.0), kind_names())]
    UnknownKind(String),
    /// A modifier other than `aged`.
    #[error("unknown lab modifier '{}' in '{}' — the only one is aged: {kind}:aged, or {kind}:aged:fill={},churn={}", escape_controls(.modifier), escape_controls(.entry), AgingSpec::DEFAULT_FILL, AgingSpec::DEFAULT_CHURN)]
    UnknownModifier {
        /// The modifier given.
        modifier: String,
        /// The entry as given.
        entry: String,
        /// Its kind.
        kind: LabKind,
    },
    /// `KIND:aged` of a kind without a disk layout of its own.
    #[error(
        "lab kind {kind} cannot be aged: {why} — age ext4, xfs, btrfs, ext4-fscrypt or dm-crypt"
    )]
    NotAgeable {
        /// The kind.
        kind: LabKind,
        /// Why not.
        why: &'static str,
    },
    /// An aging item without `=`.
    #[error("'{}' in '{}' is not KEY=VALUE — {}", escape_controls(.item), escape_controls(.entry), keys_help())]
    NotKeyValue {
        /// The item.
        item: String,
        /// The entry as given.
        entry: String,
    },
    /// An aging key this fsbench does not know.
    #[error("unknown aging key '{}' in '{}' — {}", escape_controls(.key), escape_controls(.entry), keys_help())]
    UnknownKey {
        /// The key.
        key: String,
        /// The entry as given.
        entry: String,
    },
    /// An aging key given twice in one entry.
    #[error("{key}= is given twice in '{}' — give it once", escape_controls(.entry))]
    KeyTwice {
        /// The key.
        key: String,
        /// The entry as given.
        entry: String,
    },
    /// An aging value out of its range.
    #[error("invalid {key}={} in '{}' — give {key}={range}", escape_controls(.value), escape_controls(.entry))]
    BadValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// The entry as given.
        entry: String,
        /// What it accepts.
        range: String,
    },
    /// An option a kind served from simulated hosts does not take.
    #[error("unknown option '{}' in '{}' — {}", escape_controls(.item), escape_controls(.entry), net_help(.kind))]
    UnknownNetOption {
        /// The option given.
        item: String,
        /// The entry as given.
        entry: String,
        /// Its kind.
        kind: LabKind,
    },
    /// Two entries with one label.
    #[error("lab target '{0}' is given twice — give each kind (and each aging of it) once")]
    LabelTwice(String),
}

/// The names of every lab kind, comma-separated.
fn kind_names() -> String {
    let names: Vec<&str> = LabKind::ALL.iter().map(LabKind::name).collect();
    names.join(", ")
}

fn keys_help() -> String {
    format!(
        "the keys are fill=PCT (1-{}, default {}), churn=N (0-{}, default {}), seed=N (default {})",
        AgingSpec::MAX_FILL,
        AgingSpec::DEFAULT_FILL,
        AgingSpec::MAX_CHURN,
        AgingSpec::DEFAULT_CHURN,
        AgingSpec::DEFAULT_SEED
    )
}

/// What options kind `kind` (served from simulated hosts) takes.
fn net_help(kind: &LabKind) -> String {
    let replica = match kind {
        LabKind::Glusterfs => format!(
            "replica=N (server hosts, 1-{}, default 1) and ",
            NetSpec::MAX_REPLICA
        ),
        _ => String::new(),
    };
    format!("{kind} takes {replica}rtt=TIME (a round-trip time put on the link, as in rtt=2ms)")
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

/// Parses one entry.
pub fn parse(text: &str) -> Result<LabEntry, EntryError> {
    let (name, rest) = match text.split_once(':') {
        Some((n, r)) => (n, Some(r)),
        None => (text, None),
    };
    let kind = LabKind::parse(name).ok_or_else(|| match name.contains('=') {
        true => EntryError::Orphan(text.to_string()),
        false => EntryError::UnknownKind(name.to_string()),
    })?;
    if kind.served() {
        let (net, suffix) = net_of(&kind, rest.unwrap_or(""), text)?;
        return Ok(LabEntry {
            label: format!("{}{suffix}", kind.name()),
            kind,
            aging: None,
            text: text.to_string(),
            net: Some(net),
        });
    }
    let Some(rest) = rest else {
        return Ok(LabEntry {
            label: kind.name().to_string(),
            kind,
            aging: None,
            text: text.to_string(),
            net: None,
        });
    };
    let (modifier, keys) = rest.split_once(':').unwrap_or((rest, ""));
    if modifier != "aged" {
        return Err(EntryError::UnknownModifier {
            modifier: modifier.to_string(),
            entry: text.to_string(),
            kind,
        });
    }
    if let Some(why) = kind.why_not_aged() {
        return Err(EntryError::NotAgeable { kind, why });
    }
    let (aging, suffix) = keys_of(keys, text)?;
    Ok(LabEntry {
        label: format!("{}-aged{suffix}", kind.name()),
        kind,
        aging: Some(aging),
        text: text.to_string(),
        net: None,
    })
}

/// The options (`replica=2,rtt=2ms`) of entry `entry` of served kind `kind`, and the label
/// suffix they give (`-replica2-rtt2ms`).
fn net_of(kind: &LabKind, keys: &str, entry: &str) -> Result<(NetSpec, String), EntryError> {
    let mut net = NetSpec::default();
    let mut suffix = String::new();
    for item in keys.split([',', ':']).filter(|p| !p.is_empty()) {
        let unknown = || EntryError::UnknownNetOption {
            item: item.to_string(),
            entry: entry.to_string(),
            kind: kind.clone(),
        };
        let (key, value) = item.split_once('=').ok_or_else(unknown)?;
        let bad = |range: String| EntryError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
            entry: entry.to_string(),
            range,
        };
        match key {
            "replica" if *kind == LabKind::Glusterfs => {
                net.replica = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=NetSpec::MAX_REPLICA).contains(n))
                    .ok_or_else(|| bad(format!("1..{} (server hosts)", NetSpec::MAX_REPLICA)))?;
                suffix.push_str(&format!("-replica{}", net.replica));
            }
            "rtt" => {
                net.rtt_us = Some(
                    rtt_us(value)
                        .filter(|us| *us > 0 && *us <= NetSpec::MAX_RTT_US)
                        .ok_or_else(|| bad("a time from 1us to 1s, as in 2ms or 500us".into()))?,
                );
                suffix.push_str(&format!("-rtt{value}"));
            }
            _ => return Err(unknown()),
        }
    }
    Ok((net, suffix))
}

/// A round-trip time (`2ms`, `500us`, `0.5ms`, `1s`) in µs.
fn rtt_us(text: &str) -> Option<u64> {
    let (number, scale) = [("us", 1.0), ("ms", 1e3), ("s", 1e6)]
        .iter()
        .find_map(|(unit, scale)| text.strip_suffix(unit).map(|n| (n, *scale)))?;
    let v: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
    Some((v * scale).round() as u64)
}

/// Parses every entry of `items` (after [`join`]); refuses a label given twice.
pub fn parse_all(items: &[String]) -> Result<Vec<LabEntry>, EntryError> {
    let mut out: Vec<LabEntry> = Vec::new();
    for text in join(items) {
        let e = parse(&text)?;
        if out.iter().any(|o| o.label == e.label) {
            return Err(EntryError::LabelTwice(e.label));
        }
        out.push(e);
    }
    Ok(out)
}

/// The aging keys (`fill=80,churn=3`) of entry `entry` and the label suffix they give
/// (`-fill80-churn3`).
fn keys_of(keys: &str, entry: &str) -> Result<(AgingSpec, String), EntryError> {
    let mut spec = AgingSpec::default();
    let mut given: Vec<&str> = Vec::new();
    for pair in keys.split([',', ':']).filter(|p| !p.is_empty()) {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(EntryError::NotKeyValue {
                item: pair.to_string(),
                entry: entry.to_string(),
            });
        };
        if given.contains(&key) {
            return Err(EntryError::KeyTwice {
                key: key.to_string(),
                entry: entry.to_string(),
            });
        }
        set_key(&mut spec, key, value, entry)?;
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

/// Sets `key` of `spec` to `value`, checked against its range.
fn set_key(spec: &mut AgingSpec, key: &str, value: &str, entry: &str) -> Result<(), EntryError> {
    let bad = |range: String| EntryError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        entry: entry.to_string(),
        range,
    };
    match key {
        "fill" => {
            spec.fill = value
                .parse()
                .ok()
                .filter(|v| (1..=AgingSpec::MAX_FILL).contains(v))
                .ok_or_else(|| {
                    bad(format!(
                        "1..{} (percent of the filesystem)",
                        AgingSpec::MAX_FILL
                    ))
                })?;
        }
        "churn" => {
            spec.churn = value
                .parse()
                .ok()
                .filter(|v| *v <= AgingSpec::MAX_CHURN)
                .ok_or_else(|| bad(format!("0..{} (rounds)", AgingSpec::MAX_CHURN)))?;
        }
        "seed" => {
            spec.seed = value
                .parse()
                .map_err(|_| bad("a whole number (0 or more)".into()))?;
        }
        _ => {
            return Err(EntryError::UnknownKey {
                key: key.to_string(),
                entry: entry.to_string(),
            });
        }
    }
    Ok(())
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
        assert_eq!(all[0].kind, LabKind::Ext4);
        assert_eq!(all[0].aging, None);
        assert_eq!(all[1].aging, Some(AgingSpec::default()));
        let xfs = all[2].aging.unwrap();
        assert_eq!(
            (xfs.fill, xfs.churn, xfs.seed),
            (80, 3, AgingSpec::DEFAULT_SEED)
        );
        assert_eq!(all[2].text, "xfs:aged:fill=80,churn=3");
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
        let err = |t: &str| parse(t).unwrap_err().to_string();
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
        let e = parse_all(&items(&["churn=3"])).unwrap_err().to_string();
        assert!(e.contains("follows no aged kind"), "{e}");
        let e = parse_all(&items(&["ext4:aged", "ext4:aged"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("'ext4-aged' is given twice"), "{e}");
        assert!(parse_all(&items(&["ext4", "ext4"])).is_err());
        for e in [err("ext4:aged:fill=99"), err("tmpfs:aged"), err("ext4:x")] {
            assert_eq!(e.lines().count(), 1, "{e}");
        }
    }

    #[test]
    fn kinds_are_checked_by_name_and_once() {
        let spec = |v: &[&str]| LabSpec {
            kinds: items(v),
            ..LabSpec::default()
        };
        assert_eq!(spec(&["xfs", "tmpfs"]).entries().unwrap().len(), 2);
        let e = spec(&["zfs"]).entries().unwrap_err().message;
        assert!(
            e.contains("unknown lab kind 'zfs'") && e.contains("bindfs"),
            "{e}"
        );
        let e = spec(&["ext4", "ext4"]).entries().unwrap_err().message;
        assert!(e.contains("twice"), "{e}");
        let e = spec(&["ext4:aged:fill=99"]).entries().unwrap_err().message;
        assert!(e.starts_with("--lab: invalid fill=99"), "{e}");
        assert!(spec(&[]).entries().unwrap().is_empty());
        let size_alone = LabSpec {
            size: Some("1g".into()),
            ..LabSpec::default()
        };
        let e = size_alone.entries().unwrap_err().message;
        assert!(e.contains("apply only to --lab"), "{e}");
    }

    #[test]
    fn control_characters_in_an_entry_are_shown_escaped() {
        let e = parse("zfs\u{1b}[2J").unwrap_err().to_string();
        assert!(!e.contains('\u{1b}'), "{e}");
        let e = parse("ext4:aged:fill=\u{7}").unwrap_err().to_string();
        assert!(!e.contains('\u{7}'), "{e}");
    }

    #[test]
    fn served_kinds_take_replica_and_rtt_and_name_them_in_the_label() {
        let all = parse_all(&items(&[
            "glusterfs:replica=2",
            "rtt=2ms",
            "sshfs",
            "glusterfs",
        ]))
        .unwrap();
        let labels: Vec<&str> = all.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels, ["glusterfs-replica2-rtt2ms", "sshfs", "glusterfs"]);
        assert_eq!(
            all[0].net,
            Some(NetSpec {
                replica: 2,
                rtt_us: Some(2000)
            })
        );
        assert_eq!(all[1].net, Some(NetSpec::default()));
        assert_eq!(rtt_us("500us"), Some(500));
        assert_eq!(rtt_us("0.5ms"), Some(500));
        assert_eq!(rtt_us("2"), None);
        let err = |t: &str| parse(t).unwrap_err().to_string();
        let e = err("sshfs:replica=2");
        assert!(
            e.contains("unknown option 'replica=2'") && e.contains("rtt=TIME"),
            "{e}"
        );
        assert!(err("glusterfs:replica=9").contains("1..4"));
        assert!(err("glusterfs:rtt=5").contains("2ms"));
        assert!(err("glusterfs:aged").contains("unknown option 'aged'"));
    }
}
