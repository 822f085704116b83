"""Garbage fed to every parser of bytes that come from the network or a file (hypothesis).

A parser returns what it read or raises its own error, with a reason (``WireError`` on the wire,
and in a journal); any other exception would escape a peer's reader and end its process.
The garbage is of three kinds: random bytes; msgpack of random values behind a valid header (the
fields' types and ranges are then what is tested); and real messages of a real game with one part
changed (a field replaced, an array cut or grown, a byte flipped), inside signed bodies too.

A live session fed such a message on a peer's link never raises; one it cannot parse leaves the
game as it was, and names and drops the sender (``malformed``); a signed one that was changed fails
its signature the same way (``bad_signature``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Any

import msgpack  # type: ignore[import-untyped]
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from lanopoly._core import Rules
from lanopoly.bots import SimpleBot
from lanopoly.net import protocol as p8
from lanopoly.net.core import effects as fx
from lanopoly.net.core import lobby
from lanopoly.net.core.linkauth import KeyDialer, KeyListener, LinkAuthError
from lanopoly.net.core.pinauth import PinError, PinHost, PinJoiner
from lanopoly.net.core.record import JournalEntry, SignedEntry, from_line, to_line
from lanopoly.net.core.session import Config, Session
from lanopoly.net.genesis import Genesis, parse_start
from lanopoly.net.wire import WireError

from .sim.keys import SIM
from .sim.table import PeerSecrets, make_table

PEERS = 3
STEPS = 12
"""The mini game is played to this step before the garbage comes."""

plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=40) | st.binary(max_size=80),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=16,
)
"""Any value msgpack carries in this protocol (no floats, no ext types: the decoder refuses those)."""


# ----------------------------------------------------------------------------- a real game, in process


@cache
def table() -> tuple[Genesis, tuple[PeerSecrets, ...]]:
    rules = Rules.preset("official", round_limit=3).to_dict()
    genesis, secrets = make_table(random.Random(7), SIM, [0, 1, 2], rules=rules)
    return genesis, tuple(secrets)


def new_session(me: int, journal: tuple[JournalEntry, ...] = ()) -> Session:
    genesis, secrets = table()
    s = secrets[me]
    policies = {seat: SimpleBot() for seat in genesis.record.seats_of(me)}
    return Session(
        genesis, me, s.key, s.chain_secret, s.held, policies, Config(step_timeout=10), suite=SIM, journal=journal
    )


@cache
def mini_game() -> tuple[tuple[tuple[int, bytes], ...], tuple[JournalEntry, ...]]:
    """Three sessions linked in process, played to step ``STEPS``: every payload sent to peer 0, with
    its sender (the seeds of the mutations), and peer 0's journal (to rebuild it for each example)."""
    sessions = [new_session(me) for me in range(PEERS)]
    queue: list[tuple[int, int, bytes]] = []
    journal: list[JournalEntry] = []
    sent: list[tuple[int, bytes]] = []

    def take(me: int, effects: list[fx.Effect]) -> None:
        for effect in effects:
            if isinstance(effect, fx.Send):
                queue.append((effect.peer, me, effect.payload))
                if effect.peer == 0 and sessions[0].game.step >= STEPS - 2:  # older ones are not looked at
                    sent.append((me, effect.payload))
            elif isinstance(effect, fx.Persist) and me == 0:
                journal.append(effect.record)  # type: ignore[arg-type]

    for me, session in enumerate(sessions):
        take(me, session.start(0.0))
    for me, session in enumerate(sessions):
        for other in range(PEERS):
            if other != me:
                take(me, session.link_up(other, 0.0))
    while queue and sessions[0].game.step < STEPS:
        to, sender, payload = queue.pop(0)
        take(to, sessions[to].receive(sender, payload, 0.0))
    assert sessions[0].game.step == STEPS, "the mini game stopped early: it no longer tests a game under way"
    kept = tuple(e for e in journal if not isinstance(e, SignedEntry) or e.message.step <= STEPS)
    return tuple(dict.fromkeys(sent)), kept


# ----------------------------------------------------------------------------- mutations


