//! The report's flame graphs (`--profile`): one per profiled cell, then, for each workload and
//! cache state profiled on several targets, a differential graph of each target against the
//! first; and across two runs, one per cell the two runs share.

use super::flame;
use super::svg::esc;
use fsbench_model::names::CellNames;
use fsbench_model::profile::Role;
use fsbench_model::{Profile, RunRecord};
use std::fmt::Write;

/// How to read the graphs, once per section.
const HOW: &str = "Width is the share of the on-CPU samples (all CPUs, every thread, the first frame naming who ran it; neighbours' stacks grey; the buttons above a graph show one role's stacks alone: the cell's, fsbench's helpers', neighbours', unattributed kernel work); callers below callees. Hover a box for its frame and share. In a differential graph, B's stacks are drawn, red where a frame takes more of B's time than of A's, blue where less.";

fn figure(out: &mut String, svg: Option<String>) {
    if let Some(svg) = svg {
        let _ = writeln!(out, "<figure class=\"chart flame\">{svg}</figure>");
    }
}

/// The roles a profile's graph can be narrowed to, in the filter's order.
const ROLES: [(Role, &str); 4] = [
    (Role::Cell, "the cell's"),
    (Role::Helper, "fsbench's helpers'"),
    (Role::Neighbour, "neighbours'"),
    (Role::Unattributed, "unattributed"),
];

/// One cell's graph, and where its samples have two roles or more, a filter by role (radio
/// buttons, no script: the CSS shows the graph of the one checked) with each role's own graph,
/// its widths relative to that role's samples.
fn by_role(out: &mut String, k: usize, p: &Profile, label: &str) {
    let Some(all) = flame::draw(p, label) else {
        return;
    };
    let roles: Vec<(Role, &str, u64)> = ROLES
        .iter()
        .map(|&(r, name)| (r, name, p.samples_of(r)))
        .filter(|&(_, _, n)| n > 0)
        .collect();
    if roles.len() < 2 {
        figure(out, Some(all));
        return;
    }
    let busy = p.on_cpu_samples.max(1) as f64;
    let _ = write!(out, "<div class=\"flame-roles\">");
    let _ = write!(
        out,
        "<input type=\"radio\" name=\"flame{k}\" id=\"flame{k}-all\" value=\"all\" checked><label for=\"flame{k}-all\">every thread</label>"
    );
    for &(r, name, n) in &roles {
        let _ = write!(
            out,
            "<input type=\"radio\" name=\"flame{k}\" id=\"flame{k}-{r}\" value=\"{r}\"><label for=\"flame{k}-{r}\">{name} ({:.0}%)</label>",
            100.0 * n as f64 / busy,
            r = r.name(),
        );
    }
    let _ = writeln!(
        out,
        "<figure class=\"chart flame\" data-role=\"all\">{all}</figure>"
    );
    for &(r, name, _) in &roles {
        if let Some(svg) = flame::draw_role(p, r, &format!("{label}: {name} stacks")) {
            let _ = writeln!(
                out,
                "<figure class=\"chart flame\" data-role=\"{}\">{svg}</figure>",
                r.name()
            );
        }
    }
    let _ = writeln!(out, "</div>");
}

/// The graphs of one run (nothing when no cell was profiled).
pub fn section(r: &RunRecord, names: &CellNames, out: &mut String) {
    let cells: Vec<(usize, &Profile)> = r
        .results
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((i, e.profile.as_ref()?)))
        .collect();
    if cells.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h3>Flame graphs</h3>\n<p class=\"meta\">{}</p>",
        esc(HOW)
    );
    let label = |i: usize| {
        let e = &r.results[i];
        format!("{} {} {}", e.target, names.workload(i), e.cache.state)
    };
    for (k, &(i, p)) in cells.iter().enumerate() {
        by_role(out, k, p, &label(i));
    }
    for (k, &(i, a)) in cells.iter().enumerate() {
        for &(j, b) in &cells[k + 1..] {
            let (ei, ej) = (&r.results[i], &r.results[j]);
            let same = names.workload(i) == names.workload(j) && ei.cache.state == ej.cache.state;
            let first = !cells[..k].iter().any(|&(h, _)| {
                names.workload(h) == names.workload(i) && r.results[h].cache.state == ei.cache.state
            });
            if same && first && ei.target != ej.target {
                let title = format!("differential: A {} → B {}", label(i), label(j));
                figure(out, flame::draw_diff(a, b, &title));
            }
        }
    }
}

