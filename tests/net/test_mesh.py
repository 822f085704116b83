"""The lobby handshake over real sockets: a full lobby and a wrong game id are refused with a reason;
forming the mesh, a peer dialing another refuses whatever answers there without that peer's key."""

from __future__ import annotations

import asyncio

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanopoly import Rules
from lanopoly.net import PROTOCOL_VERSION, secure
from lanopoly.net.framing import FramedConnection, pack, unpack
from lanopoly.net.mesh import HostLobby, Listener, MeshError, MeshJoiner, PeerConfig, start_hash
from lanopoly.net.messages import Accept, Kind, Message, PeerHello, ProtocolError, StartAck, parse

ADDR = "127.0.0.1"
PIN = "314159"


def test_lobby_refuses_extra_and_wrong_game_joiners() -> None:
    async def main() -> None:
        lobby = HostLobby(PeerConfig("Ada", [ADDR], pin=PIN), 2, 2, "classic", Rules(round_limit=5).to_dict())
        port = await lobby.open()
        first = MeshJoiner(PeerConfig("Bob", [ADDR], pin=PIN))
        wrong = MeshJoiner(PeerConfig("Eve", [ADDR], pin=PIN))
        with pytest.raises(MeshError, match="another game"):
            await wrong.join(ADDR, port, game_id=b"\x01" * 16, lobby_timeout=5)
        await wrong.close()
        join = asyncio.create_task(first.join(ADDR, port, lobby_timeout=10))
        await lobby.wait_full(5)
        late = MeshJoiner(PeerConfig("Zed", [ADDR], pin=PIN))
        with pytest.raises(MeshError, match="lobby is full"):
            await late.join(ADDR, port, lobby_timeout=5)
        await late.close()
        host_mesh, guest_mesh = await asyncio.gather(lobby.start(), join)
        assert host_mesh.start_hash == guest_mesh.start_hash
        assert host_mesh.start.names == ("Ada", "Bob") and guest_mesh.me == 1
        await asyncio.gather(host_mesh.close(), guest_mesh.close())

    asyncio.run(asyncio.wait_for(main(), 30))


def test_accept_messages_round_trip_and_are_checked() -> None:
    """``ACCEPT [game id, index, proof]`` (protocol 7): the accepting peer's key proof; anything else refused."""
    accept = Accept(b"g" * 16, 3, b"s" * 64)
    assert accept.to_wire() == [Kind.ACCEPT, PROTOCOL_VERSION, b"g" * 16, 3, b"s" * 64]
    assert parse(unpack(pack(accept.to_wire()))) == accept
    head = [Kind.ACCEPT, PROTOCOL_VERSION]
    bad = [
        [b"g" * 16, 3],  # no proof
        [b"g" * 16, 3, b"s" * 64, b""],  # one field too many
        [b"g" * 15, 3, b"s" * 64],  # not a game id
        [b"g" * 16, 8, b"s" * 64],  # no peer 8
        [b"g" * 16, -1, b"s" * 64],
        [b"g" * 16, "3", b"s" * 64],
        [b"g" * 16, True, b"s" * 64],
        [b"g" * 16, 3, b"s" * 63],  # not a signature
        [b"g" * 16, 3, b"s" * 65],
        [b"g" * 16, 3, "s" * 64],
        [b"g" * 16, 3, None],
    ]
    for fields in bad:
        with pytest.raises(ProtocolError):
            parse([*head, *fields])
    with pytest.raises(ProtocolError, match="protocol 6"):  # no ACCEPT before protocol 7
        parse([Kind.ACCEPT, 6, b"g" * 16, 3, b"s" * 64], version=6)
    # What the accepting peer signs is never what a dialer signs on the same channel: not reflectable.
    binding, game = b"t" * 32, b"g" * 16
    accepted = secure.accept_proof_data(binding, game, 3)
    assert accepted not in {secure.peer_proof_data(binding, game, 3), secure.rejoin_proof_data(binding, game, 3)}
    assert accepted != secure.accept_proof_data(binding, game, 2) != secure.accept_proof_data(b"u" * 32, game, 2)


@pytest.mark.parametrize("forged", [False, True], ids=["no proof", "another key's proof"])
def test_a_dialer_forming_the_mesh_refuses_an_impostor_at_a_peers_address(forged: bool) -> None:
    """Bob (peer 1) joined, then something else that knows the PIN took his port before the start.
    Cy (peer 2) dials peer 1 there: it answers without Bob's key proof (``forged``: with one made
    with another key) and replays Bob's start record signature (not bound to a channel: every peer
    gets it), which alone would pass. Cy refuses it: no mesh with an impostor for peer 1."""
    asyncio.run(asyncio.wait_for(_impostor_at_mesh_formation(forged), 30))


async def _impostor_at_mesh_formation(forged: bool) -> None:
    lobby = HostLobby(PeerConfig("Ada", [ADDR], pin=PIN, handshake_timeout=2), 3, 3, "classic", Rules().to_dict())
    port = await lobby.open()
    bob = MeshJoiner(PeerConfig("Bob", [ADDR], pin=PIN, handshake_timeout=2))
    cy = MeshJoiner(PeerConfig("Cy", [ADDR], pin=PIN, handshake_timeout=2))
    bob_joins = asyncio.create_task(bob.join(ADDR, port, lobby_timeout=10))
    while lobby.taken < 2:
        await asyncio.sleep(0.01)
    await bob.listener.close()  # Bob's port is free: the impostor takes it
    hellos: list[PeerHello] = []

    async def impostor(conn: FramedConnection, message: Message) -> bool:
        assert isinstance(message, PeerHello) and bob._start is not None
        hellos.append(message)
        game = bob._start.game_id
        if forged:
            fake = Ed25519PrivateKey.generate().sign(secure.accept_proof_data(conn.binding, game, 1))
            await conn.send(Accept(game, 1, fake).to_wire())
        # Bob's START_ACK signature, as every peer receives it (Ed25519 signatures are deterministic).
        digest = start_hash(pack(bob._start.to_wire()))
        await conn.send(StartAck(game, digest, bob.config.sign_key.sign(secure.start_sig_data(digest))).to_wire())
        return True

    async def game_id() -> bytes:
        return lobby.game_id

    squatter = Listener(impostor, [ADDR], bob.listener.port, 2, secure.normalize_pin(PIN), game_id)
    await squatter.start()
    cy_joins = asyncio.create_task(cy.join(ADDR, port, lobby_timeout=10))
    await lobby.wait_full(5)
    host, bob_result, cy_result = await asyncio.gather(lobby.start(), bob_joins, cy_joins, return_exceptions=True)
    await squatter.close()
    assert [h.index for h in hellos] == [2]  # Cy reached the impostor...
    assert isinstance(cy_result, MeshError), cy_result  # ...and refused it
    assert "peer 1 (Bob) did not prove its key" in str(cy_result)
    assert isinstance(host, MeshError) and isinstance(bob_result, MeshError)  # no game without Cy
