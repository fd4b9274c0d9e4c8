//! `fsbench env`'s table: what fsbench records about the host and the storage stack under a
//! target, one row per fact, layers top to bottom, then what the stack means for cold cells.

use comfy_table::{Cell, ContentArrangement, Table, presets};
use fsbench_model::{BlockLayer, EncryptionLayer, Environment, Stack, TargetInfo};

/// One table row: layer, fact, value.
type Row = [String; 3];

/// The stack warnings of a target (the caller's storage-stack knowledge; the report stays pure).
pub type Warnings<'a> = &'a dyn Fn(&TargetInfo) -> Vec<String>;

/// The table of `env`: one row per fact, layers top to bottom, then each target's warnings.
pub fn render(env: &Environment, warnings: Warnings<'_>) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::UTF8_FULL_CONDENSED);
    t.set_content_arrangement(ContentArrangement::Disabled);
    t.set_header(["layer", "fact", "value"].map(Cell::new));
    let mut previous = String::new();
    for [layer, fact, value] in rows(env, warnings) {
        let shown = if layer == previous {
            String::new()
        } else {
            layer.clone()
        };
        previous = layer;
        t.add_row([shown, fact, value]);
    }
    t
}

/// All rows: host facts, then each target's stack top to bottom, then its warnings.
fn rows(env: &Environment, warnings: Warnings<'_>) -> Vec<Row> {
    let mut out = Vec::new();
    let mut push = |fact: &str, value: String| out.push(row("host", fact, value));
    push("hostname", env.hostname.clone());
    push("kernel", format!("{} {}", env.os, env.kernel));
    push("cpu", format!("{} × {}", env.cpu_model, env.cpus));
    push("memory", crate::format::bytes(env.memory_bytes));
    push("root", yes_no(env.root).into());
    for t in &env.targets {
        out.push(row("target", "path", format!("{} ({})", t.path, t.kind)));
        target_rows(t, "", &mut out);
        for line in t.lab.as_ref().map(crate::lab::lines).unwrap_or_default() {
            out.push(row("lab", "", line));
        }
        for w in warnings(t) {
            out.push(row("warning", "", w.to_string()));
        }
    }
    out
}

fn row(layer: &str, fact: &str, value: String) -> Row {
    [layer.to_string(), fact.to_string(), value]
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "unknown".into(), |v| v.to_string())
}

/// The stack of `t`; `prefix` names the loop device a backing file hangs under.
fn target_rows(t: &TargetInfo, prefix: &str, out: &mut Vec<Row>) {
    let layer = format!("{prefix}filesystem");
    if t.kind != fsbench_model::TargetKind::Device {
        let mut push = |fact: &str, value: String| out.push(row(&layer, fact, value));
        push("type", t.fs_type.clone());
        push("source", t.source.clone());
        push("mount point", t.mount_point.clone());
        push("options", t.mount_options.clone());
        let (free, total) = (
            crate::format::bytes(t.free_bytes),
            crate::format::bytes(t.total_bytes),
        );
        push("space", format!("{free} free of {total}"));
        fs_detail_rows(&t.stack, &layer, out);
    }
    let enc = format!("{prefix}encryption");
    out.push(row(&enc, "summary", t.encryption.clone()));
    out.push(row(&enc, "fscrypt status", t.stack.fscrypt_status.clone()));
    for e in t
        .stack
        .encryption
        .iter()
        .filter(|e| !e.level.starts_with("under "))
    {
        encryption_rows(e, &enc, out);
    }
    if let Some(f) = &t.stack.fuse {
        fuse_rows(f, &format!("{prefix}fuse"), out);
        if let Some(b) = &f.backing {
            target_rows(b, &format!("{prefix}fuse → "), out);
        }
    }
    if t.stack.devices.is_empty() {
        out.push(row(
            &format!("{prefix}devices"),
            "",
            "none (no block device)".into(),
        ));
    }
    for d in &t.stack.devices {
        device_rows(d, prefix, out);
    }
}

fn fuse_rows(f: &fsbench_model::FuseInfo, layer: &str, out: &mut Vec<Row>) {
    let daemon = match f.daemon_pids.as_slice() {
        [] => "unknown (no process holding /dev/fuse for this mount is visible)".into(),
        pids => format!("{} pid {pids:?}", f.daemon_command),
    };
    out.push(row(layer, "subtype", f.subtype.clone()));
    out.push(row(layer, "daemon", daemon));
    out.push(row(
        layer,
        "serves",
        f.backing_dir
            .clone()
            .unwrap_or_else(|| "no local directory (or not found on its command line)".into()),
    ));
}

