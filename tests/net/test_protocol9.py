"""Protocol 9's building blocks against hostile input: frames, messages, genesis, shares, handshakes.

Each piece is pure (no sockets), so each refusal is checked directly: a malformed or forged input
raises the module's error and changes nothing.
"""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import msgpack  # type: ignore[import-untyped]
import pytest

from lanopoly.net import protocol as p8
from lanopoly.net import shares, wire
from lanopoly.net.chain import HashChain
from lanopoly.net.core.linkauth import KeyDialer, KeyListener, LinkAuthError
from lanopoly.net.core.lobby import Agreement, AgreementError, Deal
from lanopoly.net.core.pinauth import (
    AUTH_HELLO,
    REJECT,
    PinError,
    PinHost,
    PinJoiner,
    normalize_pin,
    other_version,
    reject_version,
)
from lanopoly.net.core.record import ChangeEntry, EndEntry, SignedEntry, StepEntry, from_line, to_line
from lanopoly.net.genesis import MAX_BID_TIMER, Genesis, PeerEntry, StartRecord, parse_start
from lanopoly.net.keys import ED25519, fingerprint
from lanopoly.net.store import Journal, Secrets, save_text, write_atomic
from lanopoly.net.wire import FrameBuffer, WireError

GAME = bytes(range(16))


def record(peers: int = 3) -> tuple[StartRecord, list[object], list[bytes]]:
    keys = [ED25519.new_signer(bytes([i + 1]) * 32) for i in range(peers)]
    secrets = [shares.new_secret() for _ in range(peers)]
    entries = tuple(
        PeerEntry(f"p{i}", "" if i == 0 else f"127.0.0.{i + 1}", 40000 + i, k.public, HashChain.of(50, s).anchor)
        for i, (k, s) in enumerate(zip(keys, secrets, strict=True))
    )
    rec = StartRecord(GAME, entries, tuple(f"s{i}" for i in range(peers)), tuple(range(peers)), "classic", {}, 50)
    return rec, keys, secrets


# ----------------------------------------------------------------------------- frames and messages


@pytest.mark.parametrize(
    "payload",
    [
        msgpack.packb([40, 8, 1.5]),  # a float
        msgpack.packb([40, 8, msgpack.ExtType(5, b"x")]),  # an extension type
        msgpack.packb([40, 8, {1: 2}]),  # a non-string map key
        b"\xc1",  # a reserved byte
        msgpack.packb([40, 8]) + b"\x00",  # trailing bytes
        msgpack.packb({"not": "a list"}),
        b"",
    ],
)
def test_strict_decoding_refuses_what_the_protocol_never_sends(payload: bytes) -> None:
    with pytest.raises(WireError):
        wire.unpack(payload)


def test_a_frame_longer_than_the_cap_is_refused_before_it_is_read() -> None:
    frames = FrameBuffer(cap=100)
    with pytest.raises(WireError, match="cap"):
        frames.feed(wire.HEADER.pack(101))
    assert FrameBuffer(10).feed(wire.frame(b"abc", 10) + wire.frame(b"de", 10)) == [b"abc", b"de"]


def test_signed_messages_survive_the_wire_and_bind_game_step_signer_and_kind() -> None:
    key = ED25519.new_signer(b"\x07" * 32)
    move = p8.sign_action(key, GAME, 5, 2, bytes(32), 1, {"type": "roll", "player": 1})
    parsed = p8.parse(move.wire(), GAME)
    assert parsed == move and isinstance(parsed, p8.Action) and parsed.seat == 1 and parsed.signer == 2
    assert ED25519.verify(key.public, parsed.signed_data, parsed.signature)
    with pytest.raises(WireError, match="another game"):
        p8.parse(move.wire(), bytes(16))
    # The same body under another kind's tag does not verify (one tag per kind).
    assert not ED25519.verify(key.public, p8.TAGS[p8.Kind.ACK] + move.body, move.signature)