/// Differential graphs of the cells two runs share (same target, workload and cache state).
pub fn across(a: &RunRecord, b: &RunRecord, out: &mut String) {
    let mut any = false;
    for ea in &a.results {
        let Some(pa) = &ea.profile else { continue };
        let twin = b.results.iter().find(|eb| {
            eb.target == ea.target
                && eb.workload == ea.workload
                && eb.params == ea.params
                && eb.cache.state == ea.cache.state
        });
        let Some(pb) = twin.and_then(|eb| eb.profile.as_ref()) else {
            continue;
        };
        if !any {
            let _ = writeln!(
                out,
                "<h3>Flame graphs: run B against run A</h3>\n<p class=\"meta\">{}</p>",
                esc(HOW)
            );
            any = true;
        }
        let title = format!(
            "differential: {} {} {}, A {} → B {}",
            ea.target, ea.workload, ea.cache.state, a.run.id, b.run.id
        );
        figure(out, flame::draw_diff(pa, pb, &title));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::{CacheInfo, ResultEntry};

    fn run(id: &str, stacks: &[(&str, u64)]) -> RunRecord {
        let mut p = Profile::default();
        for (s, n) in stacks {
            p.on_cpu.insert(s.to_string(), *n);
        }
        let mut r = RunRecord {
            schema_version: fsbench_model::SCHEMA_VERSION,
            run: fsbench_model::RunInfo {
                id: id.into(),
                ..Default::default()
            },
            environment: Default::default(),
            overhead: Default::default(),
            results: Vec::new(),
            comparisons: Vec::new(),
            scaling: Vec::new(),
            cards: Vec::new(),
        };
        r.results.push(ResultEntry {
            target: "ext4".into(),
            workload: "walk".into(),
            params: Default::default(),
            sweep: Default::default(),
            cache: CacheInfo {
                state: fsbench_model::CacheState::Warm,
                method: "none".into(),
                resident_pct: None,
            },
            headline: "entries_per_s".into(),
            also_shown: Vec::new(),
            samples: Vec::new(),
            summary: Default::default(),
            precision_reached: None,
            steady: None,
            warnings: Vec::new(),
            error: None,
            bound: None,
            profile: Some(p),
        });
        r
    }

    #[test]
    fn two_runs_of_a_cell_get_a_differential_graph() {
        let a = run("A1", &[("fsbench;iterate_dir", 9), ("fsbench;lookup", 1)]);
        let b = run("B2", &[("fsbench;iterate_dir", 1), ("fsbench;lookup", 9)]);
        let mut out = String::new();
        across(&a, &b, &mut out);
        assert!(
            out.contains("differential: ext4 walk warm, A A1 → B B2"),
            "{out}"
        );
        assert!(out.contains("lookup — 9 samples, 90.0% (A 10.0% → B 90.0%, +80.0 points)"));
        let mut one = String::new();
        section(&a, &CellNames::new(&a.results), &mut one);
        assert_eq!(one.matches("<figure class=\"chart flame\">").count(), 1);
    }

    use fsbench_model::profile::WhoShare;

    fn profiled() -> RunRecord {
        let mut r = crate::export::tests::record();
        let share = |who: &str, role, samples| WhoShare {
            who: who.into(),
            role,
            samples,
            ..Default::default()
        };
        let mut p = Profile {
            on_cpu_samples: 4,
            ..Default::default()
        };
        p.on_cpu.insert("fsbench;read;filemap_read".into(), 3);
        p.on_cpu.insert("cc1;[user]".into(), 1);
        p.who = vec![
            share("fsbench", Role::Cell, 3),
            share("cc1", Role::Neighbour, 1),
        ];
        r.results[0].profile = Some(p);
        r
    }

    #[test]
    fn a_graph_of_two_roles_has_a_filter_and_each_roles_own_graph() {
        let r = profiled();
        let mut out = String::new();
        section(&r, &CellNames::new(&r.results), &mut out);
        assert!(out.contains("<div class=\"flame-roles\">"), "{out}");
        assert!(out.contains("value=\"all\" checked"), "{out}");
        assert!(out.contains(">the cell's (75%)</label>"), "{out}");
        assert!(out.contains(">neighbours' (25%)</label>"), "{out}");
        assert!(
            !out.contains("value=\"helper\""),
            "no helper samples: {out}"
        );
        let cell = out
            .split("<figure class=\"chart flame\" data-role=\"cell\">")
            .nth(1)
            .expect("the cell's graph");
        let cell = cell.split("</figure>").next().unwrap();
        assert!(cell.contains("filemap_read — 3 samples, 100.0%"), "{cell}");
        assert!(!cell.contains("cc1"), "{cell}");
        // One role alone: its graph, no filter.
        let mut r = profiled();
        let p = r.results[0].profile.as_mut().unwrap();
        p.on_cpu.remove("cc1;[user]");
        p.who.pop();
        let mut out = String::new();
        section(&r, &CellNames::new(&r.results), &mut out);
        assert!(!out.contains("flame-roles\">"), "{out}");
        assert!(out.contains("<figure class=\"chart flame\">"), "{out}");
    }
}
