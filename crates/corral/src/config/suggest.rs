//! "Did you mean" suggestions for unknown keys and names: the valid candidate with the
//! smallest edit distance, if it is close enough to be a plausible typo.

/// Levenshtein distance between two short strings.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != cb) as usize).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest candidate to `word`, if within a third of its length (at least 2 edits).
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let budget = (word.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|&(d, _)| d <= budget)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_close_names_only() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(nearest("linkrate", ["link_rate", "link_delay", "k"]), Some("link_rate"));
        assert_eq!(nearest("zzzzzz", ["link_rate", "k"]), None);
    }
}
