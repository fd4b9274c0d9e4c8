//! Which device each kernel work item served, so that a kernel worker's samples are the cell's
//! or a neighbour's item by item, not by the worker's name (a `kworker` runs one workqueue's
//! item, then another's, and `/proc/TID/comm` shows only its last).
//!
//! A work item is tied to a device by, in this order:
//! 1. its own writeback records (`writeback:writeback_start`/`_written` name their `bdi`);
//! 2. the block request whose completion queued it: the queue record follows that request's
//!    completion on the same CPU and thread within [`CONTEXT_NS`] (fscrypt's decryption is
//!    queued as the encrypted read completes, often in an interrupt on whichever thread ran);
//! 3. the item that queued it, when a worker queued it (a loop device's item queues more work
//!    for that device, not for the disk under its image that it just read);
//! 4. the block request whose issue queued it, as in 2 (a loop device's item is queued as its
//!    request is issued);
//! 5. the first block request it issued itself.

use crate::recording::{Kind, Recording};
use std::collections::{HashMap, HashSet};

/// How soon after a block request's record, on the same CPU and thread, a queued work item is
/// taken to be that request's: the issue or completion path queues it within a few
/// microseconds, in the same context.
pub const CONTEXT_NS: u64 = 50_000;

/// One work item a kernel worker ran during the sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// When it began (the sample's start when it began before).
    pub start: u64,
    /// When the worker's next item began (the sample's end after its last): an item's end is
    /// not recorded, and a worker between items sleeps.
    pub end: u64,
    /// The workqueue it was queued on, when its queuing was recorded.
    pub workqueue: Option<String>,
    /// The device it served (a kernel dev_t), when anything tied it to one.
    pub dev: Option<u32>,
}

/// What queued an item.
#[derive(Debug, Clone)]
struct Queued {
    t: u64,
    tid: u32,
    workqueue: String,
    /// The device of the request whose path queued it, and whether that was its completion.
    dev: Option<(u32, bool)>,
}

/// An item being run, with what was seen of it so far.
#[derive(Debug)]
struct Running {
    start: u64,
    queued: Option<Queued>,
    writeback: Option<u32>,
    issued: Option<u32>,
}

impl Running {
    fn new(start: u64, queued: Option<Queued>) -> Self {
        Self {
            start,
            queued,
            writeback: None,
            issued: None,
        }
    }
}

/// An item with its evidence, before its tie is resolved.
struct Built {
    tid: u32,
    item: Item,
    queued: Option<Queued>,
    own: Option<u32>,
    issued: Option<u32>,
}

/// Every work item of the sample, per worker thread in time order.
#[derive(Debug, Default)]
pub struct Works {
    by_tid: HashMap<u32, Vec<Item>>,
}

impl Works {
    /// The work items of `rec`, tied to devices.
    pub fn new(rec: &Recording) -> Self {
        let mut pass = Pass::default();
        for e in &rec.events {
            pass.event(e.t, e.tid, &e.kind, rec.start_ns);
        }
        for (tid, r) in std::mem::take(&mut pass.running) {
            // An item seen only by its records (no start) may not be one: a thread outside any
            // workqueue issues requests too.
            if pass.workers.contains(&tid) {
                pass.close(tid, r, rec.end_ns);
            }
        }
        resolve(pass.built)
    }

    /// The item thread `tid` was running at `t`.
    pub fn at(&self, tid: u32, t: u64) -> Option<&Item> {
        let items = self.by_tid.get(&tid)?;
        let i = items.partition_point(|it| it.start <= t);
        items[..i].last().filter(|it| t <= it.end)
    }
}

/// One pass over the events in time order.
#[derive(Default)]
struct Pass {
    /// Per CPU, the last block request's record: when, on which thread, which device, and
    /// whether it was its completion.
    last_block: HashMap<u32, (u64, u32, u32, bool)>,
    queued: HashMap<u64, Queued>,
    running: HashMap<u32, Running>,
    /// Threads seen starting or ending an item.
    workers: HashSet<u32>,
    built: Vec<Built>,
}

