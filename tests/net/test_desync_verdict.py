"""The desync verdict (``net/core/inquiry.py``: ``desync_verdict``): what acks of a step that
disagree mean when the evidence round found no proof of equivocation, each case on its own, with
no session and no network ("A step" 3 in docs/lan.md)."""

from __future__ import annotations

from lanopoly.net.core.inquiry import Desync, InputsDiverged, NoOwnAck, Outvote, desync_verdict

GOOD = (b"input", b"state")
OTHER_STATE = (b"input", b"other state")
OTHER_INPUT = (b"other input", b"state")


def test_a_peer_without_its_own_ack_follows_another_s_round_and_freezes() -> None:
    assert desync_verdict({1: GOOD, 2: OTHER_STATE}, me=0) == NoOwnAck()


def test_a_strict_majority_of_three_or_more_with_this_peer_votes_the_others_out() -> None:
    assert desync_verdict({0: GOOD, 1: GOOD, 2: OTHER_STATE}, me=0) == Outvote((2,))
    assert desync_verdict({0: GOOD, 1: OTHER_STATE, 2: GOOD, 3: OTHER_STATE, 4: GOOD}, me=4) == Outvote((1, 3))


def test_the_minority_itself_blames_the_majority_s_others_and_freezes() -> None:
    """A peer outside the majority does not vote: it freezes naming those off the majority's state
    (itself among them), so its report says the truth of what it saw."""
    assert desync_verdict({0: GOOD, 1: GOOD, 2: OTHER_STATE}, me=2) == Desync((2,), by_majority=True)


def test_two_peers_that_disagree_have_no_majority_and_each_blames_the_other() -> None:
    assert desync_verdict({0: GOOD, 1: OTHER_STATE}, me=0) == Desync((1,), by_majority=False)
    assert desync_verdict({0: GOOD, 1: OTHER_STATE}, me=1) == Desync((0,), by_majority=False)


def test_a_tie_among_four_is_no_majority() -> None:
    hashes = {0: GOOD, 1: GOOD, 2: OTHER_STATE, 3: OTHER_STATE}
    assert desync_verdict(hashes, me=0) == Desync((2, 3), by_majority=False)
    assert desync_verdict(hashes, me=3) == Desync((0, 1), by_majority=False)


def test_different_inputs_blame_nobody() -> None:
    """Only a signed equivocation makes inputs differ; without its proof the peers whose input
    differs may be the ones lied to."""
    assert desync_verdict({0: GOOD, 1: GOOD, 2: OTHER_INPUT}, me=0) == InputsDiverged()
    assert desync_verdict({0: GOOD, 1: OTHER_INPUT}, me=1) == InputsDiverged()
