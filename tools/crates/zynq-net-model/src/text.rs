//! String helpers the loader and the rules share: the closest spelling of
//! a key or rule id (the "did you mean" of a hint) and the shape of a
//! sysctl name. Kept apart so that no two files of the crate import each
//! other through them.

/// Closest allowed key by edit distance (at most 3 edits).
pub(crate) fn closest(key: &str, allowed: &[String]) -> Option<String> {
    allowed.iter().map(|a| (levenshtein(key, a), a)).filter(|(d, _)| *d <= 3).min().map(|(_, a)| a.clone())
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// A dotted sysctl name as sysctl.conf writes it: two or more segments of
/// letters, digits, `_` and `-` (rule sysctl-key).
pub(crate) fn sysctl_key_ok(k: &str) -> bool {
    k.split('.').count() >= 2
        && k.split('.')
            .all(|seg| !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edit distances of the textbook pairs (insertions, deletions,
    /// substitutions, empty strings), and the suggestion it drives.
    #[test]
    fn levenshtein_is_the_edit_distance() {
        for (a, b, d) in [
            ("kitten", "sitting", 3),
            ("sitting", "kitten", 3),
            ("flaw", "lawn", 2),
            ("", "abc", 3),
            ("abc", "", 3),
            ("ab", "a", 1),
            ("a", "ab", 1),
            ("abc", "abc", 0),
            ("rx-ring", "rx_ring", 1),
        ] {
            assert_eq!(levenshtein(a, b), d, "{a:?} {b:?}");
        }
        let allowed = ["rx_ring".to_string(), "tx_ring".to_string(), "coalesce".to_string()];
        assert_eq!(closest("rxring", &allowed).as_deref(), Some("rx_ring"));
        assert_eq!(closest("mtu", &allowed), None);
        // three edits still suggest, four do not
        assert_eq!(closest("ring", &allowed).as_deref(), Some("rx_ring"));
        assert_eq!(levenshtein("ring", "rx_ring"), 3);
        assert_eq!(closest("rng", &allowed), None);
        assert_eq!(levenshtein("rng", "rx_ring"), 4);
    }

    /// A sysctl name has two segments at least (`vm.swappiness`); one
    /// segment is not a sysctl.conf name.
    #[test]
    fn sysctl_names_of_two_segments() {
        assert!(sysctl_key_ok("vm.swappiness"));
        assert!(!sysctl_key_ok("swappiness"));
    }
}
