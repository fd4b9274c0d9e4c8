//! tar-extract and tar-delete end to end, including hostile archives whose entries try to leave
//! the destination: each is refused with a clear error, and nothing appears outside the scratch.

use crate::util::{entries, fsbench, temp_dir};
use predicates::prelude::*;
use std::path::Path;
use std::process::Command;

/// One archive member: name, kind (`file`, `sym`, `hard`), contents or link target.
type Member<'a> = (&'a str, &'a str, &'a str);

/// Builds `out` with Python's tarfile from (name, kind, data-or-link-target) entries.
fn make_tar(out: &Path, members: &[Member]) {
    let spec: Vec<String> = members
        .iter()
        .map(|(n, k, d)| format!("({n:?}, {k:?}, {d:?})"))
        .collect();
    let script = format!(
        "import io, tarfile\nt = tarfile.open({:?}, 'w')\nfor name, kind, data in [{}]:\n    i = tarfile.TarInfo(name)\n    if kind == 'sym':\n        i.type = tarfile.SYMTYPE; i.linkname = data; t.addfile(i)\n    elif kind == 'hard':\n        i.type = tarfile.LNKTYPE; i.linkname = data; t.addfile(i)\n    else:\n        b = data.encode(); i.size = len(b); t.addfile(i, io.BytesIO(b))\nt.close()\n",
        out.display().to_string(),
        spec.join(", ")
    );
    let ok = Command::new("python3")
        .arg("-c")
        .arg(script)
        .status()
        .unwrap();
    assert!(ok.success());
}

#[test]
fn hostile_archives_are_refused_and_nothing_escapes() {
    let work = temp_dir();
    let canary = temp_dir();
    std::fs::write(canary.path().join("keep"), b"precious").unwrap();
    let outside = canary.path().display().to_string();
    let cases: Vec<(&str, Vec<Member>)> = vec![
        (
            "dotdot",
            vec![
                ("ok.txt", "file", "x"),
                ("../../../../../../../../tmp/fsbench-escape", "file", "evil"),
            ],
        ),
        (
            "absolute",
            vec![("/tmp/fsbench-escape-abs", "file", "evil")],
        ),
        (
            "symlink-out",
            vec![("link", "sym", &outside), ("link/pwned", "file", "evil")],
        ),
        (
            "symlink-up",
            vec![
                ("d/link", "sym", "../../.."),
                ("d/link/pwned", "file", "evil"),
            ],
        ),
        ("hardlink-out", vec![("h", "hard", "/etc/passwd")]),
        (
            "symlink-chain",
            vec![("l0", "sym", "."), ("l1", "sym", "l0/..")],
        ),
    ];
    for (name, members) in cases {
        let tar = work.path().join(format!("{name}.tar"));
        make_tar(&tar, &members);
        let target = temp_dir();
        fsbench()
            .args(["run", "-q", "--cache", "warm", "--runs", "1", "-w"])
            .arg(format!("tar-extract:archive={}", tar.display()))
            .arg("--target")
            .arg(target.path())
            .assert()
            .code(3)
            .stderr(predicate::str::contains("refused"));
        assert!(entries(target.path()).is_empty(), "{name}: scratch left");
        assert_eq!(entries(canary.path()), ["keep"], "{name}");
    }
    assert!(!Path::new("/tmp/fsbench-escape").exists());
    assert!(!Path::new("/tmp/fsbench-escape-abs").exists());
}

#[test]
fn extract_and_delete_a_synthetic_archive() {
    let t = temp_dir();
    let json = temp_dir();
    let out = json.path().join("o.json");
    fsbench()
        .args([
            "run",
            "-q",
            "--cache",
            "warm",
            "--runs",
            "2",
            "-w",
            "tar-extract:profile=small,scale=0.1",
            "-w",
            "tar-delete:profile=small,scale=0.1",
            "--json",
        ])
        .arg(&out)
        .arg("--target")
        .arg(t.path())
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["results"][0]["samples"][0]["metrics"]["files"], 200.0);
    assert_eq!(v["results"][1]["samples"][0]["metrics"]["entries"], 219.0);
    assert!(
        v["results"][0]["params"]["manifest"]
            .as_str()
            .unwrap()
            .contains("hash=")
    );
    assert!(entries(t.path()).is_empty());
}

#[test]
fn modes_and_mtimes_are_kept_like_gnu_tar() {
    let work = temp_dir();
    let tar = work.path().join("m.tar");
    let script = format!(
        "import io, tarfile\nt = tarfile.open({:?}, 'w')\nd = tarfile.TarInfo('dir'); d.type = tarfile.DIRTYPE; d.mode = 0o750; d.mtime = 1200000000; t.addfile(d)\ni = tarfile.TarInfo('dir/f'); i.size = 3; i.mode = 0o640; i.mtime = 1000000000; t.addfile(i, io.BytesIO(b'abc'))\nt.close()\n",
        tar.display().to_string()
    );
    assert!(
        Command::new("python3")
            .arg("-c")
            .arg(script)
            .status()
            .unwrap()
            .success()
    );
    let dest = temp_dir();
    fsbench_tree::tarball::extract(
        &tar,
        dest.path(),
        &fsbench_workload::CancelToken::new(),
        None,
    )
    .unwrap();
    use std::os::unix::fs::MetadataExt;
    let f = std::fs::metadata(dest.path().join("dir/f")).unwrap();
    assert_eq!(f.mtime(), 1_000_000_000);
    assert_eq!(std::fs::read(dest.path().join("dir/f")).unwrap(), b"abc");
    let d = std::fs::metadata(dest.path().join("dir")).unwrap();
    assert_eq!(
        d.mtime(),
        1_200_000_000,
        "directory mtime is set after its contents"
    );
    if rustix::process::geteuid().is_root() {
        assert_eq!(f.mode() & 0o7777, 0o640);
        assert_eq!(d.mode() & 0o7777, 0o750);
    }
}

