//! A small seeded generator for the benches' dice and random players, so that a bench repeats itself.

/// A linear congruential generator (Knuth's MMIX constants): fast, seeded, and good enough to
/// pick moves; never for a game's own dice.
pub(super) struct Lcg(pub(super) u64);

impl Lcg {
    /// A number below `n` (0 when `n` is 0).
    pub(super) fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }
}
