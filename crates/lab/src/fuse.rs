//! FUSE lab targets: gocryptfs (encryption; initialised with a generated password file) and
//! bindfs (a pass-through, single-threaded), each serving a directory of its own ext4 loop image
//! (built as the `ext4` kind is), so that compared with lab ext4 they sit on the same kind of
//! storage and only the FUSE layer differs. The FUSE mount is `KIND/fuse`, the image's `KIND/mnt`.
//! Both daemons daemonise into their own session, so they survive the process-group kill of the
//! command that started them, and exit when `fusermount3 -u` unmounts them. Each runs inside a
//! PID namespace held by fsbench ([`super::simhost::start_daemon_holder`]): when fsbench ends,
//! however it ends, the kernel kills the daemon with the namespace.

use super::error::Error;
use super::undo::Undo;
use super::{Building, text};
use std::path::PathBuf;

/// `gocryptfs -init` a cipher directory with a generated password, mount it at `gocryptfs/mnt`.
pub fn gocryptfs(b: &mut Building) -> Result<PathBuf, Error> {
    let base = super::loopfs::image_fs(b, "mkfs.ext4", super::loopfs::EXT4)?;
    let cipher = super::subdir(&base, "cipher")?;
    let mnt = b.mkdir("fuse")?;
    let pass = b.dir.join("passfile");
    super::secret::write(&pass)?;
    b.run(
        "gocryptfs",
        &["-init", "-q", "-passfile", text(&pass), text(&cipher)],
    )?;
    let holder = super::simhost::start_daemon_holder(b)?;
    b.info.options = "-nosyslog".into();
    b.undo(Undo::Unmount {
        point: mnt.clone(),
        fuse: true,
    });
    let args = [
        "-q",
        "-nosyslog",
        "-passfile",
        text(&pass),
        text(&cipher),
        text(&mnt),
    ];
    holder.run(b, "gocryptfs", &args)?;
    Ok(mnt)
}

/// bindfs of `bindfs/src` at `bindfs/mnt`: `-s` (libfuse's single-threaded loop, which is also
/// bindfs's default without `--multithreaded`), and no `allow_other` (root only).
pub fn bindfs(b: &mut Building) -> Result<PathBuf, Error> {
    let base = super::loopfs::image_fs(b, "mkfs.ext4", super::loopfs::EXT4)?;
    let src = super::subdir(&base, "src")?;
    let mnt = b.mkdir("fuse")?;
    let holder = super::simhost::start_daemon_holder(b)?;
    b.info.options = "-s,no-allow-other".into();
    b.undo(Undo::Unmount {
        point: mnt.clone(),
        fuse: true,
    });
    holder.run(
        b,
        "bindfs",
        &["-s", "-o", "no-allow-other", text(&src), text(&mnt)],
    )?;
    Ok(mnt)
}
