//! Tree profiles: counts, depth and file-size distribution of real source checkouts.

/// Shape of a source tree at scale 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    /// Name used in `profile=`.
    pub name: &'static str,
    /// Files at scale 1.
    pub files: u64,
    /// Directories at scale 1.
    pub dirs: u64,
    /// Deepest directory level.
    pub max_depth: u32,
    /// Median file size in bytes (sizes are log-normal around it).
    pub median_size: f64,
    /// Log-normal sigma: larger means a longer tail of big files.
    pub sigma: f64,
}

/// The built-in profiles (counts from the checkouts they imitate, rounded).
pub const PROFILES: &[Profile] = &[
    Profile {
        name: "chromium",
        files: 250_000,
        dirs: 25_000,
        max_depth: 14,
        median_size: 3_000.0,
        sigma: 1.5,
    },
    Profile {
        name: "firefox",
        files: 280_000,
        dirs: 30_000,
        max_depth: 14,
        median_size: 2_500.0,
        sigma: 1.6,
    },
    Profile {
        name: "linux",
        files: 75_000,
        dirs: 5_000,
        max_depth: 9,
        median_size: 6_000.0,
        sigma: 1.3,
    },
    // The OpenOffice.org 3.3.0 source tarball of the AFS/NFS study: about 76,000 files in 7,000
    // directories, 1.8 GiB uncompressed (a mean of about 24 KiB per file).
    Profile {
        name: "csail",
        files: 76_000,
        dirs: 7_000,
        max_depth: 12,
        median_size: 7_000.0,
        sigma: 1.6,
    },
    Profile {
        name: "small",
        files: 2_000,
        dirs: 200,
        max_depth: 6,
        median_size: 2_000.0,
        sigma: 1.2,
    },
    // Every file in one directory, all of one size (the small tree's mean): mdtest's layout
    // with `-w 4163` (`bench/vs-ior.sh` runs mdtest so); IO500's own sizes are the two below.
    Profile {
        name: "flat",
        files: 2_000,
        dirs: 1,
        max_depth: 0,
        median_size: 4_163.0,
        sigma: 0.0,
    },
    // IO500's mdtest-hard: 3,901-byte files in one directory (`mdtest -F -w 3901 -e 3901`),
    // shared by every rank with `--layout shared`.
    Profile {
        name: "mdtest-hard",
        files: 2_000,
        dirs: 1,
        max_depth: 0,
        median_size: 3_901.0,
        sigma: 0.0,
    },
    // IO500's mdtest-easy: empty files, one directory per rank (`mdtest -F -u -L`).
    Profile {
        name: "mdtest-easy",
        files: 2_000,
        dirs: 1,
        max_depth: 0,
        median_size: 0.0,
        sigma: 0.0,
    },
];

impl Profile {
    /// The profile called `name`.
    pub fn find(name: &str) -> Option<Profile> {
        PROFILES.iter().copied().find(|p| p.name == name)
    }

    /// Names of all profiles, for error messages.
    pub fn names() -> String {
        PROFILES
            .iter()
            .map(|p| p.name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed study's tarball: ~76,000 files in ~7,000 directories, ~1.8 GiB. Losing this
    /// profile once broke `tar-extract`'s default; this test keeps it.
    #[test]
    fn io500_shapes_are_exact() {
        for (name, size) in [("mdtest-hard", 3901), ("mdtest-easy", 0), ("flat", 4163)] {
            let p = Profile::find(name).unwrap();
            let t = crate::TreeSpec::generate(&p, 1.0, 42);
            assert!(t.files.iter().all(|f| f.size == size), "{name}");
            assert_eq!(t.manifest().dirs, 1, "{name}");
        }
    }

    #[test]
    fn csail_matches_the_seed_tarball() {
        let p = Profile::find("csail").expect("csail profile exists");
        let m = crate::TreeSpec::generate(&p, 1.0, 42).manifest();
        assert!((75_000..=77_000).contains(&m.files), "{m:?}");
        assert!((6_500..=7_500).contains(&m.dirs), "{m:?}");
        let gib = m.bytes as f64 / (1u64 << 30) as f64;
        assert!((1.3..2.4).contains(&gib), "{gib} GiB");
    }
}
