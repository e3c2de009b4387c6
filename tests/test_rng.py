"""engine.rng: the game's SplitMix64 generator gives the published sequence, and below/shuffled
draw from it without bias."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import rng


def _below_reference(state: int, n: int) -> tuple[int, int]:
    """Rejection sampling written the plain way, on top of next_u64."""
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        value, state = rng.next_u64(state)
        if value < limit:
            return value % n, state


def test_next_u64_is_splitmix64() -> None:
    # The first outputs of SplitMix64 from state 0 (Vigna's reference implementation).
    value, state = rng.next_u64(0)
    assert value == 0xE220A8397B1DCDAF
    value, state = rng.next_u64(state)
    assert value == 0x6E789E6AA1B965F4
    value, _ = rng.next_u64(state)
    assert value == 0x06C45D188009454F


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 12, 100, 127, 128, 129, 1000, 2**32 + 1,
                               2**63 + 12345, 2**64 - 1])
def test_below_matches_plain_rejection_sampling(n: int) -> None:
    state = rng.seed_state(n)
    ours = theirs = state
    for _ in range(300):
        k, ours = rng.below(ours, n)
        expected, theirs = _below_reference(theirs, n)
        assert (k, ours) == (expected, theirs)
        assert 0 <= k < n


def test_below_rejects_to_stay_unbiased() -> None:
    # With n just above 2**63 about half the outputs are rejected, so some calls take two steps.
    n = 2**63 + 1
    state, steps = rng.seed_state(1), []
    for _ in range(200):
        _, after = rng.below(state, n)
        probe, count = state, 0
        while probe != after:
            _, probe = rng.next_u64(probe)
            count += 1
        steps.append(count)
        state = after
    assert set(steps) >= {1, 2}


def test_below_is_uniform_and_refuses_empty_ranges() -> None:
    state, counts = rng.seed_state(9), Counter[int]()
    for _ in range(6000):
        k, state = rng.below(state, 6)
        counts[k] += 1
    assert set(counts) == set(range(6))
    assert all(850 < c < 1150 for c in counts.values())
    for n in (0, -3):
        with pytest.raises(ValueError):
            rng.below(state, n)


def test_shuffled_is_a_reproducible_permutation() -> None:
    items = tuple(range(20))
    once, after = rng.shuffled(rng.seed_state(5), items)
    again, after_again = rng.shuffled(rng.seed_state(5), items)
    assert (once, after) == (again, after_again)
    assert sorted(once) == list(items) and once != items