@pytest.mark.parametrize(
    "fields",
    [
        [
            p8.Kind.ACTION,
            p8.PROTOCOL,
            GAME,
            5,
            2,
            bytes(32),
            1,
            {"type": "roll", "player": 3},
        ],  # the action's player is not the seat
        [p8.Kind.ACTION, p8.PROTOCOL, GAME, 5, 9, bytes(32), 1, {"type": "roll", "player": 1}],  # signer out of range
        [p8.Kind.VOTE, p8.PROTOCOL, GAME, 5, 1, bytes(32), 0, 0, "bot"],  # targets nobody
        [p8.Kind.VOTE, p8.PROTOCOL, GAME, 5, 1, bytes(32), 0, 1, "burn"],  # unknown choice
        [p8.Kind.REVEAL, p8.PROTOCOL, GAME, 5, 1, bytes(32), 0, bytes(32)],  # chance index 0
        [p8.Kind.ACK, p8.PROTOCOL, GAME, 5, 1, bytes(31), bytes(32), None],  # a short hash
    ],
)
def test_a_signed_body_with_a_bad_field_is_refused(fields: list[object]) -> None:
    body = wire.pack(fields)
    with pytest.raises(WireError):
        p8.decode_signed(body, bytes(64))


def test_an_ack_carries_its_nested_move_under_its_one_signature() -> None:
    """Protocol 9: the move nested in an ack is its body alone, covered by the ack's signature; it is
    passed on and saved as the ack (its carrier), and a record's ack stands for the move it carries."""
    key = ED25519.new_signer(b"\x07" * 32)
    body = p8.unsigned_body(p8.Kind.ACTION, GAME, 6, 2, bytes(32), 1, {"type": "roll", "player": 1})
    ack = p8.sign_ack(key, GAME, 5, 2, bytes(32), bytes(32), body)
    parsed = p8.parse(ack.wire(), GAME)
    assert isinstance(parsed, p8.Ack) and isinstance(parsed.nested, p8.Action)
    move = parsed.nested
    assert move.body == body and move.carrier is parsed and move.signature == ack.signature
    assert move.pair() == ack.pair() and move.wire() == ack.wire() and move.pair_text == ack.pair_text
    assert ED25519.verify(key.public, move.signed_data, move.signature)  # the ack's one signature
    assert not ED25519.verify(key.public, p8.TAGS[p8.Kind.ACTION] + body, move.signature)
    assert p8.step_messages([parsed]) == (move,)
    with pytest.raises(WireError, match="carry"):
        p8.step_messages([p8.sign_ack(key, GAME, 5, 2, bytes(32), bytes(32), None)])
    # Protocol 8's form, a signed [body, signature] pair inside the ack, is refused.
    old = wire.pack([p8.Kind.ACK, p8.PROTOCOL, GAME, 5, 2, bytes(32), bytes(32), [body, bytes(64)]])
    with pytest.raises(WireError):
        p8.decode_signed(old, bytes(64))


def test_a_joiner_of_another_protocol_is_told_why_in_its_own_version() -> None:
    """A protocol-8 joiner's hello is answered with a REJECT it reads (its version in it), naming both
    versions, instead of a connection closed without a word ("end of stream")."""
    assert other_version(PinJoiner(normalize_pin("123456")).hello()) is None
    old_hello = wire.pack([AUTH_HELLO, 8, b""])
    assert other_version(old_hello) == 8
    kind, version, why = wire.unpack(reject_version(8))
    assert (kind, version) == (REJECT, 8) and "protocol 9" in why and "protocol 8" in why


def test_an_ack_may_nest_only_its_signers_message_for_the_next_step() -> None:
    key, other = ED25519.new_signer(b"\x01" * 32), ED25519.new_signer(b"\x02" * 32)
    theirs = p8.sign_reveal(other, GAME, 6, 1, bytes(32), 1, bytes(32))
    with pytest.raises(WireError, match="nested"):
        p8.sign_ack(key, GAME, 5, 0, bytes(32), bytes(32), theirs)
    late = p8.sign_reveal(key, GAME, 9, 0, bytes(32), 1, bytes(32))
    with pytest.raises(WireError, match="nested"):
        p8.sign_ack(key, GAME, 5, 0, bytes(32), bytes(32), late)


