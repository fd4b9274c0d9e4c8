//! `null-build`: what a ninja no-op build does to a filesystem. A build graph is derived from the
//! tree (one object per source file, one archive per top-level directory, one final link); its
//! outputs live in the scratch (`out/`, never in the source tree). A sample stats every input and
//! output once, by full path, and finds nothing to do.

use crate::info::WorkloadInfo;
use crate::knobs::tree;
use crate::knobs::tree_source::{TREE, TreeSource};
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_tree::index::{Index, cpath, stat_mtime_ns};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "null-build",
    summary: "a ninja no-op: stat every input and output of a build graph derived from the tree",
    params: PARAMS,
    build,
    shared: false,
};

const PARAMS: &[ParamDoc] = &[
    TREE.doc(),
    tree::PROFILE.doc(),
    tree::SCALE.doc(),
    tree::SEED.doc(),
];

const SOURCE_EXTS: &[&str] = &["cc", "c", "cpp", "rs", "java", "m", "mm", "go"];

/// One build step: outputs depend on inputs (indices into `nodes`).
struct Edge {
    inputs: Vec<usize>,
    output: usize,
}

struct NullBuild {
    source: TreeSource,
    nodes: Vec<CString>,
    edges: Vec<Edge>,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let source = TreeSource::from_params(p, tree::PROFILE, tree::SCALE)?;
    Ok(Box::new(NullBuild {
        source,
        nodes: Vec::new(),
        edges: Vec::new(),
    }))
}

/// Creates an (empty) output file; outputs are written after all sources, so they are newer.
fn touch(path: &Path) -> Result<(), WorkloadError> {
    std::fs::write(path, b"").map_err(|e| WorkloadError::io("write", path, e))
}

impl NullBuild {
    fn node(&mut self, path: &Path) -> Result<usize, WorkloadError> {
        self.nodes.push(cpath(path)?);
        Ok(self.nodes.len() - 1)
    }

    /// Derives the graph from the sources under `root` and writes its outputs under `out`.
    fn make_graph(&mut self, root: &Path, out: &Path) -> Result<(), WorkloadError> {
        let index = Index::build(root)?;
        let mut archives: Vec<(String, Vec<usize>)> = Vec::new();
        for (i, f) in index.files.iter().enumerate() {
            let src = Path::new(std::ffi::OsStr::from_bytes(f.path.as_bytes()));
            let ext = src.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !SOURCE_EXTS.contains(&ext) {
                continue;
            }
            let top = src
                .strip_prefix(root)
                .ok()
                .and_then(|r| r.components().next())
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .unwrap_or_default();
            let bucket = out.join(format!("obj/{:02x}", i % 256));
            std::fs::create_dir_all(&bucket).map_err(|e| WorkloadError::io("mkdir", &bucket, e))?;
            let obj = bucket.join(format!("{i}.o"));
            touch(&obj)?;
            let input = self.node(src)?;
            let output = self.node(&obj)?;
            self.edges.push(Edge {
                inputs: vec![input],
                output,
            });
            match archives.iter_mut().find(|(t, _)| *t == top) {
                Some((_, objs)) => objs.push(output),
                None => archives.push((top, vec![output])),
            }
        }
        let mut libs = Vec::new();
        for (k, (_, objs)) in archives.into_iter().enumerate() {
            let lib = out.join(format!("lib{k}.a"));
            touch(&lib)?;
            let output = self.node(&lib)?;
            self.edges.push(Edge {
                inputs: objs,
                output,
            });
            libs.push(output);
        }
        let app = out.join("app");
        touch(&app)?;
        let output = self.node(&app)?;
        self.edges.push(Edge {
            inputs: libs,
            output,
        });
        Ok(())
    }
}

/// Stats counted together in the sample's series.
const BATCH: usize = 64;

fn mtime(path: &CString) -> Option<i128> {
    rustix::fs::stat(path.as_c_str())
        .ok()
        .map(|s| stat_mtime_ns(&s))
}

impl Workload for NullBuild {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let root = self.source.prepare(ctx)?;
        let out = ctx.scratch().map(|d| d.join("out")).ok_or_else(|| {
            WorkloadError::Unsupported("null-build needs a directory target".into())
        })?;
        std::fs::create_dir_all(&out).map_err(|e| WorkloadError::io("mkdir", &out, e))?;
        self.make_graph(&root, &out)
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        // Stat every node once (ninja caches each node's mtime), then decide each edge.
        // The stats count as they go, in batches: one clock read per batch instead of per
        // stat, and a batch (tens of µs) is far shorter than an interval of the series.
        let mut times = Vec::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            if i % 4096 == 0 {
                ctx.cancel.check()?;
            }
            if i % BATCH == 0 && i > 0 {
                rec.add_ops(BATCH as u64, 0);
            }
            times.push(mtime(n));
        }
        let counted = self.nodes.len().saturating_sub(1) / BATCH * BATCH;
        rec.add_ops((self.nodes.len() - counted) as u64, 0);
        let dirty = self
            .edges
            .iter()
            .filter(|e| {
                let out = times[e.output];
                out.is_none()
                    || e.inputs
                        .iter()
                        .any(|&i| times[i].is_none_or(|t| Some(t) > out))
            })
            .count();
        rec.metric(fsbench_model::metric::NODES, self.nodes.len() as f64);
        rec.metric(fsbench_model::metric::EDGES, self.edges.len() as f64);
        rec.metric(fsbench_model::metric::DIRTY, dirty as f64);
        Ok(())
    }

    fn cache_files(&self, _ctx: &Context) -> Vec<PathBuf> {
        Vec::new()
    }

    fn caps(&self) -> Caps {
        Caps {
            writes: true,
            space_needed: self.source.space_needed(),
            inodes_needed: self.source.inodes_needed(),
            size_knob: tree::SCALE.key,
            cold_needs_global: true,
            reads_tree: true,
            ..Caps::base(Headline::Wall)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Harness;

    #[test]
    fn a_fresh_graph_has_nothing_to_do_and_a_touched_source_is_dirty() {
        let mut h = Harness::new(build, "profile=small,scale=0.05");
        let d = h.sample();
        assert!(Harness::metric(&d, "nodes") > 10.0);
        assert_eq!(
            d.ops as f64,
            Harness::metric(&d, "nodes"),
            "every node stat-ed once"
        );
        assert_eq!(Harness::metric(&d, "dirty"), 0.0);
        let index = Index::build(&h.dir.path().join("tree")).unwrap();
        let src = index
            .files
            .iter()
            .map(|f| PathBuf::from(std::ffi::OsStr::from_bytes(f.path.as_bytes())))
            .find(|p| p.extension().is_some_and(|e| e == "cc" || e == "c"))
            .expect("the small profile has C/C++ sources");
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&src, b"changed").unwrap();
        let d = h.sample();
        assert!(Harness::metric(&d, "dirty") >= 1.0);
    }
}