def mutate(value: Any, draw: Callable[[st.SearchStrategy[Any]], Any]) -> Any:
    """``value`` with one part changed: somewhere down its arrays, maps and msgpack bodies."""
    if isinstance(value, list) and value and draw(st.integers(0, 3)):
        i = draw(st.integers(0, len(value) - 1))
        how = draw(st.sampled_from(["inside", "inside", "cut", "grow"]))
        if how == "cut":
            return value[:i]
        if how == "grow":
            return [*value[:i], draw(plain), *value[i:]]
        return [*value[:i], mutate(value[i], draw), *value[i + 1 :]]
    if isinstance(value, dict) and value and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(value, key=repr)))
        return {**value, key: mutate(value[key], draw)}
    if isinstance(value, bytes) and value:
        try:
            inner = msgpack.unpackb(value, raw=False, strict_map_key=False)
        except Exception:
            inner = None
        if isinstance(inner, list) and draw(st.booleans()):  # a signed body: changed inside, packed again
            return msgpack.packb(mutate(inner, draw), use_bin_type=True)
        if draw(st.booleans()):
            i = draw(st.integers(0, len(value) - 1))
            return value[:i] + bytes([value[i] ^ draw(st.integers(1, 255))]) + value[i + 1 :]
        return value[: draw(st.integers(0, len(value) - 1))]
    if isinstance(value, int) and not isinstance(value, bool) and draw(st.booleans()):
        return draw(st.sampled_from([value + 1, value - 1, -1, 0, 2**32, 2**63 - 1, 2**64 - 1, -(2**63)]))
    return draw(plain)


def flip_a_hash(value: Any, draw: Callable[[st.SearchStrategy[Any]], Any]) -> Any:
    """``value`` with one byte flipped in one of its hashes, keys or signatures (32 or 64 bytes),
    inside signed bodies too: the message stays well formed, and what was signed is no longer it."""
    if isinstance(value, list):
        spots = [i for i, v in enumerate(value) if _holds_a_hash(v)]
        if spots:
            i = draw(st.sampled_from(spots))
            return [*value[:i], flip_a_hash(value[i], draw), *value[i + 1 :]]
    if isinstance(value, bytes):
        if len(value) in (32, 64):
            i = draw(st.integers(0, len(value) - 1))
            return value[:i] + bytes([value[i] ^ draw(st.integers(1, 255))]) + value[i + 1 :]
        return msgpack.packb(flip_a_hash(msgpack.unpackb(value, raw=False, strict_map_key=False), draw))
    return value


def _holds_a_hash(value: Any) -> bool:
    if isinstance(value, list):
        return any(_holds_a_hash(v) for v in value)
    if isinstance(value, bytes):
        if len(value) in (32, 64):
            return True
        try:
            return _holds_a_hash(msgpack.unpackb(value, raw=False, strict_map_key=False))
        except Exception:
            return False
    return False


@st.composite
def mutated(draw: Callable[[st.SearchStrategy[Any]], Any], seeds: tuple[bytes, ...]) -> bytes:
    seed = draw(st.sampled_from(seeds))
    value = msgpack.unpackb(seed, raw=False, strict_map_key=False)
    if _holds_a_hash(value) and draw(st.booleans()):
        return bytes(msgpack.packb(flip_a_hash(value, draw), use_bin_type=True))
    return bytes(msgpack.packb(mutate(value, draw), use_bin_type=True))


def game_id() -> bytes:
    return table()[0].game_id


# ----------------------------------------------------------------------------- the parsers


def parses_or_refuses(parse: Callable[[bytes], object], payload: bytes) -> None:
    try:
        parse(payload)
    except WireError as e:
        assert str(e), "a refusal without a reason"


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_are_a_message_or_refused_with_a_reason(payload: bytes) -> None:
    for parse in (lambda b: p8.parse(b, game_id()), lobby.parse, parse_start):
        parses_or_refuses(parse, payload)


@FUZZ
@given(st.sampled_from(sorted(p8.Kind)), st.lists(plain, max_size=6), st.booleans())
def test_random_fields_behind_a_valid_header_are_refused_with_a_reason(
    kind: p8.Kind, fields: list[Any], tagged: bool
) -> None:
    payload = msgpack.packb([int(kind), p8.PROTOCOL, game_id(), *fields], use_bin_type=True)
    parses_or_refuses(lambda b: p8.parse(b, game_id()), payload)
    body = msgpack.packb([int(kind), *fields] if tagged else fields)  # a signed body, tagged or not
    parses_or_refuses(lambda b: p8.parse(b, game_id()), msgpack.packb([int(kind), p8.PROTOCOL, body, bytes(64)]))
    parses_or_refuses(lobby.parse, msgpack.packb([fields[0] if fields else 0, lobby.PROTOCOL, *fields[1:]]))


@FUZZ
@given(st.data())
def test_real_messages_changed_in_one_part_are_a_message_or_refused(data: st.DataObject) -> None:
    payload = data.draw(mutated(tuple(p for _, p in mini_game()[0])))
    parses_or_refuses(lambda b: p8.parse(b, game_id()), payload)


@FUZZ
@given(st.data())
def test_a_start_record_changed_in_one_part_is_one_or_refused(data: st.DataObject) -> None:
    parses_or_refuses(parse_start, data.draw(mutated((table()[0].start,))))


@FUZZ
@given(st.data())
def test_a_journal_line_changed_in_one_part_is_an_entry_or_refused(data: st.DataObject) -> None:
    lines = [to_line(e) for e in mini_game()[1]]
    line = data.draw(st.sampled_from(lines))
    at = data.draw(st.integers(0, len(line)))
    changed = line[:at] + data.draw(st.text(max_size=4)) + line[at + data.draw(st.integers(0, 8)) :]
    parses_or_refuses(lambda _: from_line(changed), b"")