def _fields(m: p8.Signed | None) -> object:
    """Every field of a decoded message, nested ones too (a carrier by its body)."""
    if m is None:
        return None
    own = {k: v for k, v in vars(m).items() if k not in ("carrier", "nested", "pair_text")}
    nested = getattr(m, "nested", None)
    carrier = None if m.carrier is None else m.carrier.body
    return (type(m), own, carrier, _fields(nested), nested is None or nested.carrier is m)


@pytest.mark.parametrize("nested", ["none", "move", "reveal"])
def test_an_ack_signed_is_the_ack_its_bytes_decode_to(nested: str) -> None:
    """``sign_ack`` makes the ack from the fields it packed rather than decoding its own bytes
    (a decode a step saved): the value must be the decoded one, field for field."""
    key = ED25519.new_signer(b"\x05" * 32)
    body = {
        "none": None,
        "move": p8.unsigned_body(p8.Kind.ACTION, GAME, 6, 2, bytes(32), 1, {"type": "roll", "player": 1}),
        "reveal": p8.unsigned_body(p8.Kind.REVEAL, GAME, 6, 2, bytes(32), 3, b"\x09" * 32),
    }[nested]
    ack = p8.sign_ack(key, GAME, 5, 2, b"\x01" * 32, b"\x02" * 32, body)
    decoded = p8._decode_signed(ack.body, ack.signature, (p8.Kind.ACK,))
    assert decoded is not ack and _fields(ack) == _fields(decoded)


def test_an_ack_signed_here_is_what_its_bytes_decode_to_here() -> None:
    """In one process (the simulation runs every peer in one) the receivers of an ack get the
    signer's own object from the decode cache: nothing is decoded twice."""
    key = ED25519.new_signer(b"\x06" * 32)
    body = p8.unsigned_body(p8.Kind.ACTION, GAME, 8, 1, bytes(32), 1, {"type": "roll", "player": 1})
    ack = p8.sign_ack(key, GAME, 7, 1, b"\x03" * 32, b"\x04" * 32, body)
    assert p8.parse(ack.wire(), GAME) is ack
    assert p8.sign_ack(key, GAME, 7, 1, b"\x03" * 32, b"\x04" * 32, body) is ack  # the same bytes again
    assert not p8._just_signed


@pytest.mark.parametrize(
    ("step", "signer", "ahash", "game"),
    [(-1, 0, bytes(32), GAME), (5, 8, bytes(32), GAME), (5, 0, bytes(31), GAME), (5, 0, bytes(32), GAME[:15])],
)
def test_an_ack_is_not_signed_with_a_field_decoding_refuses(step: int, signer: int, ahash: bytes, game: bytes) -> None:
    key = ED25519.new_signer(b"\x05" * 32)
    with pytest.raises(WireError):
        p8.sign_ack(key, game, step, signer, ahash, bytes(32), None)


def test_link_messages_are_bounded() -> None:
    key = ED25519.new_signer(b"\x01" * 32)
    ack = p8.sign_ack(key, GAME, 5, 0, bytes(32), bytes(32), None)
    too_many = wire.pack([p8.Kind.RELAY, p8.PROTOCOL, GAME, [ack.pair()] * (p8.MAX_BATCH + 1)])
    with pytest.raises(WireError):
        p8.parse(too_many, GAME)
    bad_port = wire.pack([p8.Kind.STATUS, p8.PROTOCOL, GAME, 3, 0, [[1, 70000]]])
    with pytest.raises(WireError):
        p8.parse(bad_port, GAME)


# ----------------------------------------------------------------------------- genesis and shares


