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
    let candidates: Vec<(&str, String)> =
        candidates.into_iter().map(|c| (c, normalise(c))).collect();
    closest_normalised(name, candidates.iter().map(|(c, n)| (*c, n.as_str())))
}

/// Names longer than this (normalised) are only matched exactly: edit distances
/// over them cost too much and mean little.
const MAX_FUZZY_CHARS: usize = 64;

/// [`closest`] over candidates given with their normalised forms (which a caller
/// with many candidates computes once). Linear in the candidates: an edit
/// distance is computed only where the lengths allow a match.
pub fn closest_normalised<'a, 'n>(
    name: &str,
    candidates: impl IntoIterator<Item = (&'a str, &'n str)>,
) -> Option<&'a str> {
    let wanted = normalise(name);
    let len = wanted.chars().count();
    let fuzzy = len <= MAX_FUZZY_CHARS;
    let mut same = None;
    let mut best: Option<(usize, &str)> = None;
    let mut tie = false;
    // One edit per three characters, at least one and at most three.
    let budget = (len / 3).clamp(1, 3);
    for (candidate, norm) in candidates {
        if norm == wanted {
            if same.is_some() {
                return None;
            }
            same = Some(candidate);
            continue;
        }
        // An edit distance is at least the difference in length.
        if !fuzzy || norm.len().abs_diff(wanted.len()) > budget * 4 {
            continue;
        }
        let d = edit_distance(&wanted, norm);
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

/// Edit distance where a swap of two neighbours counts as one edit (optimal
/// string alignment): `raed` is one edit from `read`.
fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// Whether `key` may be a misspelling of `declared`: the same but for case and
/// separators (`FilePath`), a small edit away (`pattren`), or one a prefix or
/// suffix of the other (`forced` and `force`, `path` and `file_path`). Such a key
/// is never dropped: it may carry what the declared property means.
pub fn near_miss(key: &str, declared: &str) -> bool {
    let (k, d) = (normalise(key), normalise(declared));
    if k == d {
        return true;
    }
    let (kn, dn) = (k.chars().count(), d.chars().count());
    let shorter = kn.min(dn);
    let budget = (shorter / 3).clamp(1, 3);
    let near_edit = kn.abs_diff(dn) <= budget && kn.max(dn) <= MAX_FUZZY_CHARS;
    (near_edit && edit_distance(&k, &d) <= budget)
        || (shorter >= 3
            && (k.starts_with(&d) || d.starts_with(&k) || k.ends_with(&d) || d.ends_with(&k)))
}

/// The declared property that `key` most likely meant, if it is a near miss of
/// any (the closest by [`closest`], else the first near miss).
pub fn near_miss_of<'a>(key: &str, declared: &[&'a str]) -> Option<&'a str> {
    let near: Vec<&str> = declared
        .iter()
        .copied()
        .filter(|d| near_miss(key, d))
        .collect();
    match near.as_slice() {
        [] => None,
        [one] => Some(one),
        _ => closest(key, near.iter().copied()).or(Some(near[0])),
    }
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
    fn near_misses_of_every_kind() {
        // case and separators
        assert!(near_miss("FilePath", "file_path"));
        // a small edit
        assert!(near_miss("pattren", "pattern"));
        assert!(near_miss("comand", "command"));
        // prefix and suffix, either way
        assert!(near_miss("forced", "force"));
        assert!(near_miss("path", "file_path"));
        assert!(near_miss("old", "old_string"));
        assert!(near_miss("timeout_ms", "timeout"));
        // not near
        assert!(!near_miss("explanation", "file_path"));
        assert!(!near_miss("reasoning", "command"));
        assert!(!near_miss("id", "limit"));
    }

    #[test]
    fn edit_distance_counts_characters() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("é", "e"), 1);
        assert_eq!(edit_distance("raed", "read"), 1);
    }
}
