//! `fsbench record`: runs a program traced ([`fsbench_sys::tracer`]) and turns what it sees
//! into a [`Trace`]: each call's paths made relative to the root (or kept absolute and marked
//! outside), each call on a descriptor tied to the open that made it (across dups, forks and
//! execs), and the start state — every path under the root as it was when the program first
//! touched it, read before the touching call runs, with the entries of every directory it read.

use crate::model::{Call, Entry, FileKind, Op, Spent, Target, Thread, Trace};
use crate::outside;
use fsbench_sys::fscalls::{self, FsCall};
use fsbench_sys::tracer::{self, CallTimes, Observer, Tracee};
use std::collections::{HashMap, HashSet};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

mod begin;

/// A file a descriptor refers to: the open call that made it, and where it is.
#[derive(Debug, Clone)]
struct Opened {
    call: u32,
    outside: bool,
    /// Relative to the root when inside, absolute outside.
    path: Vec<u8>,
}

/// A call between its entry and its exit.
struct Pending {
    op: Op,
    outside: bool,
    /// Descriptor bookkeeping the result decides.
    effect: Effect,
}

enum Effect {
    None,
    /// An open: the result is its descriptor.
    Opened {
        outside: bool,
        path: Vec<u8>,
    },
    /// A close of this descriptor.
    Closed(i32),
    /// A path made (mkdir, link, symlink, a creating open) or renamed into from another.
    Made {
        path: Vec<u8>,
        from: Option<Vec<u8>>,
    },
}

/// What a path in a call is, once resolved.
enum Place {
    /// Under the root: relative to it.
    Inside(Vec<u8>),
    /// Elsewhere: absolute.
    Outside(Vec<u8>),
}

/// Turns the tracer's events into a trace.
pub struct Recorder {
    root: Vec<u8>,
    t0: Instant,
    trace: Trace,
    path_ids: HashMap<Vec<u8>, u32>,
    thread_ids: HashMap<i32, u32>,
    /// Each process's descriptors (threads share their process's).
    tables: HashMap<i32, HashMap<i32, Opened>>,
    /// Live tasks per process, to drop a process's descriptors when its last task ends.
    tasks: HashMap<i32, u32>,
    /// Descriptors per open call, over every process.
    refs: HashMap<u32, u32>,
    /// Paths under the root whose start state is settled (found, or found absent).
    known: HashSet<Vec<u8>>,
    /// Directories the program made: nothing below them was there at the start.
    made: HashSet<Vec<u8>>,
    /// Renames the program made (to, from): what is found below `to` was below `from`.
    renamed: Vec<(Vec<u8>, Vec<u8>)>,
    /// Directories whose entries were read into the start state.
    listed: HashSet<Vec<u8>>,
    pending: HashMap<i32, Pending>,
    /// Dups between their entry and exit: the open file the new descriptor will name.
    dups: HashMap<i32, Opened>,
    /// The program has started (the trampoline's execve of it): calls before are the
    /// trampoline's, not recorded; the clock starts there.
    started: bool,
    /// When each task began (was first seen).
    begun: HashMap<i32, Instant>,
    /// Per task that began a process of its own, the process it was copied from.
    makers: HashMap<i32, i32>,
    /// Per task, the time of its traced calls not recorded since its last recorded one, and
    /// how many: it belongs to the next recorded call's gap.
    carry: HashMap<i32, (Spent, u32)>,
}