def test_a_genesis_holds_only_with_every_peers_signature_of_its_hash() -> None:
    rec, keys, secrets = record(3)
    start = rec.encode()
    assert parse_start(start) == rec
    agreements = [Agreement(start, i, keys[i], secrets[i], ED25519) for i in range(3)]  # type: ignore[arg-type]
    signatures: dict[int, bytes] = {}
    for i, a in enumerate(agreements):
        for j, b in enumerate(agreements):
            if i != j:
                payload = b.take_deal(i, _deal(a.deal_for(j)))
                if payload is not None:
                    signatures[j] = payload
    for j, payload in signatures.items():
        for i, a in enumerate(agreements):
            if i != j:
                a.take_signature(j, _signature(payload))
    genesis = agreements[0].genesis()
    assert genesis is not None and genesis.hash == agreements[2].genesis().hash  # type: ignore[union-attr]
    forged = Genesis(genesis.start, genesis.record, genesis.commitments, (genesis.signatures[0],) * 3)
    with pytest.raises(WireError, match="did not sign"):
        forged.check(ED25519.verify)
    assert Genesis.from_json(genesis.to_json()) == genesis


def test_the_start_record_carries_the_lobbys_bid_timer_and_without_one_keeps_its_bytes() -> None:
    """The bid timer the host chose is a last field of the start record, so every peer signs it
    and every console shows the same; off, the record is the 10 fields it always was (saved
    games and their genesis hashes unchanged); a timer of 0 or over the cap never parses."""
    rec, _, _ = record(2)
    assert len(msgpack.unpackb(rec.encode())) == 10 and parse_start(rec.encode()).bid_timer == 0
    timed = replace(rec, bid_timer=20)
    assert msgpack.unpackb(timed.encode())[-1] == 20 and parse_start(timed.encode()) == timed
    assert timed.encode() != rec.encode()
    for bad in (0, MAX_BID_TIMER + 1, "20"):
        fields = [*msgpack.unpackb(rec.encode()), bad]
        with pytest.raises(WireError, match="bid timer"):
            parse_start(msgpack.packb(fields))


def _deal(payload: bytes) -> Deal:
    from lanopoly.net.core import lobby

    message = lobby.parse(payload)
    assert isinstance(message, Deal)
    return message


def _signature(payload: bytes) -> bytes:
    from lanopoly.net.core import lobby

    message = lobby.parse(payload)
    assert isinstance(message, tuple)
    return bytes(message[1])


def test_a_dealer_that_deals_a_wrong_share_is_named_and_no_game_starts() -> None:
    rec, keys, secrets = record(3)
    start = rec.encode()
    honest = Agreement(start, 1, keys[1], secrets[1], ED25519)  # type: ignore[arg-type]
    cheat = Agreement(start, 0, keys[0], secrets[0], ED25519)  # type: ignore[arg-type]
    deal = _deal(cheat.deal_for(1))
    assert deal.share is not None
    wrong = Deal(deal.commitments, bytes([deal.share[0] ^ 1]) + deal.share[1:])
    with pytest.raises(AgreementError, match="peer 0") as error:
        honest.take_deal(0, wrong)
    assert error.value.peer == 0


def test_any_threshold_of_shares_rebuilds_the_secret_and_fewer_do_not() -> None:
    secret = shares.new_secret()
    t = shares.threshold(5)
    assert t == 3 and shares.threshold(2) is None
    deal = shares.deal(secret, [1, 2, 3, 4], t)
    assert all(shares.check_share(deal.commitments, h, v) for h, v in deal.shares.items())
    assert shares.combine({h: deal.shares[h] for h in (1, 3, 4)}, t) == secret
    assert shares.combine({h: deal.shares[h] for h in (2, 3, 4)}, t) == secret
    assert shares.combine({h: deal.shares[h] for h in (1, 2)}, 2) != secret
    assert not shares.check_share(deal.commitments, 2, deal.shares[1])  # another holder's share
    assert not shares.check_share([bytes(32)] * t, 1, deal.shares[1])  # not points


