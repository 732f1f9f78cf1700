//! Names: equality without a library call for empty strings, and an index of distinct
//! names (classes, tenants, a text column's values).
//!
//! An empty `String` points at a dangling address (1), and on this project's reference
//! machine (AMD EPYC, glibc's AVX-512 `memcmp`) comparing two such strings with `==` took
//! ~135 ns a call against ~6 ns for short non-empty ones: the masked load at an unmapped
//! address seems to take a slow path even when nothing is read. Class and tenant names are
//! empty unless a scenario sets them, and are compared once per flow while a run is built
//! and summarized (~3 % of the fluid bench's time). Results never depend on which
//! comparison is used.
use std::collections::HashMap;

/// Whether `a` and `b` are the same text.
#[inline]
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

/// Distinct names in order of first use, each with its index (its place in `list`).
#[derive(Default)]
pub struct Names {
    pub list: Vec<String>,
    at: HashMap<String, u32>,
    /// The index last returned: neighbouring rows mostly share a name.
    last: Option<u32>,
}

impl Names {
    /// Index of `name`, appended if new.
    pub fn index(&mut self, name: &str) -> u32 {
        if let Some(i) = self.last.filter(|&i| same(&self.list[i as usize], name)) {
            return i;
        }
        let i = match self.at.get(name) {
            Some(&i) => i,
            None => {
                self.list.push(name.to_string());
                self.at.insert(name.to_string(), self.list.len() as u32 - 1);
                self.list.len() as u32 - 1
            }
        };
        self.last = Some(i);
        i
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_indexed_in_order_of_first_use() {
        let mut n = super::Names::default();
        let got: Vec<u32> =
            ["", "", "web", "", "query", "web", "web"].iter().map(|s| n.index(s)).collect();
        assert_eq!(got, [0, 0, 1, 0, 2, 1, 1]);
        assert_eq!(n.list, ["", "web", "query"]);
    }

    #[test]
    fn same_is_string_equality() {
        for (a, b) in [("", ""), ("", "x"), ("x", ""), ("ab", "ab"), ("ab", "ac"), ("abc", "ab")] {
            assert_eq!(super::same(a, b), a == b, "{a:?} {b:?}");
        }
    }
}
