"""The `lanopoly` command. For now: play a local game of bots and print what happens.

lanopoly                      # 4 bots, classic board, official rules
lanopoly --players 3 --board paris --rules paris-quick --seed 7
lanopoly replay game.json     # replay a saved log and verify every state hash
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from lanopoly._core import Game, Rules, boards
from lanopoly.bots import SimpleBot
from lanopoly.describe import describe
from lanopoly.log import GameLog, ReplayMismatch


def play(args: argparse.Namespace) -> int:
    """Play one game of simple bots to the end, printing the log."""
    rules = Rules.preset(args.rules, **({"round_limit": args.rounds} if args.rounds else {}))
    game = Game(args.players, board=args.board, rules=rules, seed=args.seed)
    log = GameLog.start(game)
    bots = [SimpleBot() for _ in range(game.num_players)]
    out = sys.stdout

    def show(events: list[dict[str, object]]) -> None:
        if args.quiet:
            return
        for event in events:
            line = describe(game, event)
            if line:
                print(("" if line.startswith("--") else "   ") + line, file=out)

    print(f"lanopoly: {', '.join(game.names)} on the {game.board} board ({args.rules} rules).", file=out)
    while not game.is_over:
        if game.is_chance_node:
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
    return 0


def replay(args: argparse.Namespace) -> int:
    """Replay a saved log, verifying the state hash after every step."""
    log = GameLog.load(args.file)
    try:
        game = log.replay()
    except ReplayMismatch as e:
        print(f"replay failed at {e}", file=sys.stderr)
        return 1
    print(f"{len(log.inputs)} steps replayed, every state hash matches; final hash {game.state_hash().hex()}")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lanopoly", description="The property-trading board game.")
    p.add_argument("--players", type=int, default=4, help="number of bots, 2 to 8 (default 4)")
    p.add_argument("--board", default="classic", choices=boards())
    p.add_argument("--rules", default="official", choices=Rules.presets(), help="rules preset")
    p.add_argument("--rounds", type=int, default=0, help="round limit (richest wins); 0: the preset's")
    p.add_argument("--seed", type=int, default=None, help="seed for dice and cards (default: random)")
    p.add_argument("--save", metavar="FILE", help="save the game log to FILE")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    sub = p.add_subparsers(dest="command")
    r = sub.add_parser("replay", help="replay a saved game log and verify every state hash")
    r.add_argument("file")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "replay":
        return replay(args)
    if not 2 <= args.players <= 8:
        print("lanopoly: --players must be 2 to 8", file=sys.stderr)
        return 2
    try:
        return play(args)
    except BrokenPipeError:  # the reader went away (e.g. `lanopoly | head`): not an error
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
