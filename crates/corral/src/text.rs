//! String equality without a library call for empty strings. An empty `String` points at a
//! dangling address (1), and on this project's reference machine (AMD EPYC, glibc's AVX-512
//! `memcmp`) comparing two such strings with `==` took ~135 ns a call against ~6 ns for
//! short non-empty ones: the masked load at an unmapped address seems to take a slow path
//! even when nothing is read. Class and tenant names are empty unless a scenario sets them,
//! and are compared once per flow while a run is built and summarized (~3 % of the fluid
//! bench's time). Results never depend on which comparison is used.

/// Whether `a` and `b` are the same text.
#[inline]
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

#[cfg(test)]
mod tests {
    #[test]
    fn same_is_string_equality() {
        for (a, b) in [("", ""), ("", "x"), ("x", ""), ("ab", "ab"), ("ab", "ac"), ("abc", "ab")] {
            assert_eq!(super::same(a, b), a == b, "{a:?} {b:?}");
        }
    }
}