impl Recorder {
    /// A recorder for a program run with `root` (absolute, symlinks resolved) as the root.
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.as_os_str().as_bytes().to_vec(),
            t0: Instant::now(),
            trace: Trace {
                root: root.display().to_string(),
                fsbench_version: env!("CARGO_PKG_VERSION").into(),
                ..Trace::default()
            },
            path_ids: HashMap::new(),
            thread_ids: HashMap::new(),
            tables: HashMap::new(),
            tasks: HashMap::new(),
            refs: HashMap::new(),
            known: HashSet::new(),
            made: HashSet::new(),
            renamed: Vec::new(),
            listed: HashSet::new(),
            pending: HashMap::new(),
            dups: HashMap::new(),
            started: false,
            begun: HashMap::new(),
            makers: HashMap::new(),
            carry: HashMap::new(),
        }
    }

    /// The trace so far.
    pub fn finish(self) -> Trace {
        self.trace
    }

    fn intern(&mut self, p: Vec<u8>) -> u32 {
        if let Some(&i) = self.path_ids.get(&p) {
            return i;
        }
        let i = self.trace.paths.len() as u32;
        self.trace.paths.push(p.clone());
        self.path_ids.insert(p, i);
        i
    }

    fn classify(&self, abs: Vec<u8>) -> Place {
        let root = &self.root;
        if abs == *root {
            return Place::Inside(Vec::new());
        }
        if root.as_slice() == b"/" {
            return Place::Inside(abs[1..].to_vec());
        }
        match abs.strip_prefix(root.as_slice()) {
            Some(rest) if rest.first() == Some(&b'/') => Place::Inside(rest[1..].to_vec()),
            _ => Place::Outside(abs),
        }
    }

    /// The path a call names, resolved like the kernel's lookup would start it: relative to
    /// `dir` (a descriptor, or the current directory), normalised without following symlinks.
    fn resolve(&self, t: &Tracee, dir: i32, addr: u64, empty_ok: bool) -> Option<Place> {
        let name = if addr == 0 {
            Vec::new()
        } else {
            t.read_cstr(addr)?
        };
        if name.is_empty() && !empty_ok {
            return None;
        }
        let base = if name.first() == Some(&b'/') {
            PathBuf::from("/")
        } else if dir == libc::AT_FDCWD {
            t.cwd()?
        } else {
            t.fd_path(dir)?
        };
        let mut abs = base.as_os_str().as_bytes().to_vec();
        if !name.is_empty() {
            abs.push(b'/');
            abs.extend_from_slice(&name);
        }
        Some(self.classify(normalise(&abs)))
    }

    /// Reads the start state of `rel` and of its directories, if not settled yet.
    fn touch(&mut self, rel: &[u8]) {
        if rel.is_empty() || self.known.contains(rel) {
            return;
        }
        for (i, &b) in rel.iter().enumerate() {
            if b == b'/' {
                self.touch_one(&rel[..i]);
            }
        }
        self.touch_one(rel);
    }

    fn touch_one(&mut self, rel: &[u8]) {
        if !self.known.insert(rel.to_vec()) {
            return;
        }
        if ancestors_and_self(rel).any(|a| self.made.contains(a)) {
            return;
        }
        // Below a directory the program renamed: it was below the old name at the start.
        let mut original = rel.to_vec();
        for (to, from) in self.renamed.iter().rev() {
            if let Some(rest) = original.strip_prefix(to.as_slice()) {
                if rest.first() == Some(&b'/') {
                    let mut o = from.clone();
                    o.extend_from_slice(rest);
                    original = o;
                }
            }
        }
        if original != rel
            && (!self.known.insert(original.clone())
                || ancestors_and_self(&original).any(|a| self.made.contains(a)))
        {
            return;
        }
        let mut full = self.root.clone();
        if !rel.is_empty() {
            full.push(b'/');
            full.extend_from_slice(rel);
        }
        let full = PathBuf::from(std::ffi::OsStr::from_bytes(&full));
        let Ok(m) = std::fs::symlink_metadata(&full) else {
            return;
        };
        let kind = FileKind::of(m.file_type());
        let target = (kind == FileKind::Symlink)
            .then(|| std::fs::read_link(&full).ok())
            .flatten()
            .map(|t| t.as_os_str().as_bytes().to_vec());
        let path = self.intern(original);
        self.trace.start.push(Entry {
            path,
            kind,
            size: if kind == FileKind::File { m.size() } else { 0 },
            mode: m.mode() & 0o7777,
            target,
        });
    }

    /// The directory `rel`'s entries into the start state, once (before its first read).
    fn list(&mut self, rel: &[u8]) {
        if !self.listed.insert(rel.to_vec()) {
            return;
        }
        let mut full = self.root.clone();
        if !rel.is_empty() {
            full.push(b'/');
            full.extend_from_slice(rel);
        }
        let Ok(dir) = std::fs::read_dir(std::ffi::OsStr::from_bytes(&full)) else {
            return;
        };
        let names: Vec<Vec<u8>> = dir
            .filter_map(|e| Some(e.ok()?.file_name().as_bytes().to_vec()))
            .collect();
        for n in names {
            let mut p = rel.to_vec();
            if !p.is_empty() {
                p.push(b'/');
            }
            p.extend_from_slice(&n);
            self.touch(&p);
        }
    }

    /// A path argument as a call's path index, reading its start state when under the root.
    fn path_arg(&mut self, place: Place) -> (u32, bool) {
        match place {
            Place::Inside(rel) => {
                self.touch(&rel);
                (self.intern(rel), false)
            }
            Place::Outside(abs) => {
                let first = !self.path_ids.contains_key(&abs);
                let id = self.intern(abs);
                if first {
                    self.find_outside(id);
                }
                (id, true)
            }
        }
    }

    /// Reads what is at outside path `id`, named by a call for the first time, before that
    /// call runs (the kernel's own files are never replayed: not read).
    /// The binary `t` runs after an execve (`/proc/TID/exe`), kept as three calls of its thread
    /// at that instant: a read-only open, a mapping of the whole file and a close. The kernel
    /// loaded it (no call of the program's did), and a cold run of the program paid for it; a
    /// replay makes them as it makes the loader's (only while the file is the one recorded; a
    /// mapping is replayed as one byte touched per read-around window), so that a cold replay
    /// loads the binary too. Nothing when the binary cannot be read (deleted since).
    fn loaded(&mut self, t: &Tracee) {
        let Ok(exe) = std::fs::read_link(format!("/proc/{}/exe", t.tid)) else {
            return;
        };
        let Ok(meta) = std::fs::metadata(&exe) else {
            return;
        };
        let (path, outside) = self.path_arg(self.classify(exe.into_os_string().into_vec()));
        let thread = self.thread_index(t);
        let start_ns = Instant::now().saturating_duration_since(self.t0).as_nanos() as u64;
        let open = self.trace.calls.len() as u32;
        let ops = [
            Op::Open {
                path,
                flags: (libc::O_RDONLY | libc::O_CLOEXEC) as u32,
                mode: 0,
            },
            Op::Mmap {
                file: open,
                offset: 0,
                len: meta.len(),
            },
            Op::Close {
                file: open,
                last: true,
            },
        ];
        for op in ops {
            self.trace.calls.push(Call {
                thread,
                start_ns,
                dur_ns: 0,
                op,
                result: 0,
                outside,
                // No stop of the tracer's: nothing ran before or during them.
                before: Some(Spent::default()),
                during: Some(Spent::default()),
                hidden: 0,
            });
        }
    }

    fn find_outside(&mut self, id: u32) {
        let abs = &self.trace.paths[id as usize];
        if outside::kernels(abs) {
            return;
        }
        let found = outside::identity_of(outside::as_path(abs));
        self.trace
            .outside_files
            .push(outside::OutsideFile { path: id, found });
    }

    fn opened(&self, t: &Tracee, fd: i32) -> Option<Opened> {
        self.tables.get(&t.pid)?.get(&fd).cloned()
    }

    fn path_of(&mut self, t: &Tracee, dir: i32, path: u64) -> Option<(u32, bool)> {
        let place = self.resolve(t, dir, path, false)?;
        Some(self.path_arg(place))
    }

    /// A target by path (when `path` is given) or by descriptor.
    fn target(
        &mut self,
        t: &Tracee,
        dir: i32,
        path: Option<u64>,
        fd: Option<i32>,
    ) -> Option<(Target, bool)> {
        match (path, fd) {
            (Some(p), _) => {
                let (p, outside) = self.path_of(t, dir, p)?;
                Some((Target::Path(p), outside))
            }
            (None, Some(fd)) => {
                let o = self.opened(t, fd);
                if o.is_none() {
                    self.trace.not_files += 1;
                }
                let o = o?;
                Some((Target::File(o.call), o.outside))
            }
            (None, None) => None,
        }
    }

    /// Gives a descriptor of `pid` to open call `call`; one it replaces loses its reference.
    fn bind(&mut self, pid: i32, fd: i32, opened: Opened) {
        *self.refs.entry(opened.call).or_default() += 1;
        if let Some(old) = self.tables.entry(pid).or_default().insert(fd, opened) {
            self.unref(old.call);
        }
    }

    /// One descriptor fewer of `call`; true when it was the last.
    fn unref(&mut self, call: u32) -> bool {
        let n = self.refs.entry(call).or_default();
        *n = n.saturating_sub(1);
        *n == 0
    }

    fn thread_index(&mut self, t: &Tracee) -> u32 {
        if let Some(&i) = self.thread_ids.get(&t.tid) {
            return i;
        }
        let i = self.trace.threads.len() as u32;
        let begun_ns = self
            .begun
            .get(&t.tid)
            .map(|b| b.saturating_duration_since(self.t0).as_nanos() as u64)
            .unwrap_or(0);
        self.trace.threads.push(Thread {
            tid: t.tid,
            pid: t.pid,
            begun_ns,
        });
        let maker = self.makers.get(&t.tid).copied().unwrap_or(0);
        self.trace.makers.push(maker);
        self.thread_ids.insert(t.tid, i);
        i
    }

    /// A traced call not recorded: its time goes to the next recorded call's gap.
    fn hide(&mut self, tid: i32, before: Option<Spent>, during: Option<Spent>) {
        if !self.started {
            return;
        }
        let c = self.carry.entry(tid).or_default();
        c.0 =
            c.0.plus(before.unwrap_or_default())
                .plus(during.unwrap_or_default());
        c.1 += 1;
    }

    fn drop_table(&mut self, pid: i32) {
        if let Some(table) = self.tables.remove(&pid) {
            for o in table.into_values() {
                self.unref(o.call);
            }
        }
    }
}

