//! Every path the repository names exists: in a comment, a WGSL file, a doc,
//! the README or a script, a path with a directory in it (`src/plan/cut/`,
//! `rows/window.wgsl`) names a file or folder of the checkout, found from the
//! root, from the naming file's folder or one above it, or, for a kernel's
//! WGSL, from `src/kernels/` (where `#import` names them from). A line that
//! speaks of history (`as of 2026-11-23`, `since removed`) may name what is
//! gone. Needs no adapter.

#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

/// What is read: the sources, the kernels, the scripts and the docs.
const EXTENSIONS: [&str; 8] = ["rs", "wgsl", "md", "py", "toml", "sh", "html", "js"];

/// What a path-like word must end in to be taken for a path (or `/`, a
/// folder).
const NAMED: [&str; 11] = [
    "rs", "wgsl", "md", "py", "toml", "json", "svg", "html", "js", "sh", "lock",
];

/// Paths that are not the checkout's: build outputs (the folders burn-onnx
/// writes under `OUT_DIR` among them), the kit's output folder, the
/// specifications beside the checkout, other projects' trees.
const ELSEWHERE: [&str; 10] = [
    "target/",
    "OUT/",
    "OUT_DIR/",
    "model/",
    "prepared/",
    "../shared/",
    "onnxruntime/",
    "library/core/",
    "~/",
    "node_modules/",
];

/// Files that are history: what changed, by release.
const HISTORY_FILES: [&str; 1] = ["CHANGELOG.md"];

/// Words on a line that say it speaks of history.
const HISTORY: [&str; 4] = ["as of 20", "since removed", "removed", "formerly"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The files read, under `dir`: skipping build outputs and hidden folders but
/// `.ci`.
fn files(dir: &Path, out: &mut Vec<PathBuf>, folders: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            let skip = name == "target" || name == "node_modules" || name.starts_with('.');
            if !skip || name == ".ci" {
                folders.push(name);
                files(&path, out, folders);
            }
        } else {
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            let script = dir
                .file_name()
                .is_some_and(|d| d == ".ci" || d == "gpu-kit");
            if EXTENSIONS.contains(&ext) || script {
                out.push(path);
            }
        }
    }
}

/// The path-like words of `line`: runs of path characters with a `/` in them
/// that end in a named extension or in `/`; not a shell variable's
/// (`$out/bench.json`), nor one in a dependency's source
/// (`wgpu-hal-30.0.1/src/…`).
fn paths(line: &str) -> Vec<&str> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices().chain([(line.len(), ' ')]) {
        match (is_path_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if !line[..s].ends_with('$') {
                    words.push(&line[s..i]);
                }
                start = None;
            }
            _ => {}
        }
    }
    let versioned = |word: &str| {
        let first = word.split('/').next().unwrap_or("");
        first.rsplit_once('-').is_some_and(|(_, v)| {
            v.split('.').count() == 3 && v.split('.').all(|n| n.parse::<u32>().is_ok())
        })
    };
    words
        .into_iter()
        .map(|word| word.trim_end_matches(['.', ',']))
        .filter(|word| word.contains('/') && !word.starts_with('/') && !versioned(word))
        .filter(|word| {
            let last = word.rsplit('/').next().unwrap_or("");
            let named = last
                .rsplit_once('.')
                .is_some_and(|(stem, ext)| !stem.is_empty() && NAMED.contains(&ext));
            // A folder: at least two letters a segment (`s/…/` is sed's).
            let folder =
                word.ends_with('/') && word.split('/').all(|s| s.is_empty() || s.len() > 1);
            named || folder
        })
        .collect()
}

/// Whether `path`, named in `file`, is the checkout's; a folder of one name
/// (`descriptor/`, in a list under `src/`) anywhere in it.
fn exists(root: &Path, folders: &[String], file: &Path, path: &str) -> bool {
    let path = path.trim_start_matches("./");
    if let Some(name) = path.strip_suffix('/').filter(|p| !p.contains('/')) {
        return folders.iter().any(|f| f == name);
    }
    let mut bases = vec![root.to_path_buf(), root.join("src/kernels")];
    let mut dir = file.parent();
    while let Some(d) = dir.filter(|d| d.starts_with(root)) {
        bases.push(d.to_path_buf());
        dir = d.parent();
    }
    bases.iter().any(|base| base.join(path).exists())
}

#[test]
fn every_path_a_file_names_exists() {
    let root = root();
    let (mut all, mut folders) = (Vec::new(), Vec::new());
    files(&root, &mut all, &mut folders);
    assert!(all.len() > 100, "{} files read", all.len());
    let mut named = 0;
    let mut missing = Vec::new();
    for file in &all {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        if HISTORY_FILES.iter().any(|h| file.ends_with(h)) {
            continue;
        }
        for (number, line) in text.lines().enumerate() {
            if HISTORY.iter().any(|h| line.contains(h)) {
                continue;
            }
            for path in paths(line) {
                if ELSEWHERE.iter().any(|e| path.starts_with(e)) {
                    continue;
                }
                named += 1;
                if !exists(&root, &folders, file, path) {
                    let file = file.strip_prefix(&root).unwrap_or(file);
                    missing.push(format!("{}:{}: {path}", file.display(), number + 1));
                }
            }
        }
    }
    eprintln!("{named} paths named in {} files", all.len());
    assert!(named > 300, "{named} paths named");
    assert!(
        missing.is_empty(),
        "{} paths name nothing in the checkout:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn a_path_is_told_from_other_words() {
    assert_eq!(
        paths(
            "(`src/plan/cut/`), `rows/window.wgsl`, crate::a::b, s/x/y/, a/b, \
             https://x.org/a.md, \"$out/bench.json\", wgpu-hal-30.0.1/src/lib.rs"
        ),
        ["src/plan/cut/", "rows/window.wgsl"]
    );
}