fn fs_detail_rows(s: &Stack, layer: &str, out: &mut Vec<Row>) {
    if let Some(n) = &s.nfs {
        nfs_rows(n, layer, out);
    }
    let mut push = |fact: &str, value: String| out.push(row(layer, fact, value));
    if let Some(t) = &s.tmpfs {
        let size = t
            .size_bytes
            .map_or("default (half of RAM)".into(), crate::format::bytes);
        push("size limit", size);
    }
    if let Some(o) = &s.overlay {
        push("lowerdirs", o.lowerdirs.join(" : "));
        push(
            "upperdir",
            o.upperdir
                .clone()
                .unwrap_or_else(|| "none (read-only)".into()),
        );
        push(
            "workdir",
            o.workdir.clone().unwrap_or_else(|| "none".into()),
        );
    }
    if let Some(c) = &s.cifs {
        push("server", c.server.clone());
        push("version", opt(c.version.as_ref()));
        push("cache", opt(c.cache.as_ref()));
    }
    if let Some(a) = &s.afs {
        push("cell", a.cell.clone());
        push("volume", opt(a.volume.as_ref()));
    }
}

fn nfs_rows(n: &fsbench_model::NfsInfo, layer: &str, out: &mut Vec<Row>) {
    let mut push = |fact: &str, value: String| out.push(row(layer, fact, value));
    push("server", n.server.clone());
    push("version", opt(n.version.as_ref()));
    push("proto", opt(n.proto.as_ref()));
    push("rsize/wsize", format!("{}/{}", opt(n.rsize), opt(n.wsize)));
    let ac = [n.actimeo, n.acregmin, n.acregmax, n.acdirmin, n.acdirmax]
        .map(|v| v.map_or("default".into(), |v| format!("{v}s")));
    push(
        "attr cache",
        format!(
            "{} (actimeo {}, acregmin {}, acregmax {}, acdirmin {}, acdirmax {})",
            if n.attr_cache { "on" } else { "off (noac)" },
            ac[0],
            ac[1],
            ac[2],
            ac[3],
            ac[4]
        ),
    );
}

fn encryption_rows(e: &EncryptionLayer, layer: &str, out: &mut Vec<Row>) {
    let mut push = |fact: &str, value: String| out.push(row(layer, fact, value));
    push(e.kind.name(), format!("{} ({})", e.summary, e.level));
    if let Some(p) = &e.fscrypt {
        push("flags", p.flags.join(" "));
        push("key", p.key.clone());
        let present = p
            .key_present
            .map_or("unknown", |b| if b { "yes" } else { "no" });
        push("key present", present.into());
    }
    if let Some(i) = &e.implementation {
        push(
            "implementation",
            format!("{} uses {} (from {})", i.algorithm, i.describe(), i.source),
        );
    }
    if let Some(c) = &e.dm_crypt {
        push("mapping", format!("{} ({})", c.name, c.format));
        push("sector size", opt(c.sector_size));
        if !c.options.is_empty() {
            push("options", c.options.join(" "));
        }
    }
}

