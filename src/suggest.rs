//! "Did you mean": the closest name (tools, template variables, subcommands)
//! and the near-miss keys of an object (a key a small edit away from a declared one).

use std::cell::Cell;
use std::collections::HashMap;

/// Lower case with `_`, `-` and spaces removed: `todo_write`, `TodoWrite` and
/// `todo-write` all normalise to `todowrite`.
pub(crate) fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The candidate that `name` most likely meant: the only one equal after
/// normalising, else the only closest one within a small edit distance.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
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
pub(crate) fn closest_normalised<'a, 'n>(
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
#[cfg(test)]
pub(crate) fn near_miss(key: &str, declared: &str) -> bool {
    let (k, d) = (normalise(key), normalise(declared));
    near_normalised(&k, k.chars().count(), &d, d.chars().count(), &mut 0, true)
}

/// [`near_miss`] over normalised forms and their lengths in characters; adds
/// the edit-distance cells it computes to `work`.
/// With `may_edit` false the edit distance is known to be too large (a cheaper
/// bound said so) and is not computed.
fn near_normalised(k: &str, kn: usize, d: &str, dn: usize, work: &mut u64, may_edit: bool) -> bool {
    if k == d {
        return true;
    }
    let shorter = kn.min(dn);
    let budget = (shorter / 3).clamp(1, 3);
    let near_edit = kn.abs_diff(dn) <= budget && kn.max(dn) <= MAX_FUZZY_CHARS;
    if near_edit && may_edit {
        *work = work.saturating_add(cells(kn, dn));
        if edit_distance(k, d) <= budget {
            return true;
        }
    }
    shorter >= 3 && (k.starts_with(d) || d.starts_with(k) || k.ends_with(d) || d.ends_with(k))
}

/// The characters of a normalised name as a set of 64 buckets. Every bucket
/// set in one name and not in the other holds a character the other lacks, and
/// each such character takes an edit: so the larger of the two counts is a
/// lower bound on the edit distance.
fn char_mask(norm: &str) -> u64 {
    norm.chars().fold(0, |m, c| m | 1u64 << (u32::from(c) % 64))
}

/// The edit distance between two names is at least this (from their masks).
fn mask_bound(a: u64, b: u64) -> u32 {
    (a & !b).count_ones().max((b & !a).count_ones())
}

/// The cells of one edit-distance table: what [`edit_distance`] costs.
fn cells(a: usize, b: usize) -> u64 {
    let cells = a.saturating_add(1).saturating_mul(b.saturating_add(1));
    u64::try_from(cells).unwrap_or(u64::MAX)
}

/// The work one [`NearMisses`] may do (edit-distance cells, candidates looked at,
/// characters hashed) before it stops suggesting: enough for every key of a
/// call against a schema of hundreds of properties; past it, a key gets no
/// suggestion ([`NearMisses::of`] says `None`) and is never taken for a
/// far name ([`NearMisses::any`] says `true`, so it is not dropped).
pub(crate) const NEAR_MISS_BUDGET: u64 = 4_000_000;

/// The declared properties of one object, indexed so that many keys can be
/// matched against many properties without comparing every pair: exact
/// normalised forms in a map, edit candidates by length (an edit distance is at
/// least the difference in length), prefixes and suffixes by lookup and by
/// sorted range. Each query's work is counted against [`NEAR_MISS_BUDGET`].
/// Answers are those of comparing every pair with [`near_miss`] (a test holds
/// them equal), until the budget runs out.
#[derive(Debug)]
pub(crate) struct NearMisses<'a> {
    declared: Vec<&'a str>,
    norms: Vec<String>,
    chars: Vec<usize>,
    masks: Vec<u64>,
    by_norm: HashMap<String, Vec<usize>>,
    /// Names of at most [`MAX_FUZZY_CHARS`] characters, by length.
    by_len: HashMap<usize, Vec<usize>>,
    /// The distinct lengths (in characters) of the normalised names, ascending.
    lengths: Vec<usize>,
    /// Indices in the order of their normalised forms.
    sorted: Vec<usize>,
    /// Normalised forms reversed (by character), and indices in their order.
    reversed: Vec<String>,
    sorted_reversed: Vec<usize>,
    work: Cell<u64>,
    budget: u64,
}

