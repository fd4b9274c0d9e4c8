//! ext4, xfs and btrfs on a sparse image file in the lab scratch, attached to a loop device with
//! `--direct-io=on` (the loop device then reads and writes the image with O_DIRECT, so a cold
//! read reaches the disk under the image instead of the image's page cache), made with `mkfs`
//! on the loop device and mounted at `KIND/mnt`. Each device is attached with autoclear set and
//! held open by fsbench until its teardown: it never outlives fsbench and its filesystem.

use super::error::Error;
use super::undo::Undo;
use super::{Building, text};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// ext4 without lazy initialisation: no `ext4lazyinit` thread writes inode tables in the
/// background while samples are measured.
pub(super) const EXT4: &[&str] = &["-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"];

/// Builds ext4 (`mkfs.ext4` without lazy init).
pub fn ext4(b: &mut Building) -> Result<PathBuf, Error> {
    image_fs(b, "mkfs.ext4", EXT4)
}

/// Builds xfs.
pub fn xfs(b: &mut Building) -> Result<PathBuf, Error> {
    image_fs(b, "mkfs.xfs", &["-q", "-f"])
}

/// Builds btrfs.
pub fn btrfs(b: &mut Building) -> Result<PathBuf, Error> {
    image_fs(b, "mkfs.btrfs", &["-q", "-f"])
}

/// Makes the sparse image, attaches it with direct I/O, runs `mkfs OPTS DEVICE`, mounts the
/// device at `KIND/mnt` and returns the mount point.
pub(super) fn image_fs(b: &mut Building, mkfs: &str, opts: &[&str]) -> Result<PathBuf, Error> {
    let dev = image_device(b)?;
    fs_on(b, mkfs, opts, &dev)
}

/// Makes the sparse image `KIND/disk.img` of `--lab-size` and attaches it with direct I/O;
/// returns the loop device.
pub(super) fn image_device(b: &mut Building) -> Result<String, Error> {
    image_named(b, "disk.img").map(|(_, dev)| dev)
}

/// Makes the sparse image `KIND/FILE` of `--lab-size` and attaches it with direct I/O; returns
/// the image and its loop device.
pub(super) fn image_named(b: &mut Building, file: &str) -> Result<(PathBuf, String), Error> {
    let image = b.dir.join(file);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&image)
        .and_then(|f| f.set_len(b.size))
        .map_err(|e| Error::io("make the image", image.clone(), e))?;
    b.info.image_bytes = Some(b.size);
    let dev = attach(b, &image)?;
    Ok((image, dev))
}

/// Runs `mkfs OPTS DEVICE` and mounts `dev` at `KIND/mnt`; returns the mount point.
pub(super) fn fs_on(
    b: &mut Building,
    mkfs: &str,
    opts: &[&str],
    dev: &str,
) -> Result<PathBuf, Error> {
    let mut args = opts.to_vec();
    args.push(dev);
    b.run(mkfs, &args)?;
    b.fs_device = Some(dev.to_string());
    let mnt = b.mkdir("mnt")?;
    b.undo(Undo::Unmount {
        point: mnt.clone(),
        fuse: false,
    });
    b.run("mount", &[dev, text(&mnt)])?;
    Ok(mnt)
}

/// The loop devices this process attached, each held open with autoclear set
/// ([`fsbench_sys::loopdev::hold_autoclear`]) until its teardown releases it.
static HELD: std::sync::Mutex<Vec<(String, std::fs::File)>> = std::sync::Mutex::new(Vec::new());

fn held() -> std::sync::MutexGuard<'static, Vec<(String, std::fs::File)>> {
    HELD.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Sets autoclear on `dev` and holds it open: it stays attached through `mkfs` and detaches
/// itself once this process is gone and its filesystem unmounted (SIGKILL included).
fn hold(dev: &str) -> Result<(), Error> {
    let file = fsbench_sys::loopdev::hold_autoclear(dev)
        .map_err(|e| Error::io("set autoclear on", dev, e))?;
    held().push((dev.to_string(), file));
    Ok(())
}

/// Closes this process's hold on `dev` (before detaching it): with its filesystem unmounted,
/// the kernel then detaches it; returns whether it was held.
pub(crate) fn release(dev: &str) -> bool {
    let mut all = held();
    let before = all.len();
    all.retain(|(d, _)| d != dev);
    all.len() != before
}

/// `losetup -f --show --direct-io=on IMAGE` (retried: another process may take the same free
/// device); records the device and whether the kernel kept direct I/O on.
fn attach(b: &mut Building, image: &Path) -> Result<String, Error> {
    let mut attempt = 0;
    let out = loop {
        match b.run("losetup", &["-f", "--show", "--direct-io=on", text(image)]) {
            Ok(out) => break out,
            Err(e) if attempt == 2 => return Err(e),
            Err(_) => attempt += 1,
        }
    };
    let Some(dev) = out.lines().map(str::trim).find(|l| l.starts_with("/dev/")) else {
        return Err(Error::ToolOutput {
            program: "losetup".into(),
            missing: "no device",
            output: out,
        });
    };
    b.undo(Undo::Detach {
        device: dev.to_string(),
        image: image.to_path_buf(),
    });
    hold(dev)?;
    let name = dev.trim_start_matches("/dev/");
    let dio = std::fs::read_to_string(format!("/sys/block/{name}/loop/dio")).ok();
    b.info.direct_io = dio.map(|d| d.trim() == "1");
    b.info.loop_device = Some(dev.to_string());
    Ok(dev.to_string())
}