/// The `.fsbench-*` entries of `dir` seen every few milliseconds while `child` runs, and its
/// exit code.
fn watch_scratches(dir: &Path, child: &mut std::process::Child) -> (Vec<String>, i32) {
    let mut seen: Vec<String> = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        for e in entries(dir) {
            if e.starts_with(".fsbench-") && !seen.contains(&e) {
                seen.push(e);
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (seen, status.code().unwrap_or(-1));
        }
        assert!(std::time::Instant::now() < deadline, "fsbench did not exit");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// A run of both tar workloads on `targets` with `TMPDIR=tmp`, writing its record to `json`. A
/// small tree (about 1,100 entries): where the archive lives and what is left after do not
/// grow with it, and each extraction of 4,400 (scale 2) took over 4 s here.
fn tar_run(
    tmp: &Path,
    targets: &[&Path],
    param: &str,
    runs: &str,
    json: &Path,
) -> std::process::Command {
    let mut cmd = crate::util::command();
    cmd.env("TMPDIR", tmp)
        .args(["run", "-q", "--cache", "warm", "--runs", runs, "-w"])
        .arg(format!("tar-extract:profile=small,scale=0.5{param}"))
        .arg("-w")
        .arg(format!("tar-delete:profile=small,scale=0.5{param}"))
        .arg("--json")
        .arg(json)
        .stdout(std::process::Stdio::null());
    for t in targets {
        cmd.arg("--target").arg(t);
    }
    cmd
}

#[test]
fn the_archive_is_made_once_on_local_disk_shared_and_removed_after_the_run() {
    let (tmp, a, b, out) = (temp_dir(), temp_dir(), temp_dir(), temp_dir());
    let json = out.path().join("o.json");
    let mut child = tar_run(tmp.path(), &[a.path(), b.path()], "", "2", &json)
        .spawn()
        .unwrap();
    let (seen, code) = watch_scratches(tmp.path(), &mut child);
    assert_eq!(code, 0);
    // One archive for two targets and both workloads, in a scratch of its own under $TMPDIR.
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].starts_with(".fsbench-archive-"), "{seen:?}");
    assert!(entries(tmp.path()).is_empty(), "local archive left");
    assert!(entries(a.path()).is_empty() && entries(b.path()).is_empty());
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    for r in results {
        assert_eq!(r["params"]["archive_on"], "local", "{r}");
    }
    // The extraction read the archive, primed once, from the page cache on every target.
    for r in results.iter().filter(|r| r["workload"] == "tar-extract") {
        assert!(r["cache"]["resident_pct"].as_f64().unwrap() > 90.0, "{r}");
    }
    // The delete counted its tree before the sample: all of it.
    let metric = |w: &str, m: &str| {
        let r = results.iter().find(|r| r["workload"] == w).unwrap();
        r["samples"][0]["metrics"][m].as_f64().unwrap()
    };
    assert_eq!(
        metric("tar-delete", "entries"),
        metric("tar-extract", "files") + metric("tar-extract", "dirs")
    );
    let comparisons = v["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), 2);
    assert!(comparisons.iter().all(|c| c["comparable"] == true), "{v}");
}

#[test]
fn archive_on_target_keeps_it_beside_the_tree_and_nothing_under_tmpdir() {
    let (tmp, a, out) = (temp_dir(), temp_dir(), temp_dir());
    let json = out.path().join("o.json");
    let mut child = tar_run(tmp.path(), &[a.path()], ",archive_on=target", "2", &json)
        .spawn()
        .unwrap();
    let (seen, code) = watch_scratches(tmp.path(), &mut child);
    assert_eq!(code, 0);
    assert!(seen.is_empty(), "{seen:?}");
    assert!(entries(a.path()).is_empty());
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["results"][0]["params"]["archive_on"], "target");
}

#[test]
fn an_unusable_tmpdir_is_one_line_naming_it_and_leaves_nothing() {
    let a = temp_dir();
    for tmp in [Path::new("/nonexistent/fsbench"), Path::new("/proc")] {
        let out = fsbench()
            .env("TMPDIR", tmp)
            .args(["run", "-q", "--cache", "warm", "--runs", "1"])
            .args(["-w", "tar-extract:profile=small,scale=0.1"])
            .arg("--target")
            .arg(a.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{tmp:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        let line = err
            .lines()
            .find(|l| l.contains("TMPDIR"))
            .unwrap_or_else(|| panic!("{err}"));
        assert!(line.contains("archive_on=target"), "{line}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(entries(a.path()).is_empty());
    }
}

#[test]
fn invalid_archive_on_is_refused_naming_the_choices() {
    let a = temp_dir();
    fsbench()
        .args(["run", "-q", "-w", "tar-delete:archive_on=nfs", "--target"])
        .arg(a.path())
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("archive_on").and(predicate::str::contains("local, target")),
        );
}

#[test]
fn sigkill_leaves_no_local_archive_the_guard_removes_it() {
    let (tmp, a, out) = (temp_dir(), temp_dir(), temp_dir());
    let json = out.path().join("o.json");
    let mut child = tar_run(tmp.path(), &[a.path()], "", "200", &json)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !entries(tmp.path())
        .iter()
        .any(|e| e.starts_with(".fsbench-archive-"))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no local archive appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    let _ = child.wait();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !(entries(tmp.path()).is_empty() && entries(a.path()).is_empty()) {
        assert!(
            std::time::Instant::now() < deadline,
            "left after SIGKILL: {:?} {:?}",
            entries(tmp.path()),
            entries(a.path())
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
