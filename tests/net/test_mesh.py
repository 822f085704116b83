"""The lobby handshake over real sockets: a full lobby and a wrong game id are refused with a reason."""

from __future__ import annotations

import asyncio

import pytest

from lanopoly import Rules
from lanopoly.net.mesh import HostLobby, MeshError, MeshJoiner, PeerConfig

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
