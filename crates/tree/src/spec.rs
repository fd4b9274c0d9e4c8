//! The tree as data: every directory (parent first) and file (directory, name, size), generated
//! from a profile, a scale and a seed, plus its manifest.

use crate::Profile;
use fsbench_io::file::Rng;

/// One directory: index of its parent (the root is its own parent) and its path.
#[derive(Debug, Clone, PartialEq)]
pub struct DirSpec {
    /// Parent index; 0 for the root and its children.
    pub parent: usize,
    /// Depth below the root (root = 0).
    pub depth: u32,
    /// Path relative to the tree root ("" for the root).
    pub path: String,
}

/// One file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileSpec {
    /// Index of its directory.
    pub dir: usize,
    /// Path relative to the tree root.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
}

/// Counts, bytes and a hash that identify a generated tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Manifest {
    /// Regular files.
    pub files: u64,
    /// Directories, the root included.
    pub dirs: u64,
    /// Sum of file sizes.
    pub bytes: u64,
    /// FNV-1a 64 over every path and size in order: equal hashes mean equal trees.
    pub hash: u64,
}

/// A complete tree description.
#[derive(Debug, Clone)]
pub struct TreeSpec {
    /// Directories, parents before children; index 0 is the root.
    pub dirs: Vec<DirSpec>,
    /// Files.
    pub files: Vec<FileSpec>,
}

const WORDS: &[&str] = &[
    "base",
    "net",
    "ui",
    "core",
    "util",
    "test",
    "src",
    "lib",
    "common",
    "browser",
    "render",
    "gfx",
    "media",
    "content",
    "third_party",
    "tools",
    "build",
    "chrome",
    "ipc",
    "dom",
    "layout",
    "js",
    "style",
    "docs",
];
const EXTS: &[(&str, u64)] = &[
    ("cc", 30),
    ("h", 24),
    ("py", 8),
    ("js", 10),
    ("json", 3),
    ("md", 2),
    ("txt", 2),
    ("png", 4),
    ("gn", 3),
    ("html", 5),
    ("c", 5),
    ("rs", 2),
    ("java", 2),
];

impl TreeSpec {
    /// Generates the tree of `profile` at `scale` (0 < scale) from `seed`.
    pub fn generate(profile: &Profile, scale: f64, seed: u64) -> Self {
        let mut rng = Rng::new(seed ^ 0x7ee5);
        let ndirs = ((profile.dirs as f64 * scale).round() as usize).max(1);
        let nfiles = ((profile.files as f64 * scale).round() as usize).max(1);
        let mut dirs = vec![DirSpec {
            parent: 0,
            depth: 0,
            path: String::new(),
        }];
        for i in 1..ndirs {
            let parent = pick_parent(&mut rng, &dirs, profile.max_depth);
            let name = format!("{}{}", WORDS[rng.below(WORDS.len() as u64) as usize], i);
            let path = join(&dirs[parent].path, &name);
            dirs.push(DirSpec {
                parent,
                depth: dirs[parent].depth + 1,
                path,
            });
        }
        let mut files = Vec::with_capacity(nfiles);
        for i in 0..nfiles {
            // 30% of files crowd into the first tenth of the directories, as in real trees.
            let dir = if rng.below(10) < 3 {
                rng.below(ndirs as u64 / 10 + 1)
            } else {
                rng.below(ndirs as u64)
            } as usize;
            let word = WORDS[rng.below(WORDS.len() as u64) as usize];
            let name = format!("{word}_{i}.{}", pick_ext(&mut rng));
            files.push(FileSpec {
                dir,
                path: join(&dirs[dir].path, &name),
                size: lognormal(&mut rng, profile),
            });
        }
        Self { dirs, files }
    }

    /// The tree's manifest.
    pub fn manifest(&self) -> Manifest {
        let mut h = Fnv::new();
        for d in &self.dirs {
            h.write(d.path.as_bytes());
            h.write(b"/\n");
        }
        let mut bytes = 0;
        for f in &self.files {
            h.write(f.path.as_bytes());
            h.write(&f.size.to_le_bytes());
            bytes += f.size;
        }
        Manifest {
            files: self.files.len() as u64,
            dirs: self.dirs.len() as u64,
            bytes,
            hash: h.0,
        }
    }
}

fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}/{name}")
    }
}

/// Half the time a recently made directory (trees grow depth first), else any; never too deep.
fn pick_parent(rng: &mut Rng, dirs: &[DirSpec], max_depth: u32) -> usize {
    for _ in 0..8 {
        let n = dirs.len() as u64;
        let i = if rng.below(2) == 0 {
            n - 1 - rng.below(n.min(16))
        } else {
            rng.below(n)
        } as usize;
        if dirs[i].depth < max_depth {
            return i;
        }
    }
    0
}

fn pick_ext(rng: &mut Rng) -> &'static str {
    let total: u64 = EXTS.iter().map(|(_, w)| w).sum();
    let mut x = rng.below(total);
    for (ext, w) in EXTS {
        if x < *w {
            return ext;
        }
        x -= w;
    }
    "txt"
}

/// Log-normal size around the profile's median, capped at 16 MiB.
fn lognormal(rng: &mut Rng, p: &Profile) -> u64 {
    let u1 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let u2 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let z = (-2.0 * u1.max(1e-300).ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
    (p.median_size * (p.sigma * z).exp()).min(16.0 * 1048576.0) as u64
}

/// FNV-1a, 64 bit: a tiny hash whose value never changes between versions (unlike std's).
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ *b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_tree_other_seed_other_tree() {
        let p = Profile::find("small").unwrap();
        let a = TreeSpec::generate(&p, 1.0, 1).manifest();
        let b = TreeSpec::generate(&p, 1.0, 1).manifest();
        let c = TreeSpec::generate(&p, 1.0, 2).manifest();
        assert_eq!(a, b);
        assert_ne!(a.hash, c.hash);
        assert_eq!((a.files, a.dirs), (2000, 200));
    }

    #[test]
    fn flat_is_one_directory_of_equal_files_as_mdtest() {
        let p = Profile::find("flat").unwrap();
        let t = TreeSpec::generate(&p, 1.0, 42);
        assert_eq!((t.files.len(), t.dirs.len()), (2000, 1));
        assert!(t.files.iter().all(|f| f.dir == 0 && !f.path.contains('/')));
        assert!(t.files.iter().all(|f| f.size == 4163), "sizes vary");
    }

    #[test]
    fn scale_and_depth_are_respected() {
        let p = Profile::find("chromium").unwrap();
        let t = TreeSpec::generate(&p, 0.01, 42);
        assert_eq!(t.files.len(), 2500);
        assert_eq!(t.dirs.len(), 250);
        assert!(t.dirs.iter().all(|d| d.depth <= p.max_depth));
        assert!(t.dirs.iter().enumerate().skip(1).all(|(i, d)| d.parent < i));
        let deepest = t.dirs.iter().map(|d| d.depth).max().unwrap();
        assert!(deepest >= 4, "tree too flat: {deepest}");
    }

    #[test]
    fn sizes_have_a_small_median_and_a_long_tail() {
        let p = Profile::find("chromium").unwrap();
        let mut sizes: Vec<u64> = TreeSpec::generate(&p, 0.02, 7)
            .files
            .iter()
            .map(|f| f.size)
            .collect();
        sizes.sort();
        let median = sizes[sizes.len() / 2] as f64;
        assert!((1500.0..6000.0).contains(&median), "{median}");
        assert!(*sizes.last().unwrap() as f64 > 50.0 * median);
    }
}
