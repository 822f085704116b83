"""The `lanopoly` command: the console in a terminal, else a game of bots printed as it goes.

lanopoly                      # the console (in a terminal); else 4 bots, classic board, official rules
lanopoly --players 3 --board paris --rules paris-quick --seed 7
lanopoly replay game.json     # a saved game on the board, every state hash checked (--verify-only: check only)
lanopoly watch --seed 7       # bots play a game, shown on the board (in a terminal)
lanopoly host / join ...      # a LAN game: the console's lobby screens in a terminal, else bots (--bots)
lanopoly rejoin FILE          # back into a LAN game: the console in a terminal, else bots (--bots)
lanopoly verify FILE          # what a saved game proves: complete and signed (0), unfinished (3), unsigned (4)
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from lanopoly._core import Bot, Game, Rules, boards, square_names
from lanopoly._core import bots as bot_names
from lanopoly.arguments import ROUNDS, SEATS, bounded, carry_over
from lanopoly.bots import DIFFICULTIES, SimpleBot, claim_out_of_turn
from lanopoly.describe import Event, describe_events
from lanopoly.i18n import LANGUAGES
from lanopoly.log import GameLog, ReplayMismatch

if TYPE_CHECKING:
    from lanopoly.console import Setup
    from lanopoly.console.prefs import Prefs


def play(args: argparse.Namespace) -> int:
    """Play one game of simple bots to the end, printing the log."""
    play_log(args, sys.stdout)
    return 0


def play_log(args: argparse.Namespace, out: TextIO, names: Sequence[str] = ()) -> GameLog:
    """One game of simple bots played to the end, its log printed to ``out``; its game log. The
    players are ``names`` (as many as ``args.players``), else the edition's tokens."""
    rules = Rules.preset(args.rules, **({"round_limit": args.rounds} if args.rounds else {}))
    players = list(names)[: args.players] if names else args.players
    game = Game(players, board=args.board, rules=rules, seed=args.seed)
    log = GameLog.start(game)
    bots = [SimpleBot() for _ in range(game.num_players)]

    def show(events: Sequence[Event]) -> None:
        if args.quiet:
            return
        for line in describe_events(game, events):
            print(("" if line.startswith("--") else "   ") + line, file=out)

    print(f"lanopoly: {', '.join(game.names)} on the {game.board} board ({args.rules} rules).", file=out)
    policies = dict(enumerate(bots))
    while not game.is_over:
        claim = claim_out_of_turn(game, policies)  # a bot owed rent claims it, out of turn
        if claim is not None:
            action = claim
        elif game.is_chance_node:
            action = game.sample_chance()
        else:
            seat = game.current_player
            assert seat is not None
            action = bots[seat].choose(game, seat, game.legal_actions(seat))
        events = game.apply(action)
        log.record(action, game)
        show(events)
    winner = game.winner
    assert winner is not None
    print(f"\n{game.names[winner]} wins after {game.round} rounds ({game.step} steps).", file=out)
    for seat in range(game.num_players):
        p = game.player(seat)
        status = "bankrupt" if p["bankrupt"] else f"net worth {game.currency}{p['net_worth']}"
        print(f"  {p['name']:<12} {status}", file=out)
    if args.save:
        log.save(args.save)
        print(f"Log saved to {args.save} (replay it with: lanopoly replay {args.save}).", file=out)
    return log


def console(args: argparse.Namespace) -> int:
    """Play in the full-screen console: the start screen first unless --players, --host or
    --join was given, with what was chosen last time unless the command line says otherwise."""
    from lanopoly.console import play_console, prefs

    mode = "host" if getattr(args, "host", False) else "join" if getattr(args, "join", None) is not None else "solo"
    remembered = prefs.load()
    setup = console_setup(args, remembered, mode)
    ask = args.players is None and setup.mode == "solo"
    address: str = getattr(args, "join", None) or ""
    pin: str = getattr(args, "pin", None) or ""
    lan: dict[str, Any] = {"address": address, "pin": pin} if address or pin else {}
    if args.save:
        lan["save"] = Path(args.save)  # where the console saves the game (default: its folder)
    notice = prefs.told(remembered.problems, setup.lang)  # in the language the console opens in
    return play_console(setup, ask=ask, seed=args.seed, rounds=args.rounds, notice=notice, **lan)