# ----------------------------------------------------------------------------- handshakes


def test_a_link_proves_both_start_record_keys_and_nothing_else_passes() -> None:
    rec, keys, _ = record(3)
    dialer = KeyDialer(rec, 2, keys[2], 1, 40002, ED25519)  # type: ignore[arg-type]
    listener = KeyListener(rec, 1, keys[1], ED25519)  # type: ignore[arg-type]
    proof, up_d = dialer.accept(listener.hello(dialer.hello()))
    up_l = listener.proof(proof)
    assert (up_d.peer, up_l.peer, up_l.port) == (1, 2, 40002)
    assert up_l.cipher.open(up_d.cipher.seal(b"hi")) == b"hi"
    # Someone answering at peer 1's address without its key (it holds peer 0's) is refused.
    impostor = KeyListener(rec, 0, keys[0], ED25519)  # type: ignore[arg-type]
    with pytest.raises(LinkAuthError):
        KeyDialer(rec, 2, keys[2], 1, 40002, ED25519).accept(impostor.hello(dialer.hello()))  # type: ignore[arg-type]
    # A dialer claiming to be peer 0 without its key is refused at the proof.
    liar = KeyDialer(rec, 0, keys[2], 1, 40000, ED25519)  # type: ignore[arg-type]
    victim = KeyListener(rec, 1, keys[1], ED25519)  # type: ignore[arg-type]
    proof, _ = _accept_any(liar, victim)
    with pytest.raises(LinkAuthError, match="did not prove"):
        victim.proof(proof)
    # A proof from another handshake is worthless (both ephemeral keys are in what it signs).
    fresh = KeyListener(rec, 1, keys[1], ED25519)  # type: ignore[arg-type]
    fresh.hello(KeyDialer(rec, 2, keys[2], 1, 40002, ED25519).hello())  # type: ignore[arg-type]
    with pytest.raises(LinkAuthError):
        fresh.proof(proof)


def _accept_any(dialer: KeyDialer, listener: KeyListener) -> tuple[bytes, object]:
    answer = listener.hello(dialer.hello())
    from lanopoly.net import wire as w

    fields = w.unpack(answer)
    t = __import__("lanopoly.net.core.linkauth", fromlist=["_transcript"])._transcript(
        dialer.record.game_id, dialer.me, fields[2], dialer._public, fields[3], dialer.port
    )
    proof = w.pack(
        [72, p8.PROTOCOL, dialer.key.sign(__import__("lanopoly.net.core.linkauth").net.core.linkauth.DIALER_TAG + t)]
    )
    return proof, None


def test_the_pin_handshake_refuses_a_wrong_pin_on_both_sides() -> None:
    host = PinHost(normalize_pin("123456"), GAME)
    joiner = PinJoiner(normalize_pin("123 457"))
    reply = joiner.offer(host.hello(joiner.hello()))
    with pytest.raises(PinError) as error:
        host.reply(reply)
    assert error.value.wrong_pin
    good_host, good = PinHost(normalize_pin("123456"), GAME), PinJoiner(normalize_pin("123-456"))
    answer, channel = good_host.reply(good.offer(good_host.hello(good.hello())))
    assert good.confirm(answer).binding == channel.binding


def test_a_spake2_message_from_another_side_is_refused_without_relying_on_assert() -> None:
    host = PinHost(normalize_pin("123456"), GAME)
    joiner = PinJoiner(normalize_pin("123456"))
    offer = host.hello(joiner.hello())
    fields = wire.unpack(offer)
    fields[3] = b"A" + fields[3][1:]  # side A, not symmetric: the library checks it with an assert
    with pytest.raises(PinError, match="symmetric"):
        joiner.offer(wire.pack(fields))