impl Observer for Recorder {
    fn entry(&mut self, t: &Tracee, nr: i64, args: [u64; 6]) {
        self.pending.remove(&t.tid);
        self.dups.remove(&t.tid);
        if !self.started {
            return;
        }
        let Some(call) = fscalls::decode(nr, args) else {
            return;
        };
        if let FsCall::Dup { old, .. } = call {
            self.trace.followed_only += 1;
            if let Some(o) = self.opened(t, old) {
                self.dups.insert(t.tid, o);
            }
            return;
        }
        if let Some(p) = self.begin(t, call) {
            self.pending.insert(t.tid, p);
        }
    }

    fn exit(&mut self, t: &Tracee, ret: i64, times: &CallTimes) {
        let (started, ended) = (times.started, times.ended);
        let before = times.before.map(spent);
        let during = times.during.map(spent);
        if let Some(o) = self.dups.remove(&t.tid) {
            // Not a call a replay makes: the new descriptor names the same open file.
            if ret >= 0 {
                self.bind(t.pid, ret as i32, o);
            }
            self.hide(t.tid, before, during);
            return;
        }
        let Some(mut p) = self.pending.remove(&t.tid) else {
            self.hide(t.tid, before, during);
            return;
        };
        let index = self.trace.calls.len() as u32;
        let ok = ret >= 0;
        let mut result = ret;
        match std::mem::replace(&mut p.effect, Effect::None) {
            Effect::Opened { outside, path } if ok => {
                result = 0;
                self.bind(
                    t.pid,
                    ret as i32,
                    Opened {
                        call: index,
                        outside,
                        path,
                    },
                );
            }
            Effect::Made { path, from } if ok => {
                if let Op::Open { .. } = p.op {
                    result = 0;
                    self.bind(
                        t.pid,
                        ret as i32,
                        Opened {
                            call: index,
                            outside: false,
                            path: path.clone(),
                        },
                    );
                }
                match from {
                    Some(from) => self.renamed.push((path, from)),
                    None => {
                        if !matches!(p.op, Op::Open { .. }) {
                            self.made.insert(path);
                        }
                    }
                }
            }
            Effect::Closed(fd) => {
                if let Some(o) = self.tables.get_mut(&t.pid).and_then(|m| m.remove(&fd)) {
                    let last = self.unref(o.call);
                    if let Op::Close { last: l, .. } = &mut p.op {
                        *l = last;
                    }
                }
            }
            _ => {}
        }
        if let Op::Mmap { .. } = p.op {
            result = if ok { 0 } else { ret };
        }
        let thread = self.thread_index(t);
        let (carried, hidden) = self.carry.remove(&t.tid).unwrap_or_default();
        self.trace.calls.push(Call {
            thread,
            start_ns: started.saturating_duration_since(self.t0).as_nanos() as u64,
            dur_ns: ended.saturating_duration_since(started).as_nanos() as u64,
            op: p.op,
            result,
            outside: p.outside,
            before: before.map(|b| carried.plus(b)),
            during,
            hidden,
        });
    }

