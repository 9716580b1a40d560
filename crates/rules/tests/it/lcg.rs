//! A small deterministic generator for tests that play pseudo-random games (no randomness in tests).

pub struct Lcg(pub u64);

impl Lcg {
    /// A number below `n`.
    pub fn pick(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}
