//! Flame graphs of a profiled cell (`--profile`), drawn as plain SVG: one box per frame, its
//! width its share of the samples, callers below their callees' boxes (the root at the bottom),
//! a hover title with the frame, its samples and share. The differential graph of two cells of
//! one workload (two targets, or one cell in two runs) draws B's stacks coloured by how much
//! more (red) or less (blue) of B's time each frame takes than it took of A's.

use super::svg::{Anchor, Svg, fit};
use fsbench_model::Profile;
use fsbench_model::profile::Role;
use std::collections::BTreeMap;

const W: f64 = 960.0;
const ROW: f64 = 16.0;
/// Frames narrower than this (px) are not drawn.
const MIN_PX: f64 = 0.4;
/// Deepest frame drawn.
const MAX_DEPTH: usize = 64;

/// A frame and the samples of the stacks through it.
#[derive(Default)]
struct Node {
    samples: u64,
    children: BTreeMap<String, Node>,
}

impl Node {
    fn of(p: &Profile) -> Self {
        let mut root = Node::default();
        for (stack, &n) in &p.on_cpu {
            let mut node = &mut root;
            node.samples += n;
            for f in stack.split(';').take(MAX_DEPTH) {
                node = node.children.entry(f.to_string()).or_default();
                node.samples += n;
            }
        }
        root
    }

    fn depth(&self) -> usize {
        self.children
            .values()
            .map(|c| 1 + c.depth())
            .max()
            .unwrap_or(0)
    }

    /// The node at `path` below this one.
    fn at(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(self, |n, f| n.children.get(*f))
    }
}

/// How a box is coloured.
enum Colouring<'a> {
    /// Warm colours by name; the stacks under these roots (the neighbours') grey.
    Plain(Vec<&'a str>),
    /// By the change from A's share (A's tree, A's total).
    Against(&'a Node),
}

/// The flame graph of `p`; `None` without on-CPU samples.
pub fn draw(p: &Profile, title: &str) -> Option<String> {
    let root = Node::of(p);
    let neighbours = p.who.iter().filter(|w| w.role == Role::Neighbour);
    let grey = Colouring::Plain(neighbours.map(|w| w.who.as_str()).collect());
    (root.samples > 0).then(|| render(&root, &grey, title))
}

/// The flame graph of the stacks of `role` only (each share whose role it is), widths relative
/// to them; `None` when that role has no on-CPU samples.
pub fn draw_role(p: &Profile, role: Role, title: &str) -> Option<String> {
    let mut only = Profile {
        who: p.who.clone(),
        ..Default::default()
    };
    only.on_cpu = p
        .on_cpu
        .iter()
        .filter(|(stack, _)| p.role_of(stack.split(';').next().unwrap_or(stack)) == role)
        .map(|(k, &v)| (k.clone(), v))
        .collect();
    draw(&only, title)
}

/// The differential flame graph: B's stacks, coloured by the change of each frame's share from
/// A to B; `None` unless both have samples.
pub fn draw_diff(a: &Profile, b: &Profile, title: &str) -> Option<String> {
    let (ra, rb) = (Node::of(a), Node::of(b));
    (ra.samples > 0 && rb.samples > 0).then(|| render(&rb, &Colouring::Against(&ra), title))
}

fn render(root: &Node, colouring: &Colouring<'_>, title: &str) -> String {
    let depth = root.depth().min(MAX_DEPTH);
    let h = (depth as f64 + 1.0) * ROW + 24.0;
    let mut svg = Svg::new(W, h, title);
    svg.text(4.0, 14.0, title, Anchor::Start, 12.0, "#333");
    let mut path = Vec::new();
    let total = root.samples as f64;
    draw_children(&mut svg, root, (0.0, h - ROW), total, colouring, &mut path);
    svg.finish()
}

fn draw_children<'a>(
    svg: &mut Svg,
    node: &'a Node,
    (x0, y): (f64, f64),
    total: f64,
    colouring: &Colouring<'_>,
    path: &mut Vec<&'a str>,
) {
    let mut x = x0;
    for (name, child) in &node.children {
        let w = W * child.samples as f64 / total;
        if w >= MIN_PX {
            path.push(name);
            let share = 100.0 * child.samples as f64 / total;
            let (fill, change) = colour(name, share, colouring, path);
            svg.group_with_tip(&format!(
                "{name} — {} samples, {share:.1}%{change}",
                child.samples
            ));
            svg.rect(x, y, w - 0.5, ROW - 1.0, &fill, "");
            if w > 24.0 {
                svg.text(
                    x + 2.0,
                    y + 11.5,
                    &fit(name, 10.0, w - 4.0),
                    Anchor::Start,
                    10.0,
                    "#000",
                );
            }
            svg.end_group();
            draw_children(svg, child, (x, y - ROW), total, colouring, path);
            path.pop();
        }
        x += w;
    }
}