impl<'a> NearMisses<'a> {
    /// Indexes `declared` (in its order: the first near miss wins a tie).
    pub(crate) fn new(declared: &[&'a str]) -> Self {
        Self::with_budget(declared, NEAR_MISS_BUDGET)
    }

    /// [`Self::new`] with another work budget.
    pub(crate) fn with_budget(declared: &[&'a str], budget: u64) -> Self {
        let norms: Vec<String> = declared.iter().map(|d| normalise(d)).collect();
        let chars: Vec<usize> = norms.iter().map(|n| n.chars().count()).collect();
        let masks: Vec<u64> = norms.iter().map(|n| char_mask(n)).collect();
        let mut by_norm: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_len: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, (norm, &n)) in norms.iter().zip(&chars).enumerate() {
            by_norm.entry(norm.clone()).or_default().push(i);
            if n <= MAX_FUZZY_CHARS {
                by_len.entry(n).or_default().push(i);
            }
        }
        let mut lengths = chars.clone();
        lengths.sort_unstable();
        lengths.dedup();
        let mut sorted: Vec<usize> = (0..norms.len()).collect();
        sorted.sort_by(|&a, &b| norms.get(a).cmp(&norms.get(b)));
        let reversed: Vec<String> = norms.iter().map(|n| n.chars().rev().collect()).collect();
        let mut sorted_reversed: Vec<usize> = (0..norms.len()).collect();
        sorted_reversed.sort_by(|&a, &b| reversed.get(a).cmp(&reversed.get(b)));
        Self {
            declared: declared.to_vec(),
            norms,
            chars,
            masks,
            by_norm,
            by_len,
            lengths,
            sorted,
            reversed,
            sorted_reversed,
            work: Cell::new(0),
            budget,
        }
    }

    /// The work done so far (what the budget counts).
    #[cfg(test)]
    pub(crate) fn work(&self) -> u64 {
        self.work.get()
    }

    fn charge(&self, units: u64) -> Option<()> {
        let total = self.work.get().saturating_add(units);
        self.work.set(total);
        (total <= self.budget).then_some(())
    }

    /// The declared property that `key` most likely meant, if it is a near miss
    /// of any: the closest by [`closest`], else the first near miss. `None`
    /// too once the budget is spent.
    pub(crate) fn of(&self, key: &str) -> Option<&'a str> {
        let near = self.near(key)?;
        let first = *self.declared.get(*near.first()?)?;
        if near.len() == 1 {
            return Some(first);
        }
        // What `closest` will compute: one table per candidate at most.
        let kn = normalise(key).chars().count();
        let cost = near
            .iter()
            .map(|&i| cells(kn, self.chars.get(i).copied().unwrap_or(0)))
            .fold(0u64, u64::saturating_add);
        self.charge(cost)?;
        let candidates = near
            .iter()
            .filter_map(|&i| Some((*self.declared.get(i)?, self.norms.get(i)?.as_str())));
        closest_normalised(key, candidates).or(Some(first))
    }

    /// Whether `key` is a near miss of any declared property; `true` once the
    /// budget is spent (a key that was not compared is not taken for far).
    pub(crate) fn any(&self, key: &str) -> bool {
        self.near(key).is_none_or(|near| !near.is_empty())
    }

