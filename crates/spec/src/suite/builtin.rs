//! The built-in suites, one TOML file each under `builtin/`, embedded in the binary. Each
//! reproduces a seed study (`../shared/seeds/`, `docs/seeds.md`) on whatever targets it is given.

/// Name and TOML text of every built-in suite, in the order `fsbench suite list` shows them.
const BUILTIN: &[(&str, &str)] = &[
    ("quick", include_str!("builtin/quick.toml")),
    ("chromium-dev", include_str!("builtin/chromium-dev.toml")),
    ("disk-speed", include_str!("builtin/disk-speed.toml")),
    ("afs-study", include_str!("builtin/afs-study.toml")),
    ("readdir-locks", include_str!("builtin/readdir-locks.toml")),
    ("fs-shootout", include_str!("builtin/fs-shootout.toml")),
    ("io500", include_str!("builtin/io500.toml")),
];

/// Names of the built-in suites.
pub fn names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// The TOML text of built-in suite `name`.
pub fn text(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Built-in suite `name` as written, parsed but not validated: what `fsbench suite list` shows
/// (validating builds every workload, generating every tree one names: a quarter of a million
/// files for chromium-dev), and what [`load`](super::load) then validates. The tests below
/// validate every built-in.
pub fn described(name: &str) -> Option<fsbench_model::EngineResult<super::file::Suite>> {
    text(name).map(|t| super::file::parse(&format!("builtin:{name}"), t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses_validates_and_is_named_after_its_file() {
        for name in names() {
            let s = crate::suite::load(name).unwrap_or_else(|e| panic!("{name}: {}", e.message));
            assert_eq!(s.name, name);
            // What `suite list` shows, read without validating, is what the validated suite says.
            let d = described(name).expect("a built-in").expect("parses");
            assert_eq!(
                (&d.name, &d.description, d.time.as_ref().map(|t| &t.text)),
                (&s.name, &s.description, s.time.as_ref().map(|t| &t.text))
            );
            assert!(!s.description.is_empty(), "{name} has no description");
            assert!(s.time.is_some(), "{name} does not say how long it takes");
        }
        assert!(described("no-such-suite").is_none());
    }

    #[test]
    fn every_builtin_validates_scaled_down() {
        for name in names() {
            let mut s = crate::suite::load(name).expect("loads");
            crate::suite::scale::apply(&mut s.workloads, 0.01);
            crate::suite::validate(&s).unwrap_or_else(|e| panic!("{name}: {}", e.message));
        }
    }
}