impl Pass {
    fn event(&mut self, t: u64, tid: u32, kind: &Kind, start_ns: u64) {
        match kind {
            Kind::Issue { dev, cpu, .. } => {
                self.last_block.insert(*cpu, (t, tid, *dev, false));
                self.item(tid, start_ns).issued.get_or_insert(*dev);
            }
            Kind::Complete { dev, cpu, .. } => {
                self.last_block.insert(*cpu, (t, tid, *dev, true));
            }
            Kind::Queue {
                work,
                cpu,
                workqueue,
            } => {
                let dev = self
                    .last_block
                    .get(cpu)
                    .filter(|&&(at, by, ..)| by == tid && t.saturating_sub(at) <= CONTEXT_NS)
                    .map(|&(_, _, dev, completed)| (dev, completed));
                let q = Queued {
                    t,
                    tid,
                    workqueue: workqueue.clone(),
                    dev,
                };
                self.queued.insert(*work, q);
            }
            Kind::WorkStart { work } => {
                // The worker's item before this one ended by now (its end is not recorded: one
                // tracepoint less per item; a worker between items is asleep, not sampled). A
                // first item's records before it were those of an item begun before the sample.
                if let Some(r) = self.running.remove(&tid) {
                    self.close(tid, r, t);
                }
                self.workers.insert(tid);
                self.running
                    .insert(tid, Running::new(t, self.queued.remove(work)));
            }
            Kind::Writeback { dev } => {
                self.item(tid, start_ns).writeback.get_or_insert(*dev);
            }
            _ => {}
        }
    }

    /// The item thread `tid` runs now: once it started one, the last it started (an item runs
    /// until the worker's next); before, an item begun before the sample, known only by its
    /// records (kept if the thread turns out to be a worker).
    fn item(&mut self, tid: u32, start_ns: u64) -> &mut Running {
        self.running
            .entry(tid)
            .or_insert_with(|| Running::new(start_ns, None))
    }

    fn close(&mut self, tid: u32, r: Running, end: u64) {
        self.built.push(Built {
            tid,
            item: Item {
                start: r.start,
                end,
                workqueue: r.queued.as_ref().map(|q| q.workqueue.clone()),
                dev: None,
            },
            own: r.writeback,
            issued: r.issued,
            queued: r.queued,
        });
    }
}