/// The fill of a box and, in a differential graph, the change in words.
fn colour(name: &str, share: f64, colouring: &Colouring<'_>, path: &[&str]) -> (String, String) {
    match colouring {
        Colouring::Plain(grey) if path.first().is_some_and(|r| grey.contains(r)) => {
            let v = 190 + name.bytes().map(u32::from).sum::<u32>() % 40;
            (format!("rgb({v},{v},{v})"), " (a neighbour's)".into())
        }
        Colouring::Plain(_) => {
            let h = name
                .bytes()
                .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
            let (r, g) = (205 + h % 50, 80 + (h / 50) % 150);
            (format!("rgb({r},{g},55)"), String::new())
        }
        Colouring::Against(a) => {
            let before = a
                .at(path)
                .map_or(0.0, |n| 100.0 * n.samples as f64 / a.samples.max(1) as f64);
            let delta = share - before;
            // Full colour at a change of 10 points of the samples.
            let k = (delta.abs() / 10.0).min(1.0);
            let fade = |c: f64| (255.0 - (255.0 - c) * k).round() as u8;
            let fill = if delta >= 0.0 {
                format!("rgb({},{},{})", 255, fade(60.0), fade(60.0))
            } else {
                format!("rgb({},{},{})", fade(60.0), fade(110.0), 255)
            };
            (
                fill,
                format!(" (A {before:.1}% → B {share:.1}%, {delta:+.1} points)"),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(stacks: &[(&str, u64)]) -> Profile {
        let mut p = Profile::default();
        for (s, n) in stacks {
            p.on_cpu.insert(s.to_string(), *n);
            p.on_cpu_samples += n;
        }
        p
    }

    #[test]
    fn boxes_are_as_wide_as_their_samples_with_a_hover_title() {
        let p = profile(&[
            ("fsbench;read;filemap_read", 3),
            ("kworker fscrypt_read_queue;aes_decrypt", 1),
        ]);
        let svg = draw(&p, "ext4 seq-read cold").unwrap();
        assert!(
            svg.contains("<title>filemap_read — 3 samples, 75.0%</title>"),
            "{svg}"
        );
        assert!(svg.contains("aes_decrypt — 1 samples, 25.0%"));
        // The widest box at the bottom row spans three quarters of the width.
        assert!(svg.contains("width=\"719.5\""), "{svg}");
        assert!(draw(&Profile::default(), "x").is_none());
    }

    #[test]
    fn a_roles_graph_draws_its_stacks_alone() {
        let mut p = profile(&[("fsbench;read", 3), ("cc1;[user]", 1)]);
        let share = |who: &str, role| fsbench_model::profile::WhoShare {
            who: who.into(),
            role,
            ..Default::default()
        };
        p.who = vec![share("cc1", Role::Neighbour), share("fsbench", Role::Cell)];
        let cell = draw_role(&p, Role::Cell, "cell").unwrap();
        assert!(cell.contains("read — 3 samples, 100.0%"), "{cell}");
        assert!(!cell.contains("cc1"), "{cell}");
        let theirs = draw_role(&p, Role::Neighbour, "n").unwrap();
        assert!(
            theirs.contains("cc1 — 1 samples, 100.0% (a neighbour's)"),
            "{theirs}"
        );
        assert!(draw_role(&p, Role::Helper, "h").is_none());
    }

    #[test]
    fn a_neighbours_stacks_are_grey() {
        let mut p = profile(&[("fsbench;read", 3), ("cc1;[user]", 1)]);
        p.who.push(fsbench_model::profile::WhoShare {
            who: "cc1".into(),
            role: Role::Neighbour,
            ..Default::default()
        });
        let svg = draw(&p, "ext4").unwrap();
        assert!(
            svg.contains("cc1 — 1 samples, 25.0% (a neighbour's)"),
            "{svg}"
        );
        assert!(!svg.contains("read — 3 samples, 75.0% (a neighbour's)"));
    }

    #[test]
    fn a_differential_graph_colours_growth_red_and_shrinking_blue() {
        let a = profile(&[("fsbench;read;filemap_read", 9), ("fsbench;open", 1)]);
        let b = profile(&[("fsbench;read;filemap_read", 5), ("fsbench;open", 5)]);
        let svg = draw_diff(&a, &b, "A ext4, B xfs").unwrap();
        assert!(
            svg.contains("open — 5 samples, 50.0% (A 10.0% → B 50.0%, +40.0 points)"),
            "{svg}"
        );
        assert!(
            svg.contains("fill=\"rgb(255,60,60)\""),
            "growth in full red"
        );
        assert!(
            svg.contains("fill=\"rgb(60,110,255)\""),
            "loss in full blue"
        );
    }
}
