//! tracefs: where it is, mounting it when it is not (and unmounting only what fsbench mounted),
//! a tracepoint's id and the offsets of its fields in the raw record (from its `format` file).

use std::path::{Path, PathBuf};

/// Where the kernel documents tracefs's mount point.
pub const TRACEFS: &str = "/sys/kernel/tracing";

/// tracefs as fsbench found it; when fsbench mounted it, dropping this unmounts it.
#[derive(Debug)]
pub struct Tracefs {
    root: PathBuf,
    mounted_here: bool,
}

impl Tracefs {
    /// Finds tracefs (`/sys/kernel/tracing`, or under debugfs), mounting it at
    /// `/sys/kernel/tracing` when neither has its events.
    pub fn open() -> Result<Self, crate::ProfileError> {
        for root in [TRACEFS, "/sys/kernel/debug/tracing"] {
            if Path::new(root).join("events").is_dir() {
                return Ok(Self {
                    root: root.into(),
                    mounted_here: false,
                });
            }
        }
        rustix::mount::mount(
            "nodev",
            TRACEFS,
            "tracefs",
            rustix::mount::MountFlags::empty(),
            None,
        )
        .map_err(|e| {
            crate::ProfileError::Tracefs(format!("not mounted, and mounting it failed: {e}"))
        })?;
        Ok(Self {
            root: TRACEFS.into(),
            mounted_here: true,
        })
    }

    /// True when fsbench mounted it (and will unmount it).
    pub fn mounted_here(&self) -> bool {
        self.mounted_here
    }

    /// The id of tracepoint `group/name`; `None` when the kernel lacks it.
    pub fn id(&self, tracepoint: &str) -> Option<u64> {
        let text = std::fs::read_to_string(self.root.join("events").join(tracepoint).join("id"));
        text.ok()?.trim().parse().ok()
    }

    /// The fields of tracepoint `group/name` as its `format` file describes them.
    pub fn format(&self, tracepoint: &str) -> Option<Format> {
        let path = self.root.join("events").join(tracepoint).join("format");
        Some(Format::parse(&std::fs::read_to_string(path).ok()?))
    }
}

impl Drop for Tracefs {
    fn drop(&mut self) {
        if self.mounted_here {
            let _ = rustix::mount::unmount(&self.root, rustix::mount::UnmountFlags::DETACH);
        }
    }
}

/// Offsets and sizes of a tracepoint's fields in its raw record.
#[derive(Debug, Clone, Default)]
pub struct Format {
    fields: Vec<(String, usize, usize)>,
    /// Fields declared `__data_loc` (a string stored after the fixed fields).
    data_loc: Vec<String>,
}

impl Format {
    /// Reads the `field:TYPE NAME; offset:N; size:N;` lines of a `format` file.
    pub fn parse(text: &str) -> Self {
        let fields = text.lines().filter_map(field_line).collect();
        let data_loc = text
            .lines()
            .filter(|l| l.trim().starts_with("field:__data_loc"))
            .filter_map(field_line)
            .map(|(name, _, _)| name)
            .collect();
        Self { fields, data_loc }
    }

    /// Offset and size of field `name`.
    pub fn field(&self, name: &str) -> Option<(usize, usize)> {
        self.fields
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|&(_, o, s)| (o, s))
    }

    /// Reads field `name` from `raw` as an unsigned number (1, 2, 4 or 8 bytes, native order).
    pub fn read(&self, raw: &[u8], name: &str) -> Option<u64> {
        let (off, size) = self.field(name)?;
        let b = raw.get(off..off + size)?;
        Some(match size {
            1 => u64::from(b[0]),
            2 => u64::from(u16::from_ne_bytes(b.try_into().ok()?)),
            4 => u64::from(u32::from_ne_bytes(b.try_into().ok()?)),
            8 => u64::from_ne_bytes(b.try_into().ok()?),
            _ => return None,
        })
    }
}

impl Format {
    /// Reads text field `name` from `raw`: a `char NAME[N]` array up to its first NUL, or a
    /// `__data_loc char[]` (a 32-bit word: the string's offset in the record, low 16 bits, and
    /// its length, high 16). `None` when the field is missing or out of the record.
    pub fn read_str(&self, raw: &[u8], name: &str) -> Option<String> {
        let (off, size) = self.field(name)?;
        let bytes = match self.data_loc.iter().any(|n| n == name) {
            true => {
                let word = u32::from_ne_bytes(raw.get(off..off + 4)?.try_into().ok()?);
                let (at, len) = ((word & 0xffff) as usize, (word >> 16) as usize);
                raw.get(at..at + len)?
            }
            false => raw.get(off..off + size)?,
        };
        let text = bytes.split(|&b| b == 0).next().unwrap_or_default();
        Some(String::from_utf8_lossy(text).into_owned())
    }
}

fn field_line(line: &str) -> Option<(String, usize, usize)> {
    let mut parts = line.trim().split(';').map(str::trim);
    let decl = parts.next()?.strip_prefix("field:")?;
    let name = decl.rsplit(' ').next()?;
    let name = name.split('[').next()?.to_string();
    let num = |p: Option<&str>, key: &str| p?.strip_prefix(key)?.parse::<usize>().ok();
    let offset = num(parts.next(), "offset:")?;
    let size = num(parts.next(), "size:")?;
    Some((name, offset, size))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHED_SWITCH: &str = "name: sched_switch
ID: 330
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;
\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;
\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;
\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;
";

    #[test]
    fn reads_fields_at_the_offsets_the_format_gives() {
        let f = Format::parse(SCHED_SWITCH);
        assert_eq!(f.field("prev_comm"), Some((8, 16)));
        let mut raw = vec![0u8; 64];
        raw[24..28].copy_from_slice(&1234u32.to_ne_bytes());
        raw[32..40].copy_from_slice(&2u64.to_ne_bytes());
        raw[56..60].copy_from_slice(&99u32.to_ne_bytes());
        assert_eq!(f.read(&raw, "prev_pid"), Some(1234));
        assert_eq!(f.read(&raw, "prev_state"), Some(2));
        assert_eq!(f.read(&raw, "next_pid"), Some(99));
        assert_eq!(f.read(&raw, "missing"), None);
        assert_eq!(f.read(&raw[..30], "prev_state"), None);
        raw[8..13].copy_from_slice(b"git\0x");
        assert_eq!(f.read_str(&raw, "prev_comm").as_deref(), Some("git"));
    }

    #[test]
    fn reads_a_string_stored_after_the_fixed_fields() {
        let f = Format::parse(
            "\tfield:void * work;\toffset:8;\tsize:8;\tsigned:0;
\tfield:__data_loc char[] workqueue;\toffset:24;\tsize:4;\tsigned:0;
\tfield:int cpu;\toffset:32;\tsize:4;\tsigned:1;",
        );
        let mut raw = vec![0u8; 36];
        raw.extend_from_slice(b"writeback\0");
        let word = 36u32 | (10 << 16);
        raw[24..28].copy_from_slice(&word.to_ne_bytes());
        assert_eq!(f.read_str(&raw, "workqueue").as_deref(), Some("writeback"));
        raw[24..28].copy_from_slice(&(40u32 | (99 << 16)).to_ne_bytes());
        assert_eq!(f.read_str(&raw, "workqueue"), None);
        assert_eq!(f.read_str(&raw, "nothing"), None);
    }
}
