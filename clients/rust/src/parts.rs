//! How a run's clients are split across its parts (agents), as Go's agentproto.Range:
//! testdata/vectors/agent.json holds the shared cases.

/// Client `j` of `n` belongs to part `p` of `count` when `j` is in [p*n/count, (p+1)*n/count).
pub fn range(n: usize, p: usize, count: usize) -> (usize, usize) {
    (p * n / count, (p + 1) * n / count)
}
