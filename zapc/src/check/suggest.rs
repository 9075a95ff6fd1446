//! "Did you mean ...?" for misspelt names.

/// The candidate closest to `word` by edit distance, if it is close enough to be a likely
/// typo (at most one edit per three characters, at least one). Ties go to the earlier
/// candidate.
pub(super) fn closest<'c>(
    word: &str,
    candidates: impl Iterator<Item = &'c str>,
) -> Option<&'c str> {
    let limit = (word.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let distance = edit_distance(word, candidate);
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(b.len() + 1);
        current.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            let deletion = previous[j + 1] + 1;
            let insertion = current[j] + 1;
            current.push(substitution.min(deletion).min(insertion));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_near_misses_only() {
        let names = ["u32", "u64", "Account", "text"];
        assert_eq!(closest("u63", names.into_iter()), Some("u64"));
        assert_eq!(closest("Acount", names.into_iter()), Some("Account"));
        assert_eq!(closest("txet", names.into_iter()), None);
        assert_eq!(closest("Zebra", names.into_iter()), None);
    }
}
