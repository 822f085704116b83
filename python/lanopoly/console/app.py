"""The full-screen console: the board, the log, the decision in front of you, a command line.

Layout (80x24 and up): the board ring with the players and the current decision in its middle,
the log of what happened, a feedback line, the command line with completion, and a line of hints.
Bots and chance play in an asyncio task beside the user interface, one step at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from lanopoly._core import IllegalAction
from lanopoly.console import board_view
from lanopoly.console.commands import COMMANDS, CommandError, Local, command_for, help_text, parse
from lanopoly.console.names import fold
from lanopoly.console.session import LocalTable

STYLE = Style.from_dict(
    {
        "cell": "",
        "group.brown": "bg:#8b4513 #ffffff",
        "group.lightblue": "bg:#87ceeb #000000",
        "group.pink": "bg:#d63384 #ffffff",
        "group.orange": "bg:#fd7e14 #000000",
        "group.red": "bg:#dc3545 #ffffff",
        "group.yellow": "bg:#ffc107 #000000",
        "group.green": "bg:#198754 #ffffff",
        "group.darkblue": "bg:#0d3b8e #ffffff",
        "owner": "#888888",
        "owner.me": "#00aa00 bold",
        "building": "#ffaa00 bold",
        "token": "reverse",
        "token.me": "reverse #00aa00 bold",
        "me": "#00aa00 bold",
        "turn": "bold",
        "decision": "bold #ffffff bg:#333333",
        "error": "#ff5555 bold",
        "hint": "#888888",
        "prompt": "bold",
    }
)

WELCOME = "Type 'help' for the commands. F2 roll, F3 buy, F4 decline, F5 end turn."
_PROPERTY_COMMANDS = {"build", "sell", "selldown", "mortgage", "m", "unmortgage", "u", "lift", "keep", "claim", "info"}
_PLAYER_COMMANDS = {"accept", "reject", "trade"}


class CommandCompleter(Completer):
    """Completes command names, then property or player names as the command expects."""

    def __init__(self, table: LocalTable) -> None:
        self.table = table

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if " " not in text:
            for name, _, _args, what in COMMANDS:
                if name.startswith(fold(text)):
                    yield Completion(name, -len(text), display_meta=what)
            return
        command, _, rest = text.partition(" ")
        game = self.table.game
        if fold(command) in _PROPERTY_COMMANDS:
            candidates = [game.square(s)["name"] for s in range(40) if "price" in game.square(s)]
        elif fold(command) in _PLAYER_COMMANDS and " " not in rest:
            candidates = list(game.names)
        else:
            return
        for name in candidates:
            if fold(name).startswith(fold(rest)) or fold(rest) in fold(name):
                yield Completion(name, -len(rest))


class ConsoleApp:
    """The application around one local table."""

    def __init__(
        self,
        table: LocalTable,
        *,
        delay: float = 0.3,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.table = table
        self.delay = delay
        self.feedback: tuple[str, str] = ("class:hint", WELCOME)
        self.buffer = Buffer(multiline=False, completer=CommandCompleter(table), accept_handler=self._accept)
        body = HSplit(
            [
                Window(FormattedTextControl(self._board), height=11),
                Window(FormattedTextControl(self._log), wrap_lines=True),
                Window(FormattedTextControl(lambda: [self.feedback]), height=1),
                Window(
                    BufferControl(self.buffer),
                    height=1,
                    get_line_prefix=lambda *_: [("class:prompt", "> ")],
                ),
                Window(FormattedTextControl(self._hints), height=1),
            ]
        )
        self.app: Application[int] = Application(
            layout=Layout(body, focused_element=self.buffer),
            key_bindings=self._keys(),
            style=STYLE,
            full_screen=True,
            mouse_support=False,
            input=input,
            output=output,
        )

    # -- running -------------------------------------------------------------------------------

    async def run(self) -> int:
        """Run until the person quits; bots play in a task beside the interface."""
        driver = asyncio.create_task(self._drive())
        try:
            return await self.app.run_async()
        finally:
            driver.cancel()

    async def _drive(self) -> None:
        while True:
            if self.table.step():
                self.app.invalidate()
                await asyncio.sleep(self.delay)
            else:
                await asyncio.sleep(0.02)

    def _keys(self) -> KeyBindings:
        keys = KeyBindings()

        @keys.add("c-c")
        @keys.add("c-q")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        for key, command in (("f2", "roll"), ("f3", "buy"), ("f4", "decline"), ("f5", "end")):

            def run(event: KeyPressEvent, command: str = command) -> None:
                self.execute(command)

            keys.add(key)(run)
        return keys

    def _accept(self, buffer: Buffer) -> bool:
        self.execute(buffer.text)
        return False  # clear the line

    # -- commands --------------------------------------------------------------------------------

    def execute(self, text: str) -> None:
        """Run one typed command; illegal moves and typos become a message, nothing changes."""
        table = self.table
        try:
            parsed = parse(table.game, table.me, text)
            if isinstance(parsed, Local):
                self._local(parsed)
            else:
                table.act(parsed)
                self.feedback = ("class:hint", f"ok: {text.strip()}")
        except (CommandError, IllegalAction) as e:
            self.feedback = ("class:error", str(e))
        self.app.invalidate()

    def _local(self, command: Local) -> None:
        if command.name == "quit":
            self.app.exit(result=0)
        elif command.name == "help":
            self.table.lines.extend(["Commands:", *help_text().splitlines()])
            self.feedback = ("class:hint", "the commands are in the log above")
        else:
            from lanopoly.console.commands import one_square

            square = one_square(self.table.game, command.argument)
            self.table.lines.extend(deed_lines(self.table, square))

    # -- drawing ---------------------------------------------------------------------------------

    def _board(self) -> board_view.Fragments:
        return board_view.render(self.table.game, self.table.me, self._middle())

    def _middle(self) -> list[board_view.Fragments]:
        game, me = self.table.game, self.table.me
        lines: list[board_view.Fragments] = []
        money = game.currency
        for seat in range(game.num_players):
            p = game.player(seat)
            marker = ">" if seat == game.turn_player and not game.is_over else " "
            style = "class:me" if seat == me else ("class:turn" if marker == ">" else "")
            if p["bankrupt"]:
                status = "bankrupt"
            else:
                jail = " in jail" if p["in_jail"] else ""
                cards = f" +{len(p['jail_cards'])} card" if p["jail_cards"] else ""
                status = f"{money}{p['cash']:<6} {len(p['properties']):>2} deeds{jail}{cards}"
            text = f" {marker}{seat + 1} {p['name'][:14]:<14} {status}"
            lines.append([(style, text[: board_view.CELL * 9])])
        lines = lines[:8]
        lines.append(board_view.fit([("class:decision", " " + self.decision() + " ")], board_view.CELL * 9))
        return lines

    def decision(self) -> str:
        """The decision in front of the person, in a sentence."""
        table, game = self.table, self.table.game
        money = game.currency
        if game.is_over:
            winner = game.winner
            return f"Game over: {game.names[winner] if winner is not None else 'nobody'} wins. 'quit' to leave."
        if not table.my_move:
            seat = game.current_player
            if seat is None or seat < 0:
                return "Dice and cards..."
            return f"Waiting for {game.names[seat]}..."
        if game.auction:
            a = game.auction
            lot = game.square(a["square"])["name"] if a["lot"] == "property" else f"the bank's last {a['lot']}"
            leader = a["high_bidder"]
            lead = f"{money}{a['high_bid']} by {game.names[leader]}" if leader is not None else "no bid"
            return f"Auction of {lot}: {lead}. bid N / pass"
        mine = [d for d in game.debts if d["debtor"] == table.me]
        if mine:
            return f"You owe {money}{mine[0]['amount']}: sell, mortgage or trade, then pay (or bankrupt)"
        if game.buy_square is not None:
            info = game.square(game.buy_square)
            return f"Buy {info['name']} for {money}{info['price']}? buy (b) / decline (d)"
        legal = {a["type"] for a in table.legal()}
        if "keep_mortgaged" in legal:
            return "You received a mortgaged deed: unmortgage it or keep it (10% fee)"
        if "roll" in legal:
            extra = " (or fine / card to leave jail first)" if game.player(table.me)["in_jail"] else ""
            return f"Your turn: roll (r){extra}"
        if "end_turn" in legal:
            return "Build, mortgage, trade... or end your turn (e)"
        return "Your move"

    def _log(self) -> board_view.Fragments:
        rows = max(1, self.app.output.get_size().rows - 15) if self.app.is_running else 8
        return [("", "\n".join(self.table.lines[-rows:]))]

    def _hints(self) -> board_view.Fragments:
        legal = self.table.legal()
        if not legal:
            return [("class:hint", "")]
        words = sorted({command_for(a, self.table.game).split(" ")[0] for a in legal})
        return [("class:hint", "you can: " + ", ".join(words))]


def deed_lines(table: LocalTable, square: int) -> list[str]:
    """A title deed as log lines."""
    game = table.game
    info: dict[str, Any] = game.square(square)
    money = game.currency
    owner = game.names[info["owner"]] if info.get("owner") is not None else "the bank"
    lines = [f"{info['name']}: price {money}{info.get('price', '-')}, owned by {owner}"]
    if info["kind"] == "street":
        rents = info["rents"]
        lines.append(
            f"  rent {money}{rents[0]} (x2 with the group), houses {', '.join(f'{money}{r}' for r in rents[1:5])}, "
            f"hotel {money}{rents[5]}; house {money}{info['house_cost']}, mortgage {money}{info['mortgage_value']}"
        )
    elif info["kind"] == "railway":
        lines.append(f"  rent {money}25 / 50 / 100 / 200 for 1-4 railways; mortgage {money}{info['mortgage_value']}")
    elif info["kind"] == "utility":
        lines.append(f"  rent 4x the dice (10x with both); mortgage {money}{info['mortgage_value']}")
    return lines