def console_setup(args: argparse.Namespace, remembered: Prefs, mode: str = "solo") -> Setup:
    """The console's setup: the command line's options, else what the person chose last time
    (``remembered``), else the defaults (the language from the system locale, its board)."""
    from lanopoly.console import Setup
    from lanopoly.i18n import detect

    lang = args.lang or remembered.lang or detect()
    players = args.players or (remembered.bots + 1 if remembered.bots else 4)
    return Setup(
        name=args.name or remembered.name or "",
        token=remembered.token or 0,
        bots=max(1, min(7, players - 1)),
        difficulty=args.difficulty or remembered.difficulty or "normal",
        board=console_board(args, remembered, lang),
        rules=args.rules or remembered.rules or "official",
        lang=lang,
        bid_timer=remembered.bid_timer or 0,
        mode=mode,
    )


def console_board(args: argparse.Namespace, remembered: Prefs, lang: str) -> str:
    """The board of a console game, hosted or not: the command line's, else the one chosen last
    time in the same language, else the language's (French: Paris; `host` gave classic)."""
    from lanopoly.i18n import default_board

    return args.board or (remembered.board if remembered.lang in (None, lang) else None) or default_board(lang)


def continue_command(args: argparse.Namespace, interactive: bool) -> int:
    """``lanopoly continue [FILE]``: the console on a game against bots left unfinished, by default
    the last one it saved."""
    from lanopoly.console import Setup, play_console
    from lanopoly.console.saves import games_dir, last_local, shown_path
    from lanopoly.i18n import detect

    if not interactive:
        print("lanopoly continue: a game against bots is played in a terminal", file=sys.stderr)
        return 2
    path = Path(args.file) if args.file else None
    if path is None:
        last = last_local()
        if last is None:
            print(f"lanopoly continue: no unfinished game against bots in {shown_path(games_dir())}", file=sys.stderr)
            return 1
        path = last.path
    return play_console(Setup(lang=args.lang or detect(), mode="continue", saved=path), ask=False)


def console_rejoin(args: argparse.Namespace) -> int:
    """``lanopoly rejoin FILE`` / ``resume FILE`` in a terminal: take the seat again in the saved
    LAN game and play it in the console (the bots of this peer keep their seats)."""
    import asyncio

    from lanopoly.console import DIFFICULTIES, play_saved, quiet_logs
    from lanopoly.i18n import detect
    from lanopoly.net.interfaces import configured_interfaces, parse_interfaces

    quiet_logs()
    interfaces = parse_interfaces(args.interfaces) if args.interfaces else configured_interfaces()
    return asyncio.run(
        play_saved(
            args.file,
            resume_all=args.net_command == "resume",
            bot=DIFFICULTIES[args.difficulty],
            lang=args.lang or detect(),
            interfaces=interfaces,
            rejoin_timeout=args.rejoin_timeout,
        )
    )


