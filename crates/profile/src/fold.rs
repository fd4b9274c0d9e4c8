//! Folding on-CPU call chains into `who;root;…;leaf` lines with counts (the flame graph's input),
//! and keeping the most frequent stacks so that a long sample stays small.

use std::collections::BTreeMap;

/// How many distinct stacks a profile keeps; the rest are summed into [`OTHER_STACKS`].
pub const KEEP_STACKS: usize = 2000;

/// The line that stands for the stacks beyond [`KEEP_STACKS`].
pub const OTHER_STACKS: &str = "[other stacks]";

/// One folded line: `who`, then the user frames and the kernel frames, outermost first. The
/// chains come innermost first, as the kernel gives them; runs of one user module collapse.
pub fn line(who: &str, kernel: &[&str], user: &[&str]) -> String {
    let mut out = String::from(who);
    let mut last = None;
    for f in user.iter().rev() {
        if last != Some(f) {
            out.push(';');
            out.push_str(&f.replace(';', ":"));
        }
        last = Some(f);
    }
    for f in kernel.iter().rev() {
        out.push(';');
        out.push_str(&f.replace(';', ":"));
    }
    out
}

/// Keeps the `keep` most frequent stacks of `stacks`, summing the others into
/// [`OTHER_STACKS`].
pub fn cap(stacks: &mut BTreeMap<String, u64>, keep: usize) {
    if stacks.len() <= keep {
        return;
    }
    let mut all: Vec<(String, u64)> = std::mem::take(stacks).into_iter().collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let rest: u64 = all.iter().skip(keep).map(|(_, n)| n).sum();
    stacks.extend(all.into_iter().take(keep));
    *stacks.entry(OTHER_STACKS.into()).or_default() += rest;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_folds_outermost_first_with_one_frame_per_user_module_run() {
        let kernel = ["filemap_read", "vfs_read", "__x64_sys_pread64"];
        let user = ["[libc.so.6]", "[fsbench]", "[fsbench]"];
        assert_eq!(
            line("fsbench", &kernel, &user),
            "fsbench;[fsbench];[libc.so.6];__x64_sys_pread64;vfs_read;filemap_read"
        );
        assert_eq!(line("other", &[], &[]), "other");
    }

    #[test]
    fn capping_keeps_the_most_frequent_and_sums_the_rest() {
        let mut m: BTreeMap<String, u64> = [("a", 5), ("b", 1), ("c", 3), ("d", 1)]
            .map(|(k, v)| (k.to_string(), v))
            .into();
        cap(&mut m, 2);
        assert_eq!(m.get("a"), Some(&5));
        assert_eq!(m.get("c"), Some(&3));
        assert_eq!(m.get(OTHER_STACKS), Some(&2));
        assert_eq!(m.len(), 3);
    }
}
