//! Before any work: every file the user named for output is checked against everything it must
//! never replace — the results database, a workload's input (`file=`, `archive=`, `tree=`), the
//! suite file, and every other output. Paths are compared by what they name (device and inode
//! after resolving; for a file not yet made, its directory's device and inode and its name),
//! never as strings, so `./r.db`, `r.db` and `/link/to/dir/r.db` are one file. A directory that
//! cannot be written (read-only filesystem, no permission) is refused here too, not after the run.

use crate::Refused;
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What a path names: an existing file, or a name not yet made in an existing directory.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Identity {
    /// (device, inode) of an existing file.
    File(u64, u64),
    /// (device, inode) of the directory, and the name in it.
    New(u64, u64, OsString),
}

fn identity(path: &Path) -> Option<Identity> {
    if let Ok(m) = std::fs::metadata(path) {
        return Some(Identity::File(m.dev(), m.ino()));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let d = std::fs::metadata(dir).ok()?;
    Some(Identity::New(
        d.dev(),
        d.ino(),
        path.file_name()?.to_os_string(),
    ))
}

/// True when `a` and `b` name the same file (existing or to be made).
pub fn same_file(a: &Path, b: &Path) -> bool {
    matches!((identity(a), identity(b)), (Some(x), Some(y)) if x == y)
}

/// A file an output must never replace, and what it is (for the message).
pub struct Protected {
    /// What it is: `the results database`, `the input file= of rand-read`, `the suite file`.
    pub what: String,
    /// Its path.
    pub path: PathBuf,
}

/// [`check`], after checking that each output file can be written as one
/// ([`crate::file::check`]: not a symlink, a device or a directory).
pub fn check_files(outputs: &[(&str, &Path)], protected: &[Protected]) -> Result<(), Refused> {
    for (flag, path) in outputs.iter().filter(|(_, p)| p.as_os_str() != "-") {
        crate::file::check(path, flag)?;
    }
    check(outputs, protected)
}

/// Refuses, in one line, an output that is a protected file or another output, or whose
/// directory cannot be written. `outputs` are (flag, path); `-` (standard output) is skipped,
/// but two outputs on standard output are refused too.
pub fn check(outputs: &[(&str, &Path)], protected: &[Protected]) -> Result<(), Refused> {
    let files: Vec<&(&str, &Path)> = outputs
        .iter()
        .filter(|(_, p)| p.as_os_str() != "-")
        .collect();
    let stdout: Vec<&str> = outputs
        .iter()
        .filter(|(_, p)| p.as_os_str() == "-")
        .map(|(f, _)| *f)
        .collect();
    if stdout.len() > 1 {
        return Err(Refused(format!(
            "{} all write to standard output (-) — give all but one of them a file",
            stdout.join(" and ")
        )));
    }
    for (i, (flag, path)) in files.iter().enumerate() {
        if let Some(p) = protected.iter().find(|p| same_file(path, &p.path)) {
            return Err(Refused(format!(
                "{flag} {} is {} ({}) — write the output to another file",
                path.display(),
                p.what,
                p.path.display()
            )));
        }
        if let Some((other, _)) = files[..i].iter().find(|(_, q)| same_file(path, q)) {
            return Err(Refused(format!(
                "{other} and {flag} both name {} — give each output its own file",
                path.display()
            )));
        }
        writable_dir(flag, path)?;
    }
    Ok(())
}

/// Refuses an output whose directory cannot take the new file (read-only filesystem, no
/// permission): every output is replaced through a temporary file in its directory.
fn writable_dir(flag: &str, path: &Path) -> Result<(), Refused> {
    let stream = std::fs::metadata(path).is_ok_and(|m| {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        t.is_char_device() || t.is_fifo() || t.is_socket()
    });
    if stream {
        return Ok(()); // written through, never replaced
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match rustix::fs::access(dir, rustix::fs::Access::WRITE_OK) {
        Ok(()) => Ok(()),
        Err(rustix::io::Errno::NOENT) => Err(Refused(format!(
            "cannot write {flag} {}: directory {} does not exist — create it or give another path",
            path.display(),
            dir.display()
        ))),
        Err(e) => {
            let why = match e {
                rustix::io::Errno::ROFS => "is on a read-only filesystem",
                rustix::io::Errno::ACCESS | rustix::io::Errno::PERM => {
                    "cannot be written (permission denied)"
                }
                _ => "cannot be written",
            };
            Err(Refused(format!(
                "cannot write {flag} {}: its directory {} {why} — give a path in a writable directory",
                path.display(),
                dir.display()
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_file_by_other_spellings_is_found() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("r.db");
        std::fs::write(&f, b"x").unwrap();
        let link = d.path().join("link");
        std::os::unix::fs::symlink(d.path(), &link).unwrap();
        assert!(same_file(&f, &link.join("r.db")));
        assert!(same_file(&f, &d.path().join(".").join("r.db")));
        let new = d.path().join("new.json");
        assert!(same_file(&new, &link.join("new.json")));
        assert!(!same_file(&new, &f));
    }

    #[test]
    fn outputs_on_protected_files_or_each_other_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("r.db");
        std::fs::write(&db, b"x").unwrap();
        let protected = [Protected {
            what: "the results database".into(),
            path: db.clone(),
        }];
        let e = check(&[("--html", &db)], &protected).unwrap_err();
        assert!(e.0.contains("is the results database"), "{e}");
        let a = d.path().join("a.out");
        let e = check(&[("--export-json", &a), ("--export-csv", &a)], &[]).unwrap_err();
        assert!(e.0.contains("both name"), "{e}");
        let dash = Path::new("-");
        let e = check(&[("--export-json", dash), ("--html", dash)], &[]).unwrap_err();
        assert!(e.0.contains("standard output"), "{e}");
        assert!(check(&[("--export-json", &a), ("--html", dash)], &protected).is_ok());
    }
}
