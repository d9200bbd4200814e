//! FNV-1a: a small, fast, non-cryptographic hash, for the tool-name index (built
//! from the operator's own schema directory) and for deterministic call ids.

use std::hash::{BuildHasherDefault, Hasher};

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0100_0000_01b3;

/// FNV-1a as a `Hasher`.
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(OFFSET)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(PRIME);
        }
    }
}

/// For `HashMap<K, V, FnvBuild>`.
pub(crate) type FnvBuild = BuildHasherDefault<Fnv>;

/// The FNV-1a hash of `bytes`.
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    let mut h = Fnv::default();
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_values() {
        // Reference values of 64-bit FNV-1a.
        assert_eq!(super::hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::hash(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