fn device_rows(d: &BlockLayer, prefix: &str, out: &mut Vec<Row>) {
    let layer = format!("{prefix}{} ({})", d.name, d.kind);
    let mut push = |fact: &str, value: String| out.push(row(&layer, fact, value));
    push("dev", d.dev.clone());
    if d.slaves.len() > 1 {
        push("over", d.slaves.join(", "));
    }
    if let Some(q) = &d.queue {
        push("rotational", opt(q.rotational.map(yes_no)));
        push("scheduler", q.scheduler.clone());
        push(
            "read-ahead",
            q.read_ahead_kb
                .map_or("unknown".into(), |k| format!("{k} KiB")),
        );
        push("nr_requests", opt(q.nr_requests));
        push("discard", opt(q.discard.map(yes_no)));
        let sizes = format!(
            "{}/{}",
            opt(q.logical_block_size),
            opt(q.physical_block_size)
        );
        push("block size (logical/physical)", sizes);
        push("model", q.model.clone());
        if let Some(v) = &q.virtual_disk {
            push(
                "virtual disk",
                format!(
                    "{v}: the host may cache what the guest flushed (measure its ceiling: fsbench env --probe DIR)"
                ),
            );
        }
    }
    let Some(l) = &d.loop_device else { return };
    push("backing file", l.backing_file.clone());
    push(
        "direct I/O",
        opt(l.direct_io.map(|b| if b { "on" } else { "off" })),
    );
    push("offset", opt(l.offset));
    match &l.backing {
        Some(b) => target_rows(b, &format!("{prefix}{} → ", d.name), out),
        None => out.push(row(
            &layer,
            "backing filesystem",
            "unknown (not described)".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::{LoopInfo, QueueInfo, TmpfsInfo};

    fn stack_warnings(t: &TargetInfo) -> Vec<String> {
        fsbench_envinfo::stack_warnings(t)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn env_with(t: TargetInfo) -> Environment {
        Environment {
            hostname: "vm".into(),
            kernel: "6.18".into(),
            os: "Linux".into(),
            cpu_model: "CPU".into(),
            cpus: 2,
            memory_bytes: 1 << 30,
            root: true,
            targets: vec![t],
        }
    }

    fn find<'a>(rows: &'a [Row], layer: &str, fact: &str) -> Option<&'a str> {
        rows.iter()
            .find(|r| r[0] == layer && r[1] == fact)
            .map(|r| r[2].as_str())
    }

    #[test]
    fn loop_image_on_tmpfs_is_shown_top_to_bottom_with_warnings() {
        let backing = TargetInfo {
            fs_type: "tmpfs".into(),
            mount_point: "/tmp".into(),
            encryption: "none".into(),
            stack: Stack {
                tmpfs: Some(TmpfsInfo::default()),
                ..Stack::default()
            },
            ..TargetInfo::default()
        };
        let t = TargetInfo {
            kind: fsbench_model::TargetKind::Dir,
            fs_type: "ext4".into(),
            encryption: "none".into(),
            stack: Stack {
                devices: vec![BlockLayer {
                    name: "loop0".into(),
                    kind: fsbench_model::BlockKind::Loop,
                    dev: "7:0".into(),
                    loop_device: Some(LoopInfo {
                        backing_file: "/tmp/img".into(),
                        direct_io: Some(false),
                        backing: Some(Box::new(backing)),
                        ..LoopInfo::default()
                    }),
                    queue: Some(QueueInfo {
                        scheduler: "none".into(),
                        ..QueueInfo::default()
                    }),
                    ..BlockLayer::default()
                }],
                ..Stack::default()
            },
            ..TargetInfo::default()
        };
        let r = rows(&env_with(t), &stack_warnings);
        assert_eq!(find(&r, "filesystem", "type"), Some("ext4"));
        assert_eq!(find(&r, "loop0 (loop)", "direct I/O"), Some("off"));
        assert_eq!(find(&r, "loop0 (loop)", "scheduler"), Some("none"));
        assert_eq!(find(&r, "loop0 → filesystem", "type"), Some("tmpfs"));
        assert_eq!(
            find(&r, "loop0 → filesystem", "size limit"),
            Some("default (half of RAM)")
        );
        let fs = r.iter().position(|x| x[0] == "filesystem").unwrap();
        let lo = r.iter().position(|x| x[0] == "loop0 (loop)").unwrap();
        assert!(fs < lo, "layers top to bottom");
        let warnings: Vec<&Row> = r.iter().filter(|x| x[0] == "warning").collect();
        assert_eq!(
            warnings.len(),
            2,
            "no direct I/O, and the image is in memory"
        );
        assert!(
            render(&env_with(TargetInfo::default()), &stack_warnings)
                .to_string()
                .contains("hostname")
        );
    }

    #[test]
    fn nfs_and_fuse_facts_say_unknown_rather_than_nothing() {
        let t = TargetInfo {
            kind: fsbench_model::TargetKind::Dir,
            fs_type: "nfs4".into(),
            stack: Stack {
                nfs: Some(fsbench_model::NfsInfo {
                    version: Some("4.2".into()),
                    attr_cache: false,
                    acregmin: Some(1),
                    ..fsbench_model::NfsInfo::default()
                }),
                fuse: Some(fsbench_model::FuseInfo::default()),
                ..Stack::default()
            },
            ..TargetInfo::default()
        };
        let r = rows(&env_with(t), &stack_warnings);
        assert_eq!(find(&r, "filesystem", "version"), Some("4.2"));
        assert_eq!(find(&r, "filesystem", "proto"), Some("unknown"));
        let ac = find(&r, "filesystem", "attr cache").unwrap();
        assert!(
            ac.starts_with("off (noac)") && ac.contains("acregmin 1s"),
            "{ac}"
        );
        assert!(find(&r, "fuse", "daemon").unwrap().starts_with("unknown"));
        assert_eq!(find(&r, "devices", ""), Some("none (no block device)"));
    }
}