    fn spawned(&mut self, t: &Tracee, parent: Option<i32>) {
        self.begun.insert(t.tid, Instant::now());
        *self.tasks.entry(t.pid).or_default() += 1;
        if let Some(parent) = parent.filter(|_| t.tid == t.pid) {
            self.makers.insert(t.tid, parent);
        }
        if let Some(parent) = parent {
            let table: Vec<(i32, Opened)> = self
                .tables
                .get(&parent)
                .map(|m| m.iter().map(|(k, v)| (*k, v.clone())).collect())
                .unwrap_or_default();
            for (fd, o) in table {
                self.bind(t.pid, fd, o);
            }
        }
    }

    fn exec(&mut self, t: &Tracee) {
        if !self.started {
            self.started = true;
            self.t0 = Instant::now();
        }
        // The tracer's clocks start again at an execve.
        self.carry.remove(&t.tid);
        self.loaded(t);
        let open: HashSet<i32> = t.open_fds().into_iter().collect();
        let gone: Vec<i32> = self
            .tables
            .get(&t.pid)
            .map(|m| m.keys().filter(|fd| !open.contains(fd)).copied().collect())
            .unwrap_or_default();
        for fd in gone {
            if let Some(o) = self.tables.get_mut(&t.pid).and_then(|m| m.remove(&fd)) {
                self.unref(o.call);
            }
        }
    }

