//! Call-chain addresses to frame names: kernel addresses through `/proc/kallsyms`, user
//! addresses of fsbench and the daemons to their module (`[libc.so.6]`) through
//! `/proc/PID/maps`, other user addresses to `[user]`.

use crate::kallsyms::Kallsyms;
use std::collections::HashMap;

/// Where a frame was: the kernel, or a process's user space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// Kernel text.
    Kernel,
    /// User space of a process.
    User(u32),
}

/// A process's executable mappings: start, end, module name.
type Maps = Vec<(u64, u64, String)>;

/// Names frames, reading each process's maps once.
pub struct Symbolizer<'a> {
    kernel: &'a Kallsyms,
    maps: HashMap<u32, Maps>,
    mapped: Vec<u32>,
}

impl<'a> Symbolizer<'a> {
    /// A symbolizer that reads the maps of `processes` (others' user frames stay `[user]`).
    pub fn new(kernel: &'a Kallsyms, processes: &[u32]) -> Self {
        Self {
            kernel,
            maps: HashMap::new(),
            mapped: processes.to_vec(),
        }
    }

    /// The name of the frame at `addr` in `space`.
    pub fn name(&mut self, space: Space, addr: u64) -> String {
        match space {
            Space::Kernel => self
                .kernel
                .name(addr)
                .map_or_else(|| "[kernel]".to_string(), str::to_string),
            Space::User(pid) if self.mapped.contains(&pid) => {
                let maps = self.maps.entry(pid).or_insert_with(|| read_maps(pid));
                maps.iter()
                    .find(|(s, e, _)| (*s..*e).contains(&addr))
                    .map_or_else(|| "[user]".to_string(), |(_, _, m)| format!("[{m}]"))
            }
            Space::User(_) => "[user]".into(),
        }
    }
}

fn read_maps(pid: u32) -> Maps {
    let text = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap_or_default();
    text.lines().filter_map(map_line).collect()
}

/// `START-END PERMS OFFSET DEV INODE PATH` of an executable mapping.
fn map_line(line: &str) -> Option<(u64, u64, String)> {
    let mut it = line.split_whitespace();
    let (s, e) = it.next()?.split_once('-')?;
    let perms = it.next()?;
    if !perms.contains('x') {
        return None;
    }
    let path = it.nth(3).unwrap_or("anon");
    let module = path.rsplit('/').next().unwrap_or(path).to_string();
    Some((
        u64::from_str_radix(s, 16).ok()?,
        u64::from_str_radix(e, 16).ok()?,
        module,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_executable_mapping_names_its_module() {
        let l = "7f0000000000-7f0000100000 r-xp 00000000 08:01 1234 /usr/lib/x86_64-linux-gnu/libc.so.6";
        assert_eq!(
            map_line(l),
            Some((0x7f00_0000_0000, 0x7f00_0010_0000, "libc.so.6".into()))
        );
        assert_eq!(map_line("7f-80 rw-p 0 00:00 0"), None);
    }
}