# ----------------------------------------------------------------------------- a live session


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_live_session_fed_a_changed_message_never_raises_and_loses_nothing(data: st.DataObject) -> None:
    sent, journal = mini_game()
    sender = data.draw(st.sampled_from((1, 2)))
    payload = data.draw(mutated(tuple(p for s, p in sent if s == sender)))
    session = new_session(0, journal)
    session.start(0.0)
    for peer in (1, 2):
        session.link_up(peer, 0.0)
    before = (session.game.step, session.game.state_hash())
    try:
        p8.parse(payload, game_id())
        well_formed = True
    except WireError:
        well_formed = False
    effects = session.receive(sender, payload, 1.0)
    event(f"{'well formed' if well_formed else 'malformed'}: faults {sorted({f.kind for f in session.faults})}")
    kinds = [f.kind for f in session.faults]
    if not well_formed:
        assert kinds == ["malformed"]
    if kinds[:1] in (["malformed"], ["bad_signature"]):  # refused: the game is as it was, the sender dropped
        assert (session.game.step, session.game.state_hash()) == before
        assert fx.Close(sender, session.faults[0].detail) in effects


def test_every_signed_message_with_a_flipped_signature_is_refused_and_its_sender_named() -> None:
    """The mutations above rarely hit the one byte that matters most: here each signed message the
    mini game sent peer 0 around its last step comes again with one bit of its signature flipped, to
    a fresh copy of peer 0 that has not seen it (a message already taken is ignored unread)."""
    sent, journal = mini_game()
    tried = 0
    for sender, payload in sent:
        message = p8.parse(payload, game_id())
        if not isinstance(message, p8.Signed) or not STEPS - 1 <= message.step <= STEPS + 2:
            continue
        kind, version, body, signature = msgpack.unpackb(payload, raw=False)
        forged = msgpack.packb([kind, version, body, bytes([signature[0] ^ 1]) + signature[1:]], use_bin_type=True)
        session = new_session(0, journal)
        session.start(0.0)
        for peer in (1, 2):
            session.link_up(peer, 0.0)
        before = (session.game.step, session.game.state_hash())
        effects = session.receive(sender, forged, 1.0)
        assert [f.kind for f in session.faults] == ["bad_signature"], (message, session.faults)
        assert (session.game.step, session.game.state_hash()) == before
        assert fx.Close(sender, session.faults[0].detail) in effects
        tried += 1
    assert tried >= 3, f"only {tried} signed messages near step {STEPS}: the test no longer tests much"


# ----------------------------------------------------------------------------- the handshakes


def pin_stages() -> list[tuple[bytes, Callable[[bytes], object]]]:
    """Each message of a real PIN handshake, with the side that reads it, in the state it reads it in."""
    pin = b"123456"
    host, joiner = PinHost(pin, game_id()), PinJoiner(pin)
    hello = joiner.hello()
    offer = host.hello(hello)
    reply = joiner.offer(offer)
    confirming, confirmer = PinJoiner(pin), PinHost(pin, game_id())  # a second run, to the confirmation
    confirm, _ = confirmer.reply(confirming.offer(confirmer.hello(confirming.hello())))
    return [
        (hello, PinHost(pin, game_id()).hello),
        (offer, PinJoiner(pin).offer),
        (reply, host.reply),
        (confirm, confirming.confirm),
    ]


def link_stages() -> list[tuple[bytes, Callable[[bytes], object]]]:
    """Each message of a real link handshake (peer 1 dials peer 0), with the step that reads it."""
    genesis, secrets = table()
    record = genesis.record
    dialer = KeyDialer(record, 1, secrets[1].key, 0, 40001, SIM)
    listener = KeyListener(record, 0, secrets[0].key, SIM)
    hello = dialer.hello()
    accept = listener.hello(hello)
    proof, _ = dialer.accept(accept)
    return [
        (hello, KeyListener(record, 0, secrets[0].key, SIM).hello),
        (accept, KeyDialer(record, 1, secrets[1].key, 0, 40001, SIM).accept),
        (proof, listener.proof),
    ]


def refused_in_the_handshake(read: Callable[[bytes], object], payload: bytes) -> None:
    try:
        read(payload)
    except (WireError, PinError, LinkAuthError) as e:
        assert str(e), "a refusal without a reason"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_each_handshake_message_changed_or_random_is_refused_with_a_reason(data: st.DataObject) -> None:
    stages = data.draw(st.sampled_from(["pin", "link"]))
    message, read = data.draw(st.sampled_from(pin_stages() if stages == "pin" else link_stages()))
    payload = data.draw(mutated((message,)) | st.binary(max_size=120))
    refused_in_the_handshake(read, payload)