    fn ended(&mut self, t: &Tracee) {
        self.pending.remove(&t.tid);
        self.carry.remove(&t.tid);
        self.dups.remove(&t.tid);
        let n = self.tasks.entry(t.pid).or_default();
        *n = n.saturating_sub(1);
        if *n == 0 {
            self.tasks.remove(&t.pid);
            self.drop_table(t.pid);
        }
    }
}

/// The relative path of a place under the root.
fn inside_rel(p: &Place) -> Option<Vec<u8>> {
    match p {
        Place::Inside(r) => Some(r.clone()),
        Place::Outside(_) => None,
    }
}

/// `rel`'s directories, then `rel`.
fn ancestors_and_self(rel: &[u8]) -> impl Iterator<Item = &[u8]> {
    rel.iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'/')
        .map(|(i, _)| &rel[..i])
        .chain(std::iter::once(rel))
}

/// The bytes of a vector read or write: its `iovec`s' lengths summed (at most 1,024 of them).
fn iov_bytes(t: &Tracee, addr: u64, count: u64) -> u64 {
    let n = count.min(1024) as usize;
    let mut buf = vec![0u8; n * 16];
    match t.read_mem(addr, &mut buf) {
        Some(got) => buf[..got]
            .chunks_exact(16)
            .map(|c| u64::from_le_bytes(c[8..16].try_into().expect("8 bytes")))
            .sum(),
        None => 0,
    }
}

/// `abs` with `.`, `..` and repeated slashes taken out lexically (symlinks are not followed:
/// the replay rebuilds them, so its lookups take the same turns).
pub fn normalise(abs: &[u8]) -> Vec<u8> {
    let mut parts: Vec<&[u8]> = Vec::new();
    for c in abs.split(|&b| b == b'/') {
        match c {
            b"" | b"." => {}
            b".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let mut out = Vec::with_capacity(abs.len());
    for p in &parts {
        out.push(b'/');
        out.extend_from_slice(p);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}

/// The tracer's reading as the trace keeps it.
fn spent(s: tracer::Spent) -> Spent {
    Spent {
        cpu_ns: s.cpu_ns,
        off_ns: s.off_ns,
        arrivals: s.arrivals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalised_lexically() {
        assert_eq!(normalise(b"/a/./b//c/../d"), b"/a/b/d");
        assert_eq!(normalise(b"/.."), b"/");
        assert_eq!(normalise(b"/"), b"/");
    }

    #[test]
    fn a_path_is_inside_only_below_the_root_itself() {
        let r = Recorder::new(Path::new("/srv/tree"));
        assert!(matches!(r.classify(b"/srv/tree/a/b".to_vec()), Place::Inside(p) if p == b"a/b"));
        assert!(matches!(r.classify(b"/srv/tree".to_vec()), Place::Inside(p) if p.is_empty()));
        assert!(matches!(
            r.classify(b"/srv/treehouse".to_vec()),
            Place::Outside(_)
        ));
        assert!(matches!(
            r.classify(b"/etc/passwd".to_vec()),
            Place::Outside(_)
        ));
    }
}
