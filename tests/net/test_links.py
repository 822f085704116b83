"""A link keeps what the other end said before it went away (``streams.py``, ``links.py``)."""

from __future__ import annotations

import asyncio
import select
import socket

import pytest

from lanopoly.net import links
from lanopoly.net.wire import frame


def _wait_for(sock_fd: int, events: int) -> None:
    """Block until the kernel reports ``events`` on the socket (the event loop does not run meanwhile,
    so nothing reads it): the test's order of events is the kernel's, not a timer's."""
    poller = select.poll()
    poller.register(sock_fd, events)
    assert poller.poll(10_000), "the kernel never reported the event"


def test_a_write_to_a_peer_that_exited_does_not_lose_what_it_sent_before() -> None:
    """A peer sends its last frame (a FREEZE) and exits; this end, which had not read yet (its process
    was stopped), writes first: the other end's kernel answers with a reset and the next write fails.
    asyncio's transport then stopped reading and its reader raised the error before the frame the
    kernel still held: a peer stopped past the step timeout found the others gone instead of learning
    why they froze (1 run in 10 of ``test_games.py``'s SIGSTOP test)."""

    async def main() -> None:
        server = socket.create_server(("127.0.0.1", 0))
        with server:
            conn = await links.connect("127.0.0.1", server.getsockname()[1])
            other, _ = server.accept()
            other.sendall(frame(b"FREEZE: peer 1 silent for 3 s", links.HANDSHAKE_CAP))
            other.close()  # a graceful close (nothing unread there): the FIN follows the frame
            fd = conn.writer.get_extra_info("socket").fileno()
            _wait_for(fd, select.POLLRDHUP)
            conn.send(b"an ack this end owed")  # reaches a closed socket: its kernel resets the connection
            _wait_for(fd, select.POLLHUP)
            conn.send(b"a second one")  # fails (the connection was reset): asyncio gives it up
            assert conn.closed
            assert await conn.recv(5) == b"FREEZE: peer 1 silent for 3 s"
            with pytest.raises(links.LinkClosed, match="connection broke"):
                await conn.recv(5)
            await conn.close()

    asyncio.run(main())


def test_a_reset_after_the_last_frame_does_not_lose_it() -> None:
    """The other end resets the connection right after its last frame (it closed with bytes of this
    end unread: its kernel sends a reset, not a FIN): the frame is still read, then the break."""

    async def main() -> None:
        server = socket.create_server(("127.0.0.1", 0))
        with server:
            conn = await links.connect("127.0.0.1", server.getsockname()[1])
            other, _ = server.accept()
            conn.send(b"never read by the other end")
            _wait_for(other.fileno(), select.POLLIN)
            other.sendall(frame(b"FREEZE", links.HANDSHAKE_CAP))
            other.close()  # bytes unread there: a reset
            _wait_for(conn.writer.get_extra_info("socket").fileno(), select.POLLHUP)
            conn.send(b"an ack")  # fails at once: the connection was reset
            assert await conn.recv(5) == b"FREEZE"
            with pytest.raises(links.LinkClosed, match="connection broke"):
                await conn.recv(5)
            await conn.close()

    asyncio.run(main())


def test_a_send_on_a_link_the_other_end_ended_leaves_the_link_to_its_reader() -> None:
    """The driver's send to a peer whose connection already ended fails: the link stays until its
    reader has read what that peer sent before the end (its FREEZE), which then reports the end. The
    driver dropped the link at the failed send, cancelling its reader: the FREEZE in the kernel was
    never read, and the peer stopped past the step timeout found that peer "dropped"."""
    from lanopoly.net.core import effects as fx
    from lanopoly.net.driver import _Link

    from .inproc import drivers, set_up

    class Ended:
        """A connection the other end closed: nothing can be sent; what came is still to be read."""

        closed = True

        def send(self, payload: bytes) -> None:
            raise links.LinkClosed("connection to 127.0.0.1:1 is closed")

        async def close(self) -> None:
            pass

    async def main() -> None:
        started = await set_up(2, rounds=1)
        driver = drivers(started, None)[1]
        link = _Link(Ended(), 0)  # type: ignore[arg-type]
        driver.links[0] = link
        driver.apply([fx.Send(0, b"an ack")])
        assert driver.links.get(0) is link
        assert 0 not in driver.core.away
        driver.links.clear()
        for s in started:
            for conn, _ in s.links.values():
                await conn.close()
            await s.gate.close()

    asyncio.run(main())


def test_a_game_link_read_by_push_does_not_lose_the_frame_before_a_reset() -> None:
    """The same break on a game link read by push (``Conn.deliver``): the frame the other end sent
    before it exited is handed on, then the end; the reset must not make the feed give up the bytes
    the kernel still holds."""
    from lanopoly.net.cipher import Cipher

    async def main() -> None:
        server = socket.create_server(("127.0.0.1", 0))
        with server:
            conn = await links.connect("127.0.0.1", server.getsockname()[1])
            conn.secure(Cipher(b"a" * 32, b"b" * 32))
            other, _ = server.accept()
            payloads: list[bytes] = []
            ends: list[str] = []
            ended = asyncio.Event()

            def closed(why: str) -> None:
                ends.append(why)
                ended.set()

            conn.deliver(lambda p: payloads.append(p) is None, closed)
            started = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_soon(started.set_result, None)
            await started  # deliver starts on the loop's next pass, before this
            conn.writer.transport.pause_reading()  # this end's process is stopped: it reads nothing
            conn.send(b"never read by the other end")
            _wait_for(other.fileno(), select.POLLIN)
            other.sendall(frame(Cipher(b"b" * 32, b"a" * 32).seal(b"FREEZE"), links.GAME_CAP))
            other.close()  # bytes unread there: a reset
            _wait_for(conn.writer.get_extra_info("socket").fileno(), select.POLLHUP)
            conn.send(b"an ack")  # fails at once: the connection was reset
            async with asyncio.timeout(10):  # a guard against a hang, never a wait for time to pass
                await ended.wait()
            assert payloads == [b"FREEZE"]
            assert len(ends) == 1 and "broke" in ends[0]
            await conn.close()

    asyncio.run(main())