    /// The declared properties `key` is a near miss of, in declared order;
    /// `None` when the budget ran out.
    fn near(&self, key: &str) -> Option<Vec<usize>> {
        let k = normalise(key);
        // Where each character of `k` starts, and its end.
        let bounds: Vec<usize> = k.char_indices().map(|(i, _)| i).chain([k.len()]).collect();
        let kn = bounds.len().saturating_sub(1);
        self.charge(u64::try_from(k.len()).unwrap_or(u64::MAX))?;
        let mut found: Vec<usize> = Vec::new();
        if let Some(same) = self.by_norm.get(&k) {
            found.extend(same);
        }
        // Edit candidates: within three characters of the key's length.
        if kn <= MAX_FUZZY_CHARS {
            for n in kn.saturating_sub(3)..=kn.saturating_add(3) {
                if let Some(names) = self.by_len.get(&n) {
                    self.charge(u64::try_from(names.len()).unwrap_or(u64::MAX))?;
                    found.extend(names);
                }
            }
        }
        if kn >= 3 {
            // Shorter (or as long) names that are a prefix or a suffix of the key.
            for &n in self.lengths.iter().filter(|&&n| (3..=kn).contains(&n)) {
                let prefix = bounds.get(n).and_then(|&end| k.get(..end));
                let suffix = bounds.get(kn - n).and_then(|&start| k.get(start..));
                for part in [prefix, suffix].into_iter().flatten() {
                    self.charge(
                        u64::try_from(part.len())
                            .unwrap_or(u64::MAX)
                            .saturating_add(1),
                    )?;
                    if let Some(hits) = self.by_norm.get(part) {
                        found.extend(hits);
                    }
                }
            }
            // Longer names that start or end with the key.
            let key_reversed: String = k.chars().rev().collect();
            for (order, forms, wanted) in [
                (&self.sorted, &self.norms, &k),
                (&self.sorted_reversed, &self.reversed, &key_reversed),
            ] {
                let form = |i: usize| forms.get(i).map_or("", String::as_str);
                let from = order.partition_point(|&i| form(i) < wanted.as_str());
                for &i in order.iter().skip(from) {
                    if !form(i).starts_with(wanted.as_str()) {
                        break;
                    }
                    self.charge(1)?;
                    found.push(i);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        let mut work = 0;
        let mut near = Vec::new();
        let key_mask = char_mask(&k);
        for i in found {
            let (Some(d), Some(&dn), Some(&mask)) =
                (self.norms.get(i), self.chars.get(i), self.masks.get(i))
            else {
                continue;
            };
            self.charge(1)?;
            // At most three edits are ever allowed.
            let may_edit = mask_bound(key_mask, mask) <= 3;
            if near_normalised(&k, kn, d, dn, &mut work, may_edit) {
                near.push(i);
            }
            self.charge(std::mem::take(&mut work))?;
        }
        Some(near)
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

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// The matching as it was before the index: every pair compared.
    fn brute_near_miss_of<'a>(key: &str, declared: &[&'a str]) -> Option<&'a str> {
        let near: Vec<&str> = declared
            .iter()
            .copied()
            .filter(|d| near_miss(key, d))
            .collect();
        match near.as_slice() {
            [] => None,
            [one] => Some(one),
            _ => closest(key, near.iter().copied()).or(near.first().copied()),
        }
    }

    /// Names from a small alphabet (with separators, case and a non-ASCII
    /// letter), so that near misses of every kind are common.
    fn name() -> impl Strategy<Value = String> {
        "[abcAB_é-]{0,9}"
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn the_index_answers_as_every_pair_compared(
            declared in prop::collection::vec(name(), 0..12),
            keys in prop::collection::vec(name(), 1..6),
        ) {
            let declared: Vec<&str> = declared.iter().map(String::as_str).collect();
            let index = NearMisses::new(&declared);
            for key in &keys {
                prop_assert_eq!(index.of(key), brute_near_miss_of(key, &declared), "{}", key);
                prop_assert_eq!(
                    index.any(key),
                    declared.iter().any(|d| near_miss(key, d)),
                    "{}", key
                );
            }
        }
    }

    #[test]
    fn long_names_and_prefixes_answer_as_every_pair_compared() {
        let long = "x".repeat(70);
        let longer = format!("{long}yz");
        let declared = [
            "path",
            "file_path",
            "FilePath",
            "old_string",
            "old",
            &long,
            &longer,
            "é_é_é",
        ];
        for key in [
            "path", "file", "pat", "xpath", "paths", "string", &long, &longer, "ÉÉÉ", "é", "",
            "___",
        ] {
            let index = NearMisses::new(&declared);
            assert_eq!(index.of(key), brute_near_miss_of(key, &declared), "{key}");
        }
    }

    #[test]
    fn many_misspelt_keys_cost_bounded_work_and_get_no_wrong_answer() {
        // n misspelt keys against n properties of one length: the case that
        // compared every pair (n² edit distances). The work is capped; past the
        // cap a key gets no suggestion (never a wrong one) and is never taken
        // for a far name.
        let props: Vec<String> = (0..3000).map(|i| format!("field_{i:05}")).collect();
        let declared: Vec<&str> = props.iter().map(String::as_str).collect();
        let index = NearMisses::new(&declared);
        let mut suggested = 0;
        for i in 0..3000 {
            let key = format!("feild_{i:05}x");
            match index.of(&key) {
                Some(meant) => {
                    assert_eq!(meant, format!("field_{i:05}"));
                    suggested += 1;
                }
                None => assert!(index.any(&key)),
            }
        }
        assert!(suggested > 0);
        assert!(
            index.work() <= NEAR_MISS_BUDGET + 100_000,
            "{}",
            index.work()
        );
    }

    #[test]
    fn work_grows_with_the_keys_not_beyond() {
        // A schema's worth of properties; ten times the keys cost at most about
        // ten times the work (each key looks at its candidates once).
        let props: Vec<String> = (0..60)
            .map(|i| format!("{}_{i}", "abcdefgh".get(..i % 8).unwrap_or("")))
            .collect();
        let declared: Vec<&str> = props.iter().map(String::as_str).collect();
        let work = |keys: usize| {
            let index = NearMisses::with_budget(&declared, u64::MAX);
            for i in 0..keys {
                let _ = index.of(&format!("abc_{}", i % 60));
            }
            index.work()
        };
        let (small, large) = (work(100), work(1000));
        assert!(large <= small * 11, "{small} → {large}");
    }
}