def test_a_spake2_message_off_the_curve_is_a_refusal_not_a_crash() -> None:
    host = PinHost(normalize_pin("123456"), GAME)
    joiner = PinJoiner(normalize_pin("123456"))
    fields = wire.unpack(host.hello(joiner.hello()))
    refused = 0
    for last in range(40):  # about half of all 32-byte strings are no point of the group
        fields[3] = b"S" + bytes(31) + bytes([last])
        try:
            PinJoiner(normalize_pin("123456")).offer(wire.pack(fields))
        except PinError:
            refused += 1
    assert refused > 0


def test_a_fingerprint_is_short_readable_and_tells_keys_apart() -> None:
    a, b = ED25519.new_signer(b"\x01" * 32).public, ED25519.new_signer(b"\x02" * 32).public
    assert len(fingerprint(a)) == 19 and fingerprint(a) != fingerprint(b) and fingerprint(a) == fingerprint(a)


# ----------------------------------------------------------------------------- journal and files


def test_journal_lines_round_trip_and_a_cut_last_line_is_ignored(tmp_path: Path) -> None:
    rec, keys, _ = record(2)
    genesis = Genesis(rec.encode(), rec, ((), ()), (b"\x00" * 64, b"\x00" * 64))
    key = keys[0]
    move = p8.sign_action(key, GAME, 1, 0, bytes(32), 0, {"type": "roll", "player": 0})  # type: ignore[arg-type]
    entries = [
        SignedEntry(move, "all"),
        StepEntry(p8.StepRecord(1, (move,)), bytes(32)),
        ChangeEntry(p8.ChangeRecord(2, (), ())),
        EndEntry("frozen", 1, "why"),
    ]
    assert [from_line(to_line(e)) for e in entries] == entries
    path = tmp_path / "game.json.journal"
    journal = Journal(path, genesis)
    for entry in entries[:2]:
        journal.append(entry)
    journal.close()
    with open(path, "a") as f:
        f.write(to_line(entries[2])[:20])  # killed while writing this line
    read_genesis, read = Journal.read(path)
    assert read_genesis.start == genesis.start and read == entries[:2]


@pytest.mark.parametrize("log_json", ['{"inputs": [1, 2], "s": "}"}', '{"a":1}\n', "{ }", "{}"])
def test_the_saved_game_is_the_log_with_the_record_spliced_in(log_json: str) -> None:
    """The record is spliced into the log's JSON text (not decoded and encoded again at each save)."""
    import json

    network = {"format": "lanopoly-net", "steps": [[["Ym9keQ==", "c2ln"]]], "name": "Zoë"}
    assert json.loads(save_text(log_json, json.dumps(network))) == {**json.loads(log_json), "network": network}
    with pytest.raises(ValueError, match="JSON object"):
        save_text("[1, 2]", "{}")


def test_secret_and_ready_files_are_private_from_their_creation(tmp_path: Path) -> None:
    path = tmp_path / "game.json.secret"
    Secrets(1, b"k" * 32, b"c" * 32, {0: b"s" * 32}, "123456", ("127.0.0.1", 0)).write(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert Secrets.read(path).held == {0: b"s" * 32}
    ready = tmp_path / "ready.json"
    write_atomic(ready, '{"pin": "123456"}', private=True)
    assert stat.S_IMODE(os.stat(ready).st_mode) == 0o600


def test_an_undecodable_payload_says_what_was_wrong() -> None:
    """msgpack's FormatError has no message: the reason said nothing after its colon."""
    with pytest.raises(WireError) as caught:
        wire.unpack(b"\x91\xc1")
    assert str(caught.value) == "undecodable payload: FormatError: a byte that begins no msgpack value (0xc1)"
    with pytest.raises(WireError, match=r"^undecodable payload: ValueError: Unpack failed: incomplete input$"):
        wire.unpack(b"\xd4\x00")


def test_a_message_type_is_named_with_its_article() -> None:
    assert [p8.a_kind(k) for k in (p8.Kind.ACTION, p8.Kind.ACK, p8.Kind.OFFER, p8.Kind.REVEAL)] == [
        "an ACTION",
        "an ACK",
        "an OFFER",
        "a REVEAL",
    ]
