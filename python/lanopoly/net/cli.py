"""``lanopoly host``, ``join``, ``list``, ``rejoin``, ``resume`` and ``verify``: LAN play without the console.

Wire into the main parser with ``add_commands(subparsers)`` and dispatch with ``run(args)``
(``args.net_command`` is set for these commands). The host prints the game PIN (6 random digits
unless ``--pin`` sets one) and its key's fingerprint; every joiner needs the PIN (``--pin``). The
PIN never goes into the mDNS advertisement: players pass it on by voice. Every seat is played by a
SimpleBot on the peer that controls it: the host plays its own seat and the seats no joiner took,
each joiner its own.

Exit codes: 0 game over with every peer agreeing (for ``rejoin``/``resume``, also a saved game that was
over already: it says who won and dials nobody), 1 setup failed (lobby, links, interfaces, files),
3 the session froze (a desync report is written). ``verify`` says first what the file proves, with
its own exit codes (``net/verdict.py``): 0 a complete signed game, 1 verification failed (the step
and the reason, on stderr), 3 an unfinished signed game, 4 an unsigned log (only its hash chain).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lanopoly._core import Rules, boards
from lanopoly.arguments import BID_TIMER, PORT, ROUNDS, SEATS, seconds
from lanopoly.bots import Policy, SimpleBot
from lanopoly.describe import describe
from lanopoly.net import reason
from lanopoly.net.core import effects as fx
from lanopoly.net.core.lobby import MAX_NAME
from lanopoly.net.core.outcome import SessionResult
from lanopoly.net.core.pinauth import normalize_pin
from lanopoly.net.core.session import Config, Session
from lanopoly.net.desync import write_report
from lanopoly.net.discovery import (
    BackgroundAdvert,
    Lobby,
    LobbyAd,
    LobbyAdvertiser,
    advertised_addresses,
    list_lobbies,
    make_zeroconf,
    service_type,
)
from lanopoly.net.driver import Driver
from lanopoly.net.genesis import StartRecord
from lanopoly.net.hosting import HostLobby, Joining, SetupError, Started, new_pin
from lanopoly.net.interfaces import InterfaceConfigError, configured_interfaces, parse_interfaces
from lanopoly.net.play import driver_for, play, rebuild, restart
from lanopoly.net.protocol import VOTE_CHOICES
from lanopoly.net.store import StoreError, write_atomic
from lanopoly.net.text import name_field
from lanopoly.net.verdict import EXIT_CODES_HELP, Kind, judge_file
from lanopoly.net.wire import WireError

log = logging.getLogger(__name__)

EXIT_OK, EXIT_SETUP, EXIT_FROZEN = 0, 1, 3


def _name(text: str) -> str:
    """``--name``: what every peer shows, so checked as they check it (``text.name_field``)."""
    try:
        return name_field(text, "name", MAX_NAME)
    except WireError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a name has 1 to {MAX_NAME} printable characters, without spaces around them"
        ) from None


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", type=_name, default=None, help="your seat's name (default: host / guest)")
    p.add_argument(
        "--interfaces",
        default=None,
        help="comma-separated IPv4 addresses to listen and discover on (default: $LANOPOLY_INTERFACES, else all)",
    )
    p.add_argument("--save", type=Path, default=None, help="save the game here, continuously (JSON; see rejoin)")
    p.add_argument("--report-dir", type=Path, default=Path("."), help="where a desync report goes (default: .)")
    p.add_argument("--result", type=Path, default=None, help="write the outcome as JSON here (for scripts)")
    p.add_argument("--timeout", type=seconds, default=600.0, help="seconds to wait in the lobby (default 600)")
    p.add_argument("--step-timeout", type=seconds, default=30.0, help="seconds to wait for a peer in a step")
    p.add_argument(
        "--rejoin-timeout",
        type=seconds,
        default=300.0,
        help="seconds to wait for a peer that dropped to come back (`lanopoly rejoin`) before the game stops",
    )
    p.add_argument(
        "--replace-after",
        type=seconds,
        default=None,
        help="vote to remove a peer that dropped (or stays silent) after this many seconds; the change is made"
        " when every other peer commits to the same vote (with two peers, the other's seats resign)",
    )
    p.add_argument(
        "--replace-with",
        choices=VOTE_CHOICES,
        default=None,
        help="what --replace-after votes for: 'bot' plays the peer's seats, 'bank' resigns them and the bank"
        " takes their assets (default bot). The host's choice goes into the start record and every peer"
        " votes it (a joiner's is only compared with it)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="print what happens in the game")
    p.add_argument("--log-level", default="WARNING", help="logging level on stderr (default WARNING)")


def add_commands(subparsers: Any) -> None:
    """Add ``host``, ``join``, ``list``, ``rejoin``, ``resume`` and ``verify`` to an argparse subparsers object."""
    host = subparsers.add_parser("host", help="host a LAN game: open a lobby, wait for peers, play")
    _common(host)
    host.add_argument("--peers", type=SEATS, default=2, help="peers in the game, this one included (2-8)")
    host.add_argument("--players", type=SEATS, default=4, help="seats (2-8); seats no peer takes are bots")
    host.add_argument(
        "--board", default=None, choices=boards(), help="default: classic (console: the language's, as for play)"
    )
    host.add_argument("--rules", default="official", choices=Rules.presets())
    host.add_argument("--rounds", type=ROUNDS, default=0, help="round limit (0 = the preset's)")
    host.add_argument("--table", default=None, help="the lobby's name on the network")
    host.add_argument("--port", type=PORT, default=0, help="TCP port (default: any free port)")
    host.add_argument("--no-advertise", action="store_true", help="do not advertise the lobby (join by address)")
    host.add_argument("--pin", default=None, help="the game PIN (default: 6 random digits, printed)")
    host.add_argument(
        "--bid-timer",
        type=BID_TIMER,
        default=0,
        metavar="SECONDS",
        help="auctions: each console passes for its person after SECONDS without a new bid (0: off, the default)",
    )
    host.add_argument(
        "--ready-file",
        type=Path,
        default=None,
        help="write {host, port, game_id, pin, fingerprint} here once open (mode 0600: it holds the PIN)",
    )
    host.set_defaults(net_command="host")

    join = subparsers.add_parser("join", help="join a LAN game by HOST:PORT or by lobby name or game id")
    _common(join)
    join.add_argument(
        "target",
        nargs="?",
        default=None,
        help="HOST:PORT, or the start of a lobby's name, game id or host key (see `lanopoly list`);"
        " the console lists the lobbies found when it is left out",
    )
    join.add_argument("--pin", default=None, help="the game PIN the host shows (the console asks for it)")
    join.add_argument("--browse-seconds", type=seconds, default=3.0, help="how long to look for a named lobby")
    join.set_defaults(net_command="join")

    lst = subparsers.add_parser("list", help="list the games being hosted on the LAN")
    lst.add_argument("--seconds", type=seconds, default=3.0, help="how long to listen (default 3)")
    lst.add_argument("--interfaces", default=None, help="comma-separated IPv4 addresses to discover on")
    lst.add_argument("--json", action="store_true", help="one JSON object per lobby")
    lst.set_defaults(net_command="list")

    for name, text in (
        ("rejoin", "take your seat again in a LAN game you dropped out of, from the game it saved (--save)"),
        ("resume", "restart a stopped LAN game with the same players: each runs this with the game it saved"),
    ):
        back = subparsers.add_parser(name, help=text)
        _common(back)
        back.add_argument(
            "file", type=Path, help="the game this peer saved with --save (FILE.journal, FILE.secret next to it)"
        )
        back.set_defaults(net_command=name)

    ver = subparsers.add_parser(
        "verify",
        help="verify a saved game offline: every state hash, and for a LAN game signatures and reveals",
        description="Verify a saved game offline and say what it proves: a complete signed game, an unfinished"
        " signed game (where it ends, and why if the record says), or an unsigned log (hash chain only).",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ver.add_argument("file", type=Path, help="a game saved with --save (or by `lanopoly --save`)")
    ver.add_argument("--json", action="store_true", help="print the verdict as one JSON object")
    ver.set_defaults(net_command="verify")


def _interfaces(args: argparse.Namespace) -> list[str] | None:
    if getattr(args, "interfaces", None):
        return parse_interfaces(str(args.interfaces))
    return configured_interfaces()


def _config(args: argparse.Namespace) -> Config:
    return Config(step_timeout=args.step_timeout, rejoin_timeout=args.rejoin_timeout, replace_after=args.replace_after)


def _bots(record: StartRecord, me: int) -> Mapping[int, Policy | None]:
    return {seat: SimpleBot() for seat in record.seats_of(me)}


def _watch(args: argparse.Namespace, core: Session) -> Any:
    """What the command prints as the game goes (``-v``), and the desync report when it freezes."""

    def on_event(event: fx.Event) -> None:
        if isinstance(event, fx.StepApplied) and args.verbose:
            for e in event.events:
                line = describe(core.game, e)
                if line:
                    print(("" if line.startswith("--") else "   ") + line, flush=False)
        elif isinstance(event, fx.Frozen) and args.report_dir:
            path = write_report(args.report_dir, core, event.info)
            if path is not None:
                print(f"desync report: {path}", file=sys.stderr)

    return on_event


def _report(args: argparse.Namespace, core: Session, result: SessionResult) -> int:
    game = core.game
    if result.outcome == "over":
        winner = game.names[result.winner] if result.winner is not None else "nobody"
        print(f"game over after {result.step} steps: {winner} wins; final hash {result.state_hash.hex()}")
    else:
        assert result.freeze is not None
        print(f"session frozen at step {result.freeze.step}: {result.freeze.reason}", file=sys.stderr)
    for fault in result.faults:
        print(f"fault at step {fault.step}: {core.peer_label(fault.peer)}: {fault.detail}", file=sys.stderr)
    if args.save:
        print(f"game saved to {args.save} (lanopoly verify / rejoin {args.save})")
    if args.result:
        data = result.to_json() | {"me": core.me, "game_id": core.game_id.hex()}
        args.result.write_text(json.dumps(data, indent=1), encoding="utf-8")
    sys.stdout.flush()
    return EXIT_OK if result.outcome == "over" else EXIT_FROZEN


async def _play(args: argparse.Namespace, started: Started, interfaces: list[str] | None) -> int:
    record = started.genesis.record
    mine = [record.names[s] for s in record.seats_of(started.me)]
    print(
        f"game {record.game_id.hex()} starts: {', '.join(record.names)} ({len(record.peers)} peers); "
        f"this peer plays {', '.join(mine)}",
        flush=True,
    )
    driver = driver_for(started, _bots, _config(args), save=args.save, interfaces=interfaces)
    result = await play(driver, started, _watch(args, driver.core))
    return _report(args, driver.core, result)


def _write_ready(path: Path, ready: dict[str, Any]) -> None:
    """The ready file holds the PIN: written whole (then renamed) and readable by its owner only."""
    write_atomic(path, json.dumps(ready), private=True)


async def host_main(args: argparse.Namespace) -> int:
    """``lanopoly host``: open a lobby, wait for the peers, start, play; returns the exit code."""
    interfaces = _interfaces(args)
    name = args.name or "host"
    if args.peers > args.players:  # each is 2 to 8 already (``SEATS``)
        print(f"{args.peers} peers need at least as many seats, not {args.players}", file=sys.stderr)
        return EXIT_SETUP
    pin = args.pin or new_pin()
    try:
        normalize_pin(pin)
    except ValueError as e:
        print(f"bad --pin: {e}", file=sys.stderr)
        return EXIT_SETUP
    rules = Rules.preset(args.rules, **({"round_limit": args.rounds} if args.rounds else {}))
    aiozc = None if args.no_advertise else make_zeroconf(interfaces)
    advert: BackgroundAdvert | None = None

    def changed(roster: list[str]) -> None:
        if advert is not None:
            advert.update(seats_taken=len(roster), state="full" if len(roster) >= args.peers else "open")

    lobby = HostLobby(
        name,
        args.peers,
        args.players,
        args.board,
        dict(rules.to_dict()),
        pin,
        interfaces=interfaces,
        port=args.port,
        replace_with=args.replace_with or "bot",
        bid_timer=args.bid_timer,
        on_change=changed,
    )
    try:
        try:
            port = await lobby.open()
        except OSError as e:
            print(f"cannot listen on port {args.port}: {e.strerror or e}", file=sys.stderr)
            return EXIT_SETUP
        address = advertised_addresses(interfaces)[0]
        gid = lobby.game_id.hex()
        if aiozc is not None:
            table = args.table or f"{name}'s table"
            ad = LobbyAd(table, gid, 1, args.players, args.rules, args.board, fingerprint=lobby.fingerprint)
            advert = BackgroundAdvert(
                LobbyAdvertiser(aiozc, ad, advertised_addresses(interfaces), port, service_type())
            )
        print(f"lobby open at {address}:{port}, game {gid}; waiting for {args.peers - 1} more peer(s)", flush=True)
        print(f"game PIN: {pin}  (tell it to the other players: lanopoly join ... --pin {pin})", flush=True)
        print(
            f"host key: {lobby.fingerprint}  (players check that `lanopoly list` shows it beside this lobby)",
            flush=True,
        )
        if args.ready_file:
            ready = {"host": address, "port": port, "game_id": gid, "pin": pin, "fingerprint": lobby.fingerprint}
            _write_ready(args.ready_file, ready)
        try:
            await lobby.wait_full(args.timeout)
        except TimeoutError:
            print(f"nobody else joined within {args.timeout:g} s", file=sys.stderr)
            await lobby.close()
            return EXIT_SETUP
        if advert is not None:
            advert.update(state="playing")
        try:
            started = await lobby.start()
        except SetupError as e:
            print(f"could not start: {e}", file=sys.stderr)
            await lobby.close()
            return EXIT_SETUP
        return await _play(args, started, interfaces)
    finally:
        if advert is not None:
            await advert.close()
        if aiozc is not None:
            await aiozc.async_close()


MAX_JOIN_TRIES = 8
"""Adverts of the lobby named that ``join`` tries in turn, at most (see ``join_main``)."""


async def _find_lobbies(target: str, seconds: float, interfaces: list[str] | None) -> list[Lobby]:
    """The lobbies seen within ``seconds`` whose name, game id or host key starts with ``target``."""
    lower = target.lower()
    return [
        lobby
        for lobby in await list_lobbies(seconds, interfaces)
        if lobby.addresses
        and (lobby.table.startswith(target) or lobby.game_id.startswith(lower) or lobby.fingerprint.startswith(lower))
    ]


def _split_address(target: str) -> tuple[str, int] | None:
    host, sep, port = target.rpartition(":")
    if sep and host and port.isdigit() and 0 < int(port) < 65536:
        return host, int(port)
    return None


async def join_main(args: argparse.Namespace) -> int:
    """``lanopoly join``: join by address or discovered name, then play; returns the exit code."""
    if not args.target or args.pin is None:  # the console asks for them; a script must give them
        print("lanopoly join: outside a terminal (or with --bots) give TARGET and --pin", file=sys.stderr)
        return EXIT_SETUP
    interfaces = _interfaces(args)
    address = _split_address(args.target)
    targets: list[tuple[str, int, bytes, str | None]]
    if address is None:
        found = await _find_lobbies(args.target, args.browse_seconds, interfaces)
        if not found:
            print(f"no lobby named {args.target!r} found (try `lanopoly list`)", file=sys.stderr)
            return EXIT_SETUP
        if len({(lobby.game_id, lobby.fingerprint) for lobby in found}) > 1:  # never pick one at random
            print(f"{len(found)} lobbies match {args.target!r}; name one by its host key or game id:", file=sys.stderr)
            for lobby in found:
                print(f"  {lobby.table}  host key {lobby.fingerprint}  game {lobby.game_id}", file=sys.stderr)
            return EXIT_SETUP
        # Adverts of one lobby (one game id, one host key), or a copy of its advert elsewhere: only
        # the host can prove the key, so each is tried in turn (a copy cannot keep a joiner out).
        targets = [(lobby.addresses[0], lobby.port, bytes.fromhex(lobby.game_id), lobby.fingerprint) for lobby in found]
    else:
        targets = [(address[0], address[1], b"", None)]
    try:
        normalize_pin(args.pin)
    except ValueError as e:
        print(f"bad --pin: {e}", file=sys.stderr)
        return EXIT_SETUP
    failures: list[str] = []
    for host, port, game_id, expected in targets[:MAX_JOIN_TRIES]:
        joining = Joining(host, port, args.name or "guest", args.pin, interfaces, game_id, expected)
        try:
            async with asyncio.timeout(args.timeout):
                started = await joining.run()
            break
        except (SetupError, TimeoutError) as e:
            why = "timed out in the lobby" if isinstance(e, TimeoutError) else reason(e)
            why = why.removeprefix("could not join: ")
            failures.append(why if len(targets) == 1 else f"{host}:{port}: {why}")
    else:
        print(f"could not join: {'; '.join(failures)}", file=sys.stderr)
        return EXIT_SETUP
    print(f"joined the lobby of host key {joining.fingerprint}", flush=True)
    replace_with = started.genesis.record.replace_with
    if args.replace_with not in (None, replace_with):
        print(
            f"note: the host chose --replace-with {replace_with} for this game: every peer votes that", file=sys.stderr
        )
    return await _play(args, started, interfaces)


async def rejoin_main(args: argparse.Namespace) -> int:
    """``lanopoly rejoin FILE`` / ``resume FILE``: rebuild from the journal, link to every peer, catch up, play."""
    interfaces = _interfaces(args)
    try:
        rebuilt = rebuild(args.file, _bots, _config(args))
    except (StoreError, OSError) as e:
        print(f"could not {args.net_command}: {e}", file=sys.stderr)
        return EXIT_SETUP
    core = rebuilt.core
    if core.game.is_over:  # nothing to play: no port is opened, no peer dialed, nothing written
        game = core.game
        winner = game.names[game.winner] if game.winner is not None else "nobody"
        print(
            f"game {core.game_id.hex()} is over already, after {game.step} steps: {winner} won; "
            f"nothing to {args.net_command}"
        )
        return EXIT_OK
    try:
        driver, gate = await restart(rebuilt, interfaces=interfaces)
    except OSError as e:
        print(f"could not {args.net_command}: {e}", file=sys.stderr)
        return EXIT_SETUP
    print(f"{args.net_command} game {core.game_id.hex()} at step {core.game.step}", flush=True)
    args.save = args.file
    driver.subscribe(_watch(args, core))
    try:
        result = await driver.run()
    finally:
        await gate.close()
    return _report(args, core, result)


async def list_main(args: argparse.Namespace) -> int:
    """``lanopoly list``: print the lobbies seen within ``--seconds``."""
    lobbies = await list_lobbies(args.seconds, _interfaces(args))
    for lobby in lobbies:
        if args.json:
            print(json.dumps(lobby.__dict__ | {"address": lobby.address}))
        else:
            print(
                f"{lobby.table:<30} {lobby.address:<22} {lobby.seats_taken}/{lobby.seats_total} seats  "
                f"{lobby.state:<8} {lobby.rules} on {lobby.board}  host key {lobby.fingerprint}  game {lobby.game_id}"
            )
    if not lobbies and not args.json:
        print("no games found", file=sys.stderr)
    return EXIT_OK


def verify_main(args: argparse.Namespace) -> int:
    """``lanopoly verify FILE``: what the file proves, first; the exit code says it too (``net/verdict.py``)."""
    verdict = judge_file(Path(args.file))
    if args.json:
        print(json.dumps({"file": str(args.file)} | verdict.to_json()))
        return verdict.exit_code
    print(f"{args.file}: {verdict.headline()}", file=sys.stderr if verdict.kind is Kind.FAILED else sys.stdout)
    if verdict.verified is not None:
        print(f"{args.file}: checked: {verdict.verified.summary()}")
    return verdict.exit_code


def run(args: argparse.Namespace) -> int:
    """Run the command parsed by ``add_commands``; returns the exit code."""
    logging.basicConfig(
        level=getattr(args, "log_level", "WARNING").upper(),
        format="%(asctime)s %(name)s %(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        if args.net_command == "host":
            args.board = args.board or "classic"  # as a game printed outside the console
            return asyncio.run(host_main(args))
        if args.net_command == "join":
            return asyncio.run(join_main(args))
        if args.net_command in ("rejoin", "resume"):
            return asyncio.run(rejoin_main(args))
        if args.net_command == "list":
            return asyncio.run(list_main(args))
        if args.net_command == "verify":
            return verify_main(args)
    except InterfaceConfigError as e:
        print(e, file=sys.stderr)
        return EXIT_SETUP
    raise ValueError(f"unknown command {args.net_command!r}")


def main(argv: list[str] | None = None) -> int:
    """A stand-alone entry point (``python -m lanopoly.net.cli host ...``)."""
    parser = argparse.ArgumentParser(prog="lanopoly")
    add_commands(parser.add_subparsers(required=True))
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Driver", "add_commands", "main", "run"]