/// Ties every item, earliest first: an item's queuer began before it, so its tie (inherited
/// too) is known by then; each thread's items stay in time order.
fn resolve(mut built: Vec<Built>) -> Works {
    built.sort_by_key(|b| b.item.start);
    let mut works = Works::default();
    for b in built {
        let from_queue = b.queued.as_ref().and_then(|q| match q.dev {
            Some((dev, true)) => Some(dev),
            issued => works
                .at(q.tid, q.t)
                .and_then(|it| it.dev)
                .or(issued.map(|(dev, _)| dev)),
        });
        let mut item = b.item;
        item.dev = b.own.or(from_queue).or(b.issued);
        works.by_tid.entry(b.tid).or_default().push(item);
    }
    works
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::Event;

    fn ev(t: u64, tid: u32, kind: Kind) -> Event {
        Event {
            t,
            pid: tid,
            tid,
            kind,
        }
    }

    fn issue(dev: u32, sector: u64, cpu: u32) -> Kind {
        Kind::Issue { dev, sector, cpu }
    }

    fn queue(work: u64, cpu: u32, wq: &str) -> Kind {
        Kind::Queue {
            work,
            cpu,
            workqueue: wq.into(),
        }
    }

    fn rec(events: Vec<Event>) -> Recording {
        Recording {
            start_ns: 0,
            end_ns: 10_000_000,
            events,
            ..Default::default()
        }
    }

    const OURS: u32 = (7 << 20) | 1;
    const THEIRS: u32 = (7 << 20) | 2;
    const DISK: u32 = 254 << 20;

    #[test]
    fn a_workers_items_are_tied_one_by_one_whatever_its_name() {
        // One worker (tid 50): a writeback of their device, then a decryption queued as our
        // read completed in an interrupt on the idle thread of CPU 1.
        let r = rec(vec![
            ev(100, 50, Kind::WorkStart { work: 0xa }),
            ev(200, 50, Kind::Writeback { dev: THEIRS }),
            ev(300, 50, issue(DISK, 8, 0)),
            ev(
                2_000,
                0,
                Kind::Complete {
                    dev: OURS,
                    sector: 16,
                    cpu: 1,
                },
            ),
            ev(2_005, 0, queue(0xb, 1, "fscrypt_read_queue")),
            ev(3_000, 50, Kind::WorkStart { work: 0xb }),
        ]);
        let w = Works::new(&r);
        let first = w.at(50, 500).expect("the writeback");
        assert_eq!(
            first.dev,
            Some(THEIRS),
            "its writeback record before its requests"
        );
        assert_eq!(first.workqueue, None, "queued before the sample");
        let second = w.at(50, 3_500).expect("the decryption");
        assert_eq!(second.dev, Some(OURS));
        assert_eq!(second.workqueue.as_deref(), Some("fscrypt_read_queue"));
        assert_eq!(
            w.at(50, 2_000).unwrap().dev,
            Some(THEIRS),
            "until the next item"
        );
        assert_eq!(w.at(50, 50), None, "before its first item");
        assert_eq!(w.at(51, 500), None);
    }

    #[test]
    fn a_queue_is_a_requests_only_on_its_cpu_and_thread_and_soon_after() {
        let r = rec(vec![
            // Another CPU's completion.
            ev(
                100,
                0,
                Kind::Complete {
                    dev: OURS,
                    sector: 1,
                    cpu: 0,
                },
            ),
            ev(110, 0, queue(0xa, 1, "fscrypt_read_queue")),
            // Too long after.
            ev(
                1_000,
                7,
                Kind::Complete {
                    dev: OURS,
                    sector: 2,
                    cpu: 1,
                },
            ),
            ev(1_000 + CONTEXT_NS + 1, 7, queue(0xb, 1, "events")),
            // Another thread on that CPU.
            ev(200_000, 8, issue(OURS, 3, 1)),
            ev(200_010, 9, queue(0xc, 1, "events")),
            ev(300_000, 60, Kind::WorkStart { work: 0xa }),
            ev(300_200, 60, Kind::WorkStart { work: 0xb }),
            ev(300_400, 60, Kind::WorkStart { work: 0xc }),
        ]);
        let w = Works::new(&r);
        for t in [300_050, 300_250, 300_450] {
            assert_eq!(w.at(60, t).expect("an item").dev, None, "at {t}");
        }
    }

    #[test]
    fn a_loop_devices_item_is_the_loop_devices_not_the_disk_it_reads_and_inherits_onward() {
        let r = rec(vec![
            // The writer issues to the loop device, which queues the loop's item.
            ev(100, 30, issue(THEIRS, 8, 0)),
            ev(103, 30, queue(0xa, 0, "loop2")),
            ev(200, 40, Kind::WorkStart { work: 0xa }),
            // It reads the disk under the image file, and queues a work of its own.
            ev(250, 40, issue(DISK, 800, 1)),
            ev(400, 40, queue(0xb, 1, "events_unbound")),
            ev(600, 41, Kind::WorkStart { work: 0xb }),
            // An item that only issued requests is tied by them.
            ev(800, 42, Kind::WorkStart { work: 0xc }),
            ev(850, 42, issue(OURS, 1, 0)),
        ]);
        let w = Works::new(&r);
        assert_eq!(w.at(40, 300).unwrap().dev, Some(THEIRS));
        assert_eq!(w.at(40, 300).unwrap().workqueue.as_deref(), Some("loop2"));
        assert_eq!(
            w.at(41, 650).unwrap().dev,
            Some(THEIRS),
            "queued by the loop's item"
        );
        assert_eq!(w.at(42, 850).unwrap().dev, Some(OURS));
    }

    #[test]
    fn an_item_begun_before_the_sample_keeps_its_records_and_other_threads_make_none() {
        let r = rec(vec![
            ev(100, 50, Kind::Writeback { dev: OURS }),
            ev(150, 70, issue(OURS, 1, 0)),
            ev(300, 50, Kind::WorkStart { work: 0xd }),
        ]);
        let w = Works::new(&r);
        let before = w.at(50, 50).expect("begun before the sample");
        assert_eq!((before.start, before.end, before.dev), (0, 300, Some(OURS)));
        let open = w.at(50, 9_000_000).expect("still running at the end");
        assert_eq!((open.start, open.end, open.dev), (300, 10_000_000, None));
        assert_eq!(w.at(70, 150), None, "a thread that ran no item");
    }
}
