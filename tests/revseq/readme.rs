//! Everything the README shows runs: each of its Rust snippets is an excerpt of an
//! example (run by `.ci/test`) or of a doctest (run by `cargo test`).

/// The Rust code blocks of `text`.
fn rust_blocks(text: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        match (&mut current, line.trim()) {
            (None, "```rust") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(block), code) if !code.is_empty() => block.push(code),
            _ => {}
        }
    }
    blocks
}

/// Whether every line of `block` appears in `source`, in order.
fn excerpt_of(block: &[&str], source: &str) -> bool {
    let lines: Vec<&str> = source.lines().map(str::trim).collect();
    let mut at = 0;
    block.iter().all(|wanted| {
        let found = lines[at..].iter().position(|line| line == wanted);
        found.map(|i| at += i + 1).is_some()
    })
}

#[test]
fn every_readme_snippet_is_an_excerpt_of_code_that_runs() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let mut sources = Vec::new();
    // revseq-burn's folders are in the repository, not in revseq's package.
    let burn = std::path::Path::new(root).join("revseq-burn").exists();
    let dirs = [
        "examples",
        "src",
        "revseq-burn/examples",
        "revseq-burn/src",
        "revseq-burn/import-onnx",
    ];
    // Every `.rs` file under each folder, its subfolders' too (`src/` has a
    // folder per layer).
    let mut folders: Vec<std::path::PathBuf> = dirs
        .into_iter()
        .take(if burn { dirs.len() } else { 2 })
        .map(|dir| std::path::Path::new(root).join(dir))
        .collect();
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                // Doctest lines lose their `///` (or `//!`) and `# `.
                let code: String = text
                    .lines()
                    .map(|l| {
                        let l = l.trim_start();
                        let l = l.strip_prefix("///").or(l.strip_prefix("//!")).unwrap_or(l);
                        let l = l.trim_start();
                        format!("{}\n", l.strip_prefix("# ").unwrap_or(l))
                    })
                    .collect();
                sources.push((path, code));
            }
        }
    }
    let blocks = rust_blocks(&readme);
    assert!(blocks.len() >= 3, "{blocks:?}");
    for block in blocks {
        assert!(
            sources.iter().any(|(_, code)| excerpt_of(&block, code)),
            "this README snippet is in no example or doctest:\n{}",
            block.join("\n")
        );
    }
}
