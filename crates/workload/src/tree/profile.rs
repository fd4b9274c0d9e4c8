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
    Profile {
        name: "small",
        files: 2_000,
        dirs: 200,
        max_depth: 6,
        median_size: 2_000.0,
        sigma: 1.2,
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
