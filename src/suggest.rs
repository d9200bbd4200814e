//! "Did you mean" for names: tool names now, template variables later.

/// Lower case with `_`, `-` and spaces removed: `todo_write`, `TodoWrite` and
/// `todo-write` all normalise to `todowrite`.
pub fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The candidate that `name` most likely meant: the only one equal after
/// normalising, else the only closest one within a small edit distance.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wanted = normalise(name);
    let mut same = None;
    let mut best: Option<(usize, &str)> = None;
    let mut tie = false;
    // One edit per three characters, at least one and at most three.
    let budget = (wanted.chars().count() / 3).clamp(1, 3);
    for candidate in candidates {
        let norm = normalise(candidate);
        if norm == wanted {
            if same.is_some() {
                return None;
            }
            same = Some(candidate);
            continue;
        }
        let d = edit_distance(&wanted, &norm);
        if d > budget {
            continue;
        }
        match best {
            Some((bd, _)) if d > bd => {}
            Some((bd, _)) if d == bd => tie = true,
            _ => {
                best = Some((d, candidate));
                tie = false;
            }
        }
    }
    same.or(if tie { None } else { best.map(|(_, c)| c) })
}

/// Edit distance over characters where a swap of two neighbours counts as one
/// edit (optimal string alignment): `raed` is one edit from `read`.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 0..a.len() {
        cur[0] = i + 1;
        for j in 0..b.len() {
            let cost = usize::from(a[i] != b[j]);
            let mut d = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                d = d.min(before[j - 1] + 1);
            }
            cur[j + 1] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: [&str; 5] = ["read", "write", "todowrite", "webfetch", "glob"];

    #[test]
    fn case_and_separators_are_ignored() {
        assert_eq!(closest("todo_write", TOOLS), Some("todowrite"));
        assert_eq!(closest("Read", TOOLS), Some("read"));
        assert_eq!(closest("web-fetch", TOOLS), Some("webfetch"));
    }

    #[test]
    fn small_typos_are_suggested_and_far_names_are_not() {
        assert_eq!(closest("raed", TOOLS), Some("read"));
        assert_eq!(closest("todowrit", TOOLS), Some("todowrite"));
        assert_eq!(closest("run_command", TOOLS), None);
        assert_eq!(closest("x", TOOLS), None);
    }

    #[test]
    fn ambiguous_names_give_no_suggestion() {
        assert_eq!(closest("rite", ["bite", "kite"]), None);
        assert_eq!(closest("ab", ["a_b", "A-B"]), None);
    }

    #[test]
    fn edit_distance_counts_characters() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("é", "e"), 1);
        assert_eq!(edit_distance("raed", "read"), 1);
    }
}
