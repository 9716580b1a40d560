//! The robot's randomness: a SplitMix64 generator seeded from public data, and the FNV hash that makes the seed.
//!
//! Written here rather than taken from `rand`: the rules crate may not depend on `rand` or
//! `rand_core` (the tidy test forbids them, they can reach OS randomness), and ten lines of a
//! well-known generator need no crate.

/// SplitMix64 (Steele, Lea, Flood 2014): fast, and good enough for sampling and tie-breaking.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(super) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (n > 0).
    pub(super) fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() >> 11) % n.max(1) as u64) as usize
    }
}

/// FNV-1a, 64 bits: the seed from the game id and the position's text.
pub(super) struct Fnv(u64);

impl Fnv {
    pub(super) fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub(super) fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub(super) fn finish(&self) -> u64 {
        self.0
    }
}
