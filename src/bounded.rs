//! A map that keeps at most a bound of entries, dropping the one used least
//! recently when a new one would pass it: the caches of made kernels and of
//! built pipelines, whose keys a long-running process may keep meeting anew.

use std::collections::HashMap;
use std::hash::Hash;

/// At most `bound` entries, each stamped with when it was last used.
#[derive(Debug)]
pub(crate) struct Bounded<K, V> {
    entries: HashMap<K, (V, u64)>,
    bound: usize,
    clock: u64,
}

impl<K: Hash + Eq + Clone, V> Bounded<K, V> {
    pub(crate) fn new(bound: usize) -> Bounded<K, V> {
        Bounded {
            entries: HashMap::new(),
            bound: bound.max(1),
            clock: 0,
        }
    }

    /// The value of `key`, now the most recently used.
    pub(crate) fn get(&mut self, key: &K) -> Option<&V> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(key).map(|(value, used)| {
            *used = clock;
            &*value
        })
    }

    /// `value` under `key`, unless the key has one (another thread's, made
    /// meanwhile), which is kept; the least recently used entry goes where
    /// the map would pass its bound. The value under `key`.
    pub(crate) fn insert(&mut self, key: K, value: V) -> &V {
        self.clock += 1;
        if !self.entries.contains_key(&key) && self.entries.len() >= self.bound {
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                self.entries.remove(&oldest);
            }
        }
        let clock = self.clock;
        let (value, used) = self.entries.entry(key).or_insert((value, clock));
        *used = clock;
        value
    }

    /// Takes `key`'s entry out.
    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        self.entries.remove(key).map(|(value, _)| value)
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The values, in no order.
    #[cfg(test)]
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.values().map(|(value, _)| value)
    }

    /// The entries, in no order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(key, (value, _))| (key, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_entry_goes_past_the_bound() {
        let mut map = Bounded::new(3);
        for k in 0..3 {
            map.insert(k, k * 10);
        }
        assert_eq!(map.get(&0), Some(&0));
        // 1 is now the least recently used.
        map.insert(3, 30);
        assert_eq!(map.len(), 3);
        assert_eq!(map.get(&1), None);
        assert_eq!(map.get(&0), Some(&0));
        // A key already there keeps its value and passes nothing.
        assert_eq!(*map.insert(0, 99), 0);
        assert_eq!(map.len(), 3);
        for k in 4..1000 {
            map.insert(k, k);
        }
        assert_eq!(map.len(), 3);
        assert_eq!(map.values().copied().max(), Some(999));
    }
}
