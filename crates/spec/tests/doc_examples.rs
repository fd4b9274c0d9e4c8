//! Every TOML block in the docs and the README is a valid suite: the examples people copy must
//! parse and validate (a key written after a `[[target]]` table once silently belonged to it).

use std::path::Path;

fn toml_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, l) if l.starts_with("```toml") => current = Some(String::new()),
            (Some(b), l) if l.starts_with("```") => {
                blocks.push(std::mem::take(b));
                current = None;
            }
            (Some(b), _) => {
                b.push_str(line);
                b.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn every_toml_block_in_the_docs_is_a_valid_suite() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.push(root.join("README.md"));
    let mut checked = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, block) in toml_blocks(&text).into_iter().enumerate() {
            let name = format!("{} block {}", file.display(), i + 1);
            // Through the same path as `--suite FILE`: read, `cores` substituted, validated.
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("example.toml");
            std::fs::write(&path, &block).unwrap();
            let suite = fsbench_spec::suite::load(path.to_str().unwrap())
                .unwrap_or_else(|e| panic!("{name}: {}", e.message));
            // Every key the example shows reached the suite, not a table it follows.
            if block.contains("\nlab = ") {
                assert!(!suite.lab.is_empty(), "{name}: lab did not reach the suite");
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no TOML blocks found");
}
