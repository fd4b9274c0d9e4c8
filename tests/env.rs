//! `fsbench env` on real stacks built by the tests: tmpfs, ext4 on a loop device with and without
//! direct I/O, ext4 with an fscrypt v2 policy, bindfs. Root only; each test skips with a reason
//! when not root or a tool is missing, and tears down every mount and loop device it made, even
//! when it fails (guards with `Drop`).

use crate::util::{fsbench, temp_dir};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `prog args`; `Err` carries its stderr.
fn sh(prog: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(prog)
        .args(args)
        .output()
        .map_err(|e| format!("{prog}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(format!(
            "{prog} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A mount, unmounted (lazily if busy) when dropped.
struct Mounted(PathBuf);

impl Mounted {
    fn new(args: &[&str], at: &Path) -> Self {
        let at_s = at.to_str().expect("utf-8 temp path");
        let mut all = args.to_vec();
        all.push(at_s);
        sh("mount", &all).expect("mount");
        Self(at.to_path_buf())
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let p = self.0.to_string_lossy().into_owned();
        if sh("umount", &[&p]).is_err() {
            let _ = sh("umount", &["-l", &p]);
        }
    }
}

/// A loop device, detached when dropped.
struct LoopDev(String);

impl LoopDev {
    fn attach(image: &Path, direct_io: bool) -> Self {
        let img = image.to_str().expect("utf-8 temp path");
        let dio = if direct_io {
            "--direct-io=on"
        } else {
            "--direct-io=off"
        };
        let mut last = String::new();
        for _ in 0..5 {
            match sh("losetup", &["-f", "--show", dio, img]) {
                Ok(dev) => return Self(dev),
                Err(e) => last = e, // another test took the same free device: retry
            }
        }
        panic!("losetup: {last}");
    }

    fn name(&self) -> &str {
        self.0.trim_start_matches("/dev/")
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = sh("losetup", &["-d", &self.0]);
    }
}

/// A sparse 64 MiB ext4 image in `dir` (`extra` mkfs options), attached and mounted at
/// `dir/mnt`. Fields drop in order: the mount first, then the loop device.
struct Ext4 {
    mount: Mounted,
    dev: LoopDev,
    image: PathBuf,
}

impl Ext4 {
    fn new(dir: &Path, extra: &[&str], direct_io: bool) -> Self {
        let image = dir.join("disk.img");
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(64 << 20))
            .expect("sparse image");
        let img = image.to_str().expect("utf-8 temp path");
        let mut args = vec!["-q", "-F", "-b", "4096"];
        args.extend_from_slice(extra);
        args.push(img);
        sh("mkfs.ext4", &args).expect("mkfs.ext4");
        let dev = LoopDev::attach(&image, direct_io);
        let mnt = dir.join("mnt");
        std::fs::create_dir(&mnt).expect("mkdir mnt");
        let mount = Mounted::new(&[&dev.0], &mnt);
        Self { mount, dev, image }
    }
}

fn env_json(dir: &Path) -> serde_json::Value {
    let out = fsbench()
        .args(["env", "--json"])
        .arg(dir)
        .output()
        .expect("run fsbench");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v["targets"][0].clone()
}

fn env_table(dir: &Path) -> String {
    let out = fsbench().arg("env").arg(dir).output().expect("run fsbench");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root")]
fn tmpfs_is_named_with_its_size_and_warned_about() {
    let tmp = temp_dir();
    let mnt = tmp.path().join("t");
    std::fs::create_dir(&mnt).expect("mkdir");
    let _m = Mounted::new(&["-t", "tmpfs", "-o", "size=8m", "tmpfs"], &mnt);
    let t = env_json(&mnt);
    assert_eq!(t["fs_type"], "tmpfs");
    assert_eq!(t["stack"]["tmpfs"]["size_bytes"], 8 << 20);
    assert_eq!(t["encryption"], "none");
    assert_eq!(t["device_model"], "none");
    assert_eq!(t["device_chain"].as_array().map(Vec::len), Some(0));
    let table = env_table(&mnt);
    assert!(table.contains("cold is meaningless"), "{table}");
}

fn loop_case(direct_io: bool) {
    let tmp = temp_dir();
    let fs = Ext4::new(tmp.path(), &[], direct_io);
    let t = env_json(&fs.mount.0);
    assert_eq!(t["fs_type"], "ext4");
    let top = &t["stack"]["devices"][0];
    assert_eq!(top["name"], fs.dev.name());
    assert_eq!(top["kind"], "loop");
    let lo = &top["loop_device"];
    let image = std::fs::canonicalize(&fs.image).expect("canonical image");
    assert_eq!(lo["backing_file"], image.to_str().expect("utf-8"));
    let sysfs = format!("/sys/block/{}/loop/dio", fs.dev.name());
    let dio = std::fs::read_to_string(sysfs).expect("loop/dio").trim() == "1";
    assert_eq!(lo["direct_io"], dio, "env reports what sysfs says");
    let img = image.to_str().expect("utf-8");
    let found = sh("findmnt", &["-n", "-o", "FSTYPE,TARGET", "-T", img]).expect("findmnt");
    let described = &lo["backing"];
    let env_says = format!(
        "{} {}",
        described["fs_type"].as_str().expect("backing described"),
        described["mount_point"]
            .as_str()
            .expect("backing described")
    );
    assert_eq!(
        found.split_whitespace().collect::<Vec<_>>().join(" "),
        env_says
    );
    let table = env_table(&fs.mount.0);
    let warned = table.contains("losetup --direct-io=on");
    if direct_io && !dio {
        eprintln!("note: the kernel refused direct I/O for this image; checked the dio=0 case");
    }
    assert_eq!(warned, !dio, "{table}");
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_losetup)),
    ignore = "needs root and losetup"
)]
fn loop_ext4_without_direct_io_names_backing_file_and_warns() {
    loop_case(false);
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_losetup)),
    ignore = "needs root and losetup"
)]
fn loop_ext4_with_direct_io_names_backing_file_without_warning() {
    loop_case(true);
}