def console_lan(args: argparse.Namespace) -> int:
    """``lanopoly host`` / ``join`` in a terminal: the console's lobby screen (hosting, or the
    lobbies found on the network with the target picked), then the game; this peer's other seats
    are bots of ``--difficulty``."""
    from lanopoly.console import LanOptions, Setup, play_console, prefs
    from lanopoly.console.lobby import split_address
    from lanopoly.i18n import default_board, detect
    from lanopoly.net.interfaces import InterfaceConfigError, parse_interfaces

    remembered = prefs.load()  # the name and language chosen last time, unless given here
    lang = args.lang or remembered.lang or detect()
    try:
        chosen = parse_interfaces(args.interfaces) if args.interfaces else None
    except InterfaceConfigError as e:
        print(f"lanopoly {args.net_command}: {e}", file=sys.stderr)
        return 1
    interfaces = tuple(chosen) if chosen is not None else None
    hosting = args.net_command == "host"
    setup = Setup(
        name=args.name or remembered.name or "",
        token=remembered.token or 0,
        bots=max(1, min(7, args.players - 1)) if hosting else 3,
        difficulty=args.difficulty,
        board=console_board(args, remembered, lang) if hosting else default_board(lang),
        rules=args.rules if hosting else "official",
        lang=lang,
        mode=args.net_command,
    )
    target = "" if hosting else (args.target or "")
    address = target if split_address(target) else ""
    lan = LanOptions(
        port=args.port if hosting else 0,
        advertise=not args.no_advertise if hosting else True,
        table=(args.table or "") if hosting else "",
        choose="" if address else target,
        interfaces=interfaces,
        rejoin_timeout=args.rejoin_timeout,
        bid_timer=args.bid_timer if hosting else 0,
    )
    save = Path(args.save) if args.save else None
    rounds = args.rounds if hosting else 0
    notice = prefs.told(remembered.problems, lang)  # what was wrong with the file, as `lanopoly` tells it
    pin = args.pin or ""
    return play_console(setup, ask=False, rounds=rounds, address=address, pin=pin, save=save, lan=lan, notice=notice)


def replay(args: argparse.Namespace) -> int:
    """Replay a saved log, verifying the state hash after every step."""
    try:
        log = GameLog.load(args.file)
    except (OSError, ValueError) as e:
        print(f"lanopoly replay: cannot read {args.file}: {e}", file=sys.stderr)
        return 2
    try:
        game = log.replay()
    except ReplayMismatch as e:
        print(f"replay failed at {e}", file=sys.stderr)
        return 1
    print(f"{len(log.inputs)} steps replayed, every state hash matches; final hash {game.state_hash().hex()}")
    return 0


def view_replay(args: argparse.Namespace) -> int:
    """``lanopoly replay FILE`` in a terminal: the game on the board (:mod:`lanopoly.console.replay`);
    1 if a step did not replay as recorded."""
    try:
        log = GameLog.load(args.file)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"lanopoly replay: cannot read {args.file}: {e}", file=sys.stderr)
        return 2
    return _view(log, args)


def view_watch(args: argparse.Namespace) -> int:
    """``lanopoly watch`` in a terminal: a game of simple bots played to the end, then shown, the
    bots named after the tokens in the viewer's language (Italian: "cane", not "dog")."""
    from lanopoly.i18n import TOKENS, detect

    return _view(play_log(args, io.StringIO(), TOKENS[args.lang or detect()]), args)


def watch_board(args: argparse.Namespace) -> str:
    """The board ``lanopoly watch`` shows without --board: the viewer's language's, as the console
    plays on (French: Paris); a game printed outside the console keeps the classic board."""
    from lanopoly.i18n import default_board, detect

    return default_board(args.lang or detect())


def _view(log: GameLog, args: argparse.Namespace) -> int:
    import asyncio

    from lanopoly.console import quiet_logs
    from lanopoly.console.replay import Replay, ReplayScreen
    from lanopoly.i18n import detect

    quiet_logs()
    replay = Replay(log, getattr(args, "lang", None) or detect())
    screen = ReplayScreen(replay, speed=args.speed or 10, playing=not args.paused)
    asyncio.run(screen.run())
    if replay.broken is not None:
        print(f"replay failed at step {replay.broken[0]}: {replay.broken[1]}", file=sys.stderr)
        return 1
    return 0


def list_bots() -> int:
    """``lanopoly bots``: each built-in bot and the parameters a spec may give it."""
    from lanopoly._core import bot_parameters

    heuristic = bot_parameters("heuristic")
    for name in bot_names():
        print(name)
        params = bot_parameters(name)
        own = params if name == "heuristic" else [p for p in params if p not in heuristic]
        for param, meaning in own:
            print(f"  {param:<18} {meaning}")
        if len(own) < len(params):
            print("  and every heuristic parameter, for the heuristic player it uses")
    print("\nA spec: NAME or NAME(PARAM=VALUE,...), e.g. heuristic(jail=stay,max_houses=4)")
    return 0


