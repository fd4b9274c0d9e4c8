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
    fsbench_workload::engines::tarball::extract(
        &tar,
        dest.path(),
        &fsbench_workload::CancelToken::new(),
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