/// Runs an fscrypt ioctl on `dir` with `arg` as its argument buffer.
fn fscrypt_ioctl(dir: &Path, request: u64, arg: &mut [u8]) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(dir)?;
    assert!(
        arg.len() >= ((request >> 16) & 0x3fff) as usize,
        "buffer too small"
    );
    // SAFETY: `f` is open for the call; `arg` is an exclusively borrowed buffer at least as large
    // as the size encoded in `request`, plus the raw key that FS_IOC_ADD_ENCRYPTION_KEY reads
    // after its header (the caller sizes it: header + raw_size).
    #[allow(unsafe_code)]
    let rc = unsafe { libc::ioctl(f.as_raw_fd(), request as _, arg.as_mut_ptr()) };
    if rc < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Adds a random 64-byte v2 key to the filesystem of `root` and sets a v2 policy
/// (AES-256-XTS/AES-256-CTS, PAD_32) on the empty directory `dir`.
fn set_v2_policy(root: &Path, dir: &Path) -> std::io::Result<()> {
    const ADD_KEY: u64 = (3 << 30) | (80 << 16) | (0x66 << 8) | 23;
    const SET_POLICY: u64 = (2 << 30) | (12 << 16) | (0x66 << 8) | 19;
    let mut add = vec![0u8; 80 + 64];
    add[..4].copy_from_slice(&2u32.to_ne_bytes()); // FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER
    add[40..44].copy_from_slice(&64u32.to_ne_bytes()); // raw_size
    use std::io::Read;
    std::fs::File::open("/dev/urandom")?.read_exact(&mut add[80..])?;
    fscrypt_ioctl(root, ADD_KEY, &mut add)?;
    let mut policy = [0u8; 24];
    policy[..4].copy_from_slice(&[2, 1, 4, 0x03]); // v2, AES-256-XTS, AES-256-CTS, PAD_32
    policy[8..24].copy_from_slice(&add[8..24]); // the identifier the kernel computed
    fscrypt_ioctl(dir, SET_POLICY, &mut policy)
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4, fsbench_ext4_encryption)),
    ignore = "needs root, mkfs.ext4 and ext4 with fscrypt"
)]
fn fscrypt_directory_names_its_policy_and_a_plain_sibling_says_none() {
    let tmp = temp_dir();
    let fs = Ext4::new(tmp.path(), &["-O", "encrypt"], false);
    let (enc, plain) = (fs.mount.0.join("enc"), fs.mount.0.join("plain"));
    std::fs::create_dir(&enc).expect("mkdir enc");
    std::fs::create_dir(&plain).expect("mkdir plain");
    set_v2_policy(&fs.mount.0, &enc).expect("set an fscrypt v2 policy (ext4 has encryption)");
    let t = env_json(&enc);
    let summary = t["encryption"].as_str().expect("string");
    assert!(
        summary.starts_with("fscrypt v2 AES-256-XTS/AES-256-CTS"),
        "{summary}"
    );
    assert_eq!(t["stack"]["fscrypt_status"], "encrypted");
    let p = &t["stack"]["encryption"][0]["fscrypt"];
    assert_eq!(p["version"], 2);
    assert_eq!(p["flags"][0], "PAD_32");
    assert_eq!(p["key_present"], true);
    assert_eq!(p["key"].as_str().map(str::len), Some(32));
    let table = env_table(&enc);
    assert!(table.contains("AES-256-XTS"), "{table}");
    let t = env_json(&plain);
    assert_eq!(t["encryption"], "none");
    assert_eq!(t["stack"]["fscrypt_status"], "not encrypted");
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_bindfs, fsbench_dev_fuse)),
    ignore = "needs root, bindfs and /dev/fuse"
)]
fn bindfs_names_the_subtype_and_finds_the_daemon() {
    let tmp = temp_dir();
    let (src, mnt) = (tmp.path().join("src"), tmp.path().join("mnt"));
    std::fs::create_dir(&src).expect("mkdir src");
    std::fs::create_dir(&mnt).expect("mkdir mnt");
    let (s, m) = (src.to_str().expect("utf-8"), mnt.to_str().expect("utf-8"));
    sh("bindfs", &[s, m]).expect("bindfs mounts (root, /dev/fuse)");
    let _guard = Mounted(mnt.clone());
    let t = env_json(&mnt);
    let fuse = &t["stack"]["fuse"];
    assert_eq!(fuse["subtype"], "bindfs");
    let pids = fuse["daemon_pids"].as_array().expect("pids");
    assert!(!pids.is_empty(), "{t}");
    let pid = pids[0].as_i64().expect("pid");
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).expect("comm");
    assert_eq!(comm.trim(), "bindfs");
    assert_eq!(fuse["daemon_command"], "bindfs");
    assert!(
        t["encryption"]
            .as_str()
            .expect("string")
            .starts_with("unknown")
    );
    let table = env_table(&mnt);
    assert!(table.contains("drop_caches may not reach"), "{table}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let tmp = temp_dir();
    let file = tmp.path().join("f");
    std::fs::write(&file, "x").expect("write");
    for p in [file.as_path(), Path::new("/nonexistent/fsbench/x")] {
        let out = fsbench().arg("env").arg(p).output().expect("run");
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim().lines().count(),
            1
        );
    }
}