def bot_specs(text: str) -> list[str]:
    """``--bots``: bot specs separated by commas outside parentheses (``heuristic(jail=stay,max_houses=4),random``)."""
    specs, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            specs.append(text[start:i].strip())
            start = i + 1
    return [*specs, text[start:].strip()]


def simulate_command(args: argparse.Namespace) -> int:
    """Run a simulation and print a summary table."""
    from lanopoly.simulate import IN_JAIL, simulate

    bots = bot_specs(args.bots)
    for spec in bots:
        try:
            Bot(spec)
        except ValueError as e:
            print(f"lanopoly: {e}", file=sys.stderr)
            return 2
    if args.players is None:  # one bot per seat as listed, or one bot at a 4-seat table
        args.players = len(bots) if len(bots) > 1 else 4
    if len(bots) not in (1, args.players):
        print(f"lanopoly: {len(bots)} bots for {args.players} seats (--players)", file=sys.stderr)
        return 2
    most = Rules.preset(args.rules).max_players
    if not 2 <= args.players <= most:
        print(f"lanopoly: {len(bots)} bots: the {args.rules} rules seat 2 to {most} players", file=sys.stderr)
        return 2
    rules = Rules.preset(args.rules, **({"round_limit": args.rounds} if args.rounds else {}))
    start = time.perf_counter()
    try:
        r = simulate(args.games, args.players, args.board, rules, list(bots), args.seed, args.threads, args.max_inputs)
    except KeyboardInterrupt:
        print("\nlanopoly simulate: interrupted", file=sys.stderr)
        return 130
    elapsed = time.perf_counter() - start
    turns = int(r.turns.sum())
    print(f"{r.games} games, {args.players} players, {args.board} board, {args.rules} rules, seed {args.seed}")
    print(f"{elapsed:.2f} s: {r.games / elapsed:,.0f} games/s, {turns / elapsed:,.0f} turns/s")
    print(
        f"rounds {r.rounds.mean():.1f} (median {int(sorted(r.rounds)[len(r.rounds) // 2])}), "
        f"turns {r.turns.mean():.1f}, actions {r.actions.mean():.1f}, "
        f"bankruptcies {r.bankruptcies.mean():.2f} per game; {int(r.truncated.sum())} cut at --max-inputs"
    )
    seat_bots = bots * args.players if len(bots) == 1 else bots
    _print_seats(r, seat_bots)
    names = [*square_names(args.board), "(in jail)"]
    share = r.landings / max(int(r.landings.sum()), 1)
    top = sorted(range(41), key=lambda i: -share[i])[:10]
    print("\nmost landed on (share of move rolls):")
    for i in top:
        label = names[i] if i != IN_JAIL else "In jail"
        print(f"  {share[i]:6.2%}  {label}")
    return 0


def _print_seats(r: Any, seat_bots: list[str]) -> None:
    """Each seat's wins and net worth: mean and median over the games that finished, a game cut
    at --max-inputs left out (its net worth after a million inputs would dominate the mean)."""
    import numpy as np

    finished = ~r.truncated
    cut = int(r.truncated.sum())
    width = max(10, *(len(b) for b in seat_bots))
    print(f"\nseat  {'bot':<{width}}   wins   net worth: mean     median")
    rates = r.win_rates()
    for seat, bot in enumerate(seat_bots):
        worths = r.net_worths[finished, seat]
        mean, median = (f"{worths.mean():>10,.0f}", f"{np.median(worths):>10,.0f}") if len(worths) else ("-", "-")
        print(f"{seat:>4}  {bot:<{width}} {rates[seat]:6.1%}   {mean:>15} {median:>10}")
    if cut:
        print(f"net worth over the {r.games - cut} finished games: {cut} cut at --max-inputs left out")


