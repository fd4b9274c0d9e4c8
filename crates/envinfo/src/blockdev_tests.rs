//! Tests of the sysfs walk on fake sysfs trees built in a tempdir.

use super::*;

/// A fake `/sys` with `devices/…` nodes and `dev/block/MAJ:MIN` links.
struct FakeSys {
    dir: tempfile::TempDir,
}

impl FakeSys {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("dev/block")).expect("mkdir");
        Self { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    /// A device node at `devices/REL` with number `majmin`.
    fn dev(&self, rel: &str, majmin: &str) -> PathBuf {
        let node = self.root().join("devices").join(rel);
        std::fs::create_dir_all(&node).expect("mkdir node");
        self.write(&node, "dev", &format!("{majmin}\n"));
        let link = self.root().join("dev/block").join(majmin);
        std::os::unix::fs::symlink(&node, link).expect("link");
        node
    }

    fn write(&self, node: &Path, rel: &str, text: &str) {
        let p = node.join(rel);
        std::fs::create_dir_all(p.parent().expect("has parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    fn slave(&self, upper: &Path, lower: &Path) {
        let dir = upper.join("slaves");
        std::fs::create_dir_all(&dir).expect("mkdir slaves");
        let name = lower.file_name().expect("named");
        std::os::unix::fs::symlink(lower, dir.join(name)).expect("link slave");
    }

    /// A disk `vda` with queue facts, and its partition `vda2`.
    fn disk_with_partition(&self) -> (PathBuf, PathBuf) {
        let vda = self.dev("virtio/block/vda", "253:0");
        self.write(&vda, "queue/rotational", "0\n");
        self.write(&vda, "queue/scheduler", "none [mq-deadline] kyber\n");
        self.write(&vda, "queue/read_ahead_kb", "128\n");
        self.write(&vda, "queue/nr_requests", "256\n");
        self.write(&vda, "queue/discard_max_bytes", "2147483648\n");
        self.write(&vda, "queue/logical_block_size", "512\n");
        self.write(&vda, "queue/physical_block_size", "4096\n");
        self.write(&vda, "device/model", "FastDisk  \n");
        let vda2 = self.dev("virtio/block/vda/vda2", "253:2");
        self.write(&vda2, "partition", "2\n");
        (vda, vda2)
    }
}

fn no_dmsetup(_: &str) -> Result<String, super::dmcrypt::NoTable> {
    Err(super::dmcrypt::NoTable::NoDmsetup)
}

#[test]
fn crypt_over_partition_is_followed_to_the_disk() {
    let sys = FakeSys::new();
    let (_, vda2) = sys.disk_with_partition();
    let dm0 = sys.dev("virtual/block/dm-0", "254:0");
    sys.write(&dm0, "dm/uuid", "CRYPT-LUKS2-abcd-root\n");
    sys.write(&dm0, "dm/name", "root\n");
    sys.slave(&dm0, &vda2);
    let table = |name: &str| -> Result<String, super::dmcrypt::NoTable> {
        assert_eq!(name, "root");
        Ok("0 1000 crypt aes-xts-plain64 :64:logon:cryptsetup:x-d0 0 253:2 32768\n".into())
    };
    let c = chain_in(sys.root(), "254:0", &table);
    assert_eq!(
        c.names(),
        ["dm-0 (dm-crypt)", "vda2 (partition)", "vda (disk)"]
    );
    assert_eq!(c.layers[0].slaves, ["vda2"]);
    assert_eq!(c.layers[0].dev, "254:0");
    assert_eq!(c.crypt.len(), 1);
    assert_eq!(c.crypt[0].name, "root");
    assert_eq!(c.crypt[0].format, "LUKS2");
    assert_eq!(c.crypt[0].cipher.as_deref(), Some("aes-xts-plain64"));
    assert_eq!(c.crypt[0].key_bits, Some(512));
    assert!(c.layers[0].queue.is_none() && c.layers[1].queue.is_none());
    let q = c.bottom_queue().expect("the disk has queue facts");
    assert_eq!(q.rotational, Some(false));
    assert_eq!(q.scheduler, "mq-deadline");
    assert_eq!((q.read_ahead_kb, q.nr_requests), (Some(128), Some(256)));
    assert_eq!(q.discard, Some(true));
    assert_eq!(
        (q.logical_block_size, q.physical_block_size),
        (Some(512), Some(4096))
    );
    assert_eq!(q.model, "FastDisk");
}

#[test]
fn crypt_without_dmsetup_names_the_missing_tool() {
    let sys = FakeSys::new();
    let (_, vda2) = sys.disk_with_partition();
    let dm0 = sys.dev("virtual/block/dm-0", "254:0");
    sys.write(&dm0, "dm/uuid", "CRYPT-LUKS1-abcd-home\n");
    sys.write(&dm0, "dm/name", "home\n");
    sys.slave(&dm0, &vda2);
    let c = chain_in(sys.root(), "254:0", &no_dmsetup);
    assert_eq!(c.crypt[0].cipher, None);
    assert_eq!(c.crypt[0].note, "cipher unknown: install dmsetup");
    assert_eq!(c.layers[0].kind, BlockKind::DmCrypt);
}

#[test]
fn linear_dm_and_lvm_are_named_from_table_or_uuid() {
    let sys = FakeSys::new();
    let (_, vda2) = sys.disk_with_partition();
    let dm1 = sys.dev("virtual/block/dm-1", "254:1");
    sys.write(&dm1, "dm/uuid", "LVM-xyz\n");
    sys.write(&dm1, "dm/name", "vg-lv\n");
    sys.slave(&dm1, &vda2);
    let linear = |_: &str| -> Result<String, super::dmcrypt::NoTable> {
        Ok("0 2048 linear 253:2 2048\n".into())
    };
    let c = chain_in(sys.root(), "254:1", &linear);
    assert_eq!(c.layers[0].kind, BlockKind::DmTarget("linear".into()));
    assert!(c.crypt.is_empty());
    let c = chain_in(sys.root(), "254:1", &no_dmsetup);
    assert_eq!(c.layers[0].kind, BlockKind::DmLvm);
}

fn loop_device(sys: &FakeSys, dio: &str) -> Chain {
    let lo = sys.dev("virtual/block/loop7", "7:7");
    sys.write(&lo, "loop/backing_file", "/var/tmp/disk image.img\n");
    sys.write(&lo, "loop/dio", dio);
    sys.write(&lo, "loop/offset", "1048576\n");
    sys.write(&lo, "loop/sizelimit", "0\n");
    sys.write(&lo, "queue/rotational", "1\n");
    sys.write(&lo, "queue/scheduler", "none\n");
    sys.write(&lo, "queue/discard_max_bytes", "0\n");
    chain_in(sys.root(), "7:7", &no_dmsetup)
}

#[test]
fn loop_device_without_direct_io() {
    let sys = FakeSys::new();
    let c = loop_device(&sys, "0\n");
    assert_eq!(c.names(), ["loop7 (loop)"]);
    let l = c.layers[0].loop_device.as_ref().expect("loop facts");
    assert_eq!(l.backing_file, "/var/tmp/disk image.img");
    assert_eq!(l.direct_io, Some(false));
    assert_eq!((l.offset, l.sizelimit), (Some(1048576), Some(0)));
    let q = c.bottom_queue().expect("queue");
    assert_eq!(q.scheduler, "none");
    assert_eq!(q.discard, Some(false));
    assert_eq!(q.model, "unknown");
    assert_eq!(q.nr_requests, None);
}

#[test]
fn loop_device_with_direct_io_and_unreadable_flag() {
    let sys = FakeSys::new();
    let c = loop_device(&sys, "1\n");
    let l = c.layers[0].loop_device.as_ref().expect("loop facts");
    assert_eq!(l.direct_io, Some(true));
    let sys = FakeSys::new();
    let c = loop_device(&sys, "");
    let l = c.layers[0].loop_device.as_ref().expect("loop facts");
    assert_eq!(l.direct_io, None);
}

#[test]
fn md_over_two_partitions_lists_both_and_follows_the_first() {
    let sys = FakeSys::new();
    let (_, vda2) = sys.disk_with_partition();
    let vdb = sys.dev("virtio/block/vdb", "253:16");
    let vdb1 = sys.dev("virtio/block/vdb/vdb1", "253:17");
    sys.write(&vdb1, "partition", "1\n");
    let md0 = sys.dev("virtual/block/md0", "9:0");
    sys.write(&md0, "md/level", "raid1\n");
    sys.slave(&md0, &vdb1);
    sys.slave(&md0, &vda2);
    let c = chain_in(sys.root(), "9:0", &no_dmsetup);
    assert_eq!(c.layers[0].kind, BlockKind::Md);
    assert_eq!(c.layers[0].slaves, ["vda2", "vdb1"]);
    assert_eq!(c.names().last().map(String::as_str), Some("vda (disk)"));
    let _ = vdb;
}

#[test]
fn schedulers_and_missing_devices() {
    assert_eq!(active_scheduler("[none] mq-deadline"), "none");
    assert_eq!(active_scheduler("bfq"), "bfq");
    assert_eq!(active_scheduler(""), "unknown");
    let sys = FakeSys::new();
    assert_eq!(chain_in(sys.root(), "0:99", &no_dmsetup), Chain::default());
}