/// The encryption seed's question on one machine: is an fscrypt directory slower than a plain one
/// of the same ext4? O_DIRECT is accepted on both, but without inline encryption hardware the
/// kernel serves the encrypted side from the page cache. fsbench must either run both truly
/// direct or say the two are not comparable — never a proven 55x.
#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4, fsbench_ext4_encryption)),
    ignore = "needs root, mkfs.ext4 and ext4 with fscrypt"
)]
fn fscrypt_vs_plain_is_direct_on_both_or_not_comparable() {
    let tmp = temp_dir();
    let fs = Ext4::new(tmp.path(), &["-O", "encrypt"], true);
    let (enc, plain) = (fs.mount.0.join("enc"), fs.mount.0.join("plain"));
    std::fs::create_dir(&enc).expect("mkdir enc");
    std::fs::create_dir(&plain).expect("mkdir plain");
    set_v2_policy(&fs.mount.0, &enc).expect("set an fscrypt v2 policy (ext4 has encryption)");
    let json = tmp.path().join("out.json");
    let out = fsbench()
        .args(["run", "--cache", "both", "--runs", "3", "-q"])
        .args(["-w", "seek-rate:size=4m,duration=200ms"])
        .args(["-w", "latency:count=10,interval=1ms,size=1m"])
        .arg("-t")
        .arg(format!("plain={}", plain.display()))
        .arg("-t")
        .arg(format!("enc={}", enc.display()))
        .arg("--json")
        .arg(&json)
        .output()
        .expect("run fsbench");
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("json")).expect("JSON");
    let direct = |label: &str| -> Vec<f64> {
        v["results"]
            .as_array()
            .expect("results")
            .iter()
            .filter(|r| r["target"] == label)
            .flat_map(|r| r["samples"].as_array().expect("samples").clone())
            .map(|s| s["metrics"]["direct_used"].as_f64().unwrap_or(-1.0))
            .collect()
    };
    assert!(
        direct("plain").iter().all(|&d| d == 1.0),
        "plain side not direct"
    );
    let comps = v["comparisons"].as_array().expect("comparisons");
    assert!(!comps.is_empty());
    for c in comps {
        let both_direct = direct("enc").iter().all(|&d| d == 1.0);
        assert!(
            both_direct || c["comparable"] == false,
            "a comparison across unlike I/O was given a verdict: {c}"
        );
        if c["comparable"] == false {
            assert_eq!(c["proven"], false);
            assert!(text.contains("not comparable"), "{text}");
        }
    }
}

/// A loop device without direct I/O: cold reads may come from the backing file's page cache, and
/// the run says so on its cold cells (issue 11, item 5).
#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4)),
    ignore = "needs root and mkfs.ext4"
)]
fn a_run_on_a_loop_device_without_direct_io_warns_its_cold_cells() {
    let tmp = temp_dir();
    let fs = Ext4::new(tmp.path(), &[], false);
    let out = fsbench()
        .args([
            "run",
            "--cache",
            "both",
            "--runs",
            "1",
            "-w",
            "seq-read:size=1m",
        ])
        .arg("-t")
        .arg(&fs.mount.0)
        .output()
        .expect("run fsbench");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let warned: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("--direct-io=on"))
        .collect();
    assert_eq!(warned.len(), 1, "exactly the cold cell is warned: {text}");
    assert!(warned[0].contains("(cold)"), "{text}");
}