def _table_options(p: argparse.ArgumentParser, defaults: bool) -> None:
    """The options of a table, on the main command and again on `play` and `watch` (where they
    default to what the main command was given)."""

    def d(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    p.add_argument(
        "--players", type=SEATS, default=d(None), help="players at the table, 2 to 8 (default 4; console: ask)"
    )
    p.add_argument("--name", default=d(""), help="your name in the console (default: the first token, dog)")
    p.add_argument(
        "--difficulty",
        default=d(None),
        choices=list(DIFFICULTIES),
        help="console bots: easy, normal (the heuristic bot) or hard (the search bot); default normal"
        " (console: as last time)",
    )
    p.add_argument("--board", default=d(None), choices=boards(), help="default: classic (console: the language's)")
    p.add_argument(
        "--lang", default=d(None), choices=list(LANGUAGES), help="console language (default: the system locale)"
    )
    p.add_argument(
        "--rules",
        default=d(None),
        choices=Rules.presets(),
        help="rules preset (default official; console: as last time)",
    )
    p.add_argument("--rounds", type=ROUNDS, default=d(0), help="round limit (richest wins); 0: the preset's")
    p.add_argument("--seed", type=int, default=d(None), help="seed for dice and cards (default: random)")
    p.add_argument("--save", metavar="FILE", default=d(None), help="save the game log to FILE")
    p.add_argument("--quiet", action="store_true", default=d(False), help="print only the result")


def _viewer_options(p: argparse.ArgumentParser) -> None:
    """How the board viewer of ``replay`` and ``watch`` plays a game."""
    p.add_argument("--speed", type=bounded(1, 500), default=None, help="steps a second (default 10; +/- change it)")
    p.add_argument("--paused", action="store_true", help="start paused on the first step (Space plays)")


def _console_lan_options(p: argparse.ArgumentParser, defaults: bool) -> None:
    """The console's LAN options (on the main command and on `play`)."""

    def d(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    lan = p.add_mutually_exclusive_group()
    lan.add_argument(
        "--host", action="store_true", default=d(False), help="console: host a LAN game (--players seats, bots fill)"
    )
    lan.add_argument(
        "--join",
        nargs="?",
        const="",
        default=d(None),
        metavar="HOST:PORT",
        help="console: join a LAN game (the games found on the network, or HOST:PORT)",
    )
    p.add_argument("--pin", default=d(None), help="console: the LAN game's PIN (host: default 6 random digits)")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="lanopoly",
        description="The property-trading board game. In a terminal, lanopoly, play, host, join, rejoin and resume"
        " open the full-screen console; outside one (scripts, pipes) they play with bots and print the log.",
    )
    _table_options(p, defaults=True)
    _console_lan_options(p, defaults=True)
    sub = p.add_subparsers(dest="command")
    play_parser = sub.add_parser("play", help="play in the full-screen console (the default in a terminal)")
    _table_options(play_parser, defaults=False)
    _console_lan_options(play_parser, defaults=False)
    watch = sub.add_parser(
        "watch",
        help="watch bots play: on the board in a terminal, else the log printed (the default outside a terminal)",
    )
    _table_options(watch, defaults=False)
    _viewer_options(watch)
    from lanopoly.net import cli as net_cli

    net_cli.add_commands(sub)
    for name in ("host", "join", "rejoin", "resume"):
        lan = sub.choices[name]
        lan.add_argument(
            "--bots",
            action="store_true",
            help="play your seats with bots and print the log (the default outside a terminal)",
        )
        lan.add_argument("--lang", default=None, choices=list(LANGUAGES), help="console language")
        lan.add_argument("--difficulty", default="normal", choices=list(DIFFICULTIES), help="console bots")
    sub.choices["host"].description = (
        "Host a LAN game. In a terminal: the console's lobby screen (the PIN, the seats filling as"
        " players join; Enter starts), then the game. Outside a terminal (scripts, pipes) or with"
        " --bots: headless, every seat of this peer played by a bot, the log printed with -v."
    )
    sub.choices["join"].description = (
        "Join a LAN game. In a terminal: the console's join screen (the lobbies found on the network,"
        " TARGET picked or typed, the PIN filled in: Enter joins), then the game. Outside a terminal"
        " (scripts, pipes) or with --bots: headless, your seat played by a bot."
    )
    c = sub.add_parser("continue", help="continue a game against bots left unfinished (the last one, or FILE)")
    c.add_argument("file", nargs="?", help="a game the console saved (default: the last unfinished one)")
    c.add_argument("--lang", default=None, choices=list(LANGUAGES), help="console language")
    sub.add_parser("bots", help="list the built-in bots and the parameters of their specs")
    r = sub.add_parser(
        "replay",
        help="show a saved game on the board, step by step (in a terminal), checking every state hash;"
        " outside a terminal, or with --verify-only, only check it",
    )
    r.add_argument("file")
    r.add_argument("--verify-only", action="store_true", help="check every state hash and print the result only")
    r.add_argument("--lang", default=None, choices=list(LANGUAGES), help="the viewer's language (default: the locale)")
    _viewer_options(r)
    s = sub.add_parser("simulate", help="run many bot games in parallel and print a summary")
    s.add_argument("games", type=bounded(1, 2**32 - 1), help="how many games to play")
    s.add_argument(
        "--players",
        type=SEATS,
        default=None,
        help="players per game, 2 to 8 (default: one per bot of --bots, or 4 for a single bot)",
    )
    s.add_argument("--board", default="classic", choices=boards(), help="default: classic")
    s.add_argument("--rules", default="official", choices=Rules.presets(), help="rules preset (default: official)")
    s.add_argument("--rounds", type=ROUNDS, default=0, help="round limit (richest wins); 0: the preset's")
    s.add_argument(
        "--bots",
        default="random",
        help="one bot for all seats or one per seat, comma-separated; a bot takes parameters in parentheses,"
        " e.g. 'heuristic(jail=stay,max_houses=4)' (`lanopoly bots` lists them; default random)",
    )
    s.add_argument(
        "--seed", type=bounded(0, 2**64 - 1), default=0, help="game i is seeded from (seed, i): same seed, same games"
    )
    s.add_argument("--threads", type=bounded(1, 1024), default=None, help="default: all cores (results do not change)")
    s.add_argument(
        "--max-inputs", type=bounded(1, 2**32 - 1), default=1_000_000, help="cut a game after this many inputs"
    )
    return p


def parse(argv: Sequence[str], p: argparse.ArgumentParser | None = None) -> argparse.Namespace:
    """The command line parsed (by ``p``, default :func:`parser`), with the main command's options
    typed before a subcommand carried over to it (argparse alone let the subcommand's defaults win)."""
    p = p or parser()
    args = p.parse_args(argv)
    carry_over(p, args, argv)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = parse(sys.argv[1:] if argv is None else list(argv), p)
    players, preset = getattr(args, "players", None), getattr(args, "rules", None)
    if players and isinstance(preset, str) and preset in Rules.presets():
        most = Rules.preset(preset).max_players
        if players > most:
            p.error(f"argument --players: the {preset} rules seat 2 to {most} players, not {players}")
    try:
        return run(args, interactive=sys.stdin.isatty() and sys.stdout.isatty())
    except BrokenPipeError:  # the reader went away (e.g. `lanopoly simulate ... | head`): not an error
        sys.stderr.close()
        return 0


def run(args: argparse.Namespace, interactive: bool) -> int:
    """Carry out the parsed command."""
    if getattr(args, "net_command", None):
        if args.net_command in ("rejoin", "resume") and interactive and not args.bots:
            return console_rejoin(args)
        if args.net_command in ("host", "join") and interactive and not args.bots:
            return console_lan(args)
        from lanopoly.net import cli as net_cli

        return net_cli.run(args)
    if args.command == "continue":
        return continue_command(args, interactive)
    if args.command == "bots":
        return list_bots()
    if args.command == "replay":
        return replay(args) if args.verify_only or not interactive else view_replay(args)
    if args.command == "simulate":
        return simulate_command(args)
    if args.command == "play" or (args.command is None and interactive and not args.quiet and not args.save):
        return console(args)
    args.players = args.players or 4
    watching = args.command == "watch" and interactive and not args.quiet
    args.board = args.board or (watch_board(args) if watching else "classic")
    args.rules = args.rules or "official"
    if watching:
        return view_watch(args)
    return play(args)


if __name__ == "__main__":
    sys.exit(main())
