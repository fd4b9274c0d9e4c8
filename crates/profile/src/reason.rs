//! Why a thread was off the CPU, read from its kernel call chain at the switch: the innermost
//! frame that names a wait decides (a lock taken inside a FUSE request is a lock wait).

use fsbench_model::profile as p;

/// Frame-name patterns of each reason, checked innermost frame first. A pattern ending in `*`
/// matches a prefix; otherwise the frame must contain it.
const RULES: &[(&str, &[&str])] = &[
    (
        p::REASON_LOCK,
        &[
            "rwsem_down_",
            "__mutex_lock",
            "mutex_lock_killable",
            "rt_mutex_slowlock",
            "percpu_rwsem_wait",
            "__down_common",
            "down_read*",
            "down_write*",
        ],
    ),
    (
        p::REASON_JOURNAL,
        &[
            "jbd2_",
            "wait_transaction_locked",
            "ext4_journal_",
            "xlog_",
            "btrfs_commit_transaction",
        ],
    ),
    // Idle waits that name a FUSE or socket function: a daemon waiting for work.
    (
        p::REASON_OTHER,
        &[
            "fuse_dev_do_read",
            "futex_",
            "ep_poll",
            "do_nanosleep",
            "pipe_read",
            "do_select",
        ],
    ),
    (
        p::REASON_FUSE,
        &["request_wait_answer", "fuse_*", "__fuse_*"],
    ),
    (
        p::REASON_NETWORK,
        &[
            "rpc_wait_bit_killable",
            "__rpc_execute",
            "sk_wait_data",
            "sk_stream_wait",
            "inet_csk_accept",
            "wait_for_tcp_memory",
            "smb2_",
            "cifs_",
            "afs_",
        ],
    ),
    (
        p::REASON_DEVICE,
        &[
            "io_schedule",
            "folio_wait",
            "wait_on_page",
            "bit_wait_io",
            "__wait_on_buffer",
            "blk_mq_get_tag",
            "submit_bio_wait",
            "blkdev_",
            "iomap_dio_",
        ],
    ),
];

/// Throttling anywhere in the chain decides: it sleeps through `io_schedule_timeout`.
const THROTTLE: &[&str] = &[
    "balance_dirty_pages",
    "throttle_direct_reclaim",
    "reclaim_throttle",
];

/// The reason for an off-CPU interval whose call chain (innermost first) is `frames`; a thread
/// switched out while runnable was preempted, whatever its stack.
pub fn reason<'a>(
    frames: impl IntoIterator<Item = &'a str> + Clone,
    runnable: bool,
) -> &'static str {
    if runnable {
        return p::REASON_PREEMPTED;
    }
    if frames
        .clone()
        .into_iter()
        .any(|f| THROTTLE.iter().any(|t| f.contains(t)))
    {
        return p::REASON_THROTTLE;
    }
    let innermost = frames
        .clone()
        .into_iter()
        .find_map(|f| {
            RULES
                .iter()
                .find(|(_, pats)| pats.iter().any(|pat| matches(f, pat)))
                .map(|(r, _)| *r)
        })
        .unwrap_or(p::REASON_OTHER);
    // A page waited for on FUSE or a network filesystem comes from the daemon or the server.
    if innermost == p::REASON_DEVICE {
        let through = |pats: &[&str]| {
            (frames.clone().into_iter()).any(|f| pats.iter().any(|pat| matches(f, pat)))
        };
        if through(&["fuse_*"]) {
            return p::REASON_FUSE;
        }
        if through(&["nfs_*", "nfs4_*", "cifs_*", "smb2_*", "afs_*", "ceph_*"]) {
            return p::REASON_NETWORK;
        }
    }
    innermost
}

fn matches(frame: &str, pattern: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => frame.starts_with(prefix),
        None => frame.contains(pattern),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_innermost_wait_decides() {
        let fuse_read = [
            "io_schedule",
            "folio_wait_bit_common",
            "fuse_file_read_iter",
        ];
        assert_eq!(reason(fuse_read, false), p::REASON_FUSE);
        let nfs_read = ["io_schedule", "folio_wait_bit_common", "nfs_file_read"];
        assert_eq!(reason(nfs_read, false), p::REASON_NETWORK);
        let idle_daemon = ["schedule", "fuse_dev_do_read", "fuse_dev_read", "vfs_read"];
        assert_eq!(reason(idle_daemon, false), p::REASON_OTHER);
        let fuse = [
            "__schedule",
            "schedule",
            "request_wait_answer",
            "__fuse_simple_request",
        ];
        assert_eq!(reason(fuse, false), p::REASON_FUSE);
        let dev = [
            "__schedule",
            "io_schedule",
            "folio_wait_bit_common",
            "filemap_read",
        ];
        assert_eq!(reason(dev, false), p::REASON_DEVICE);
        let lock = [
            "schedule",
            "rwsem_down_write_slowpath",
            "down_write",
            "fuse_create_open",
        ];
        assert_eq!(reason(lock, false), p::REASON_LOCK);
        let futex = ["schedule", "futex_wait_queue", "do_futex"];
        assert_eq!(reason(futex, false), p::REASON_OTHER);
        assert_eq!(reason(dev, true), p::REASON_PREEMPTED);
        let journal = [
            "schedule",
            "wait_transaction_locked",
            "add_transaction_credits",
        ];
        assert_eq!(reason(journal, false), p::REASON_JOURNAL);
        let dirty = [
            "schedule_timeout",
            "io_schedule_timeout",
            "balance_dirty_pages",
        ];
        assert_eq!(reason(dirty, false), p::REASON_THROTTLE);
        assert_eq!(
            reason(["schedule", "rpc_wait_bit_killable"], false),
            p::REASON_NETWORK
        );
    }
}
