"""The LAN screens before a game: hosting a lobby, and finding and joining one.

``HostScreen`` opens a lobby (listening and advertised on the configured interfaces), shows the
game PIN, the lobby's address and the fingerprint of the host's key, fills the seats live as peers
join and frees them as they leave; Left/Right choose how many free seats bots take, Up/Down the
bid timer of the auctions (carried in the start record, so every peer plays with it), Enter starts
(with the peers there, not waiting for every seat). ``JoinScreen`` lists the lobbies discovered on
the network as they appear, change and vanish (name, host, seats, rules, board, and under each the
host key it advertises, so that two lobbies with the same name are told apart); the person picks
one (or types ``host:port``), types the PIN and presses Enter, then sees the fingerprint of the key
the host proved and who is in the lobby until the host starts. Both give the game set up (:class:`Started`, or
None when the person went back) for a :class:`~lanopoly.console.net_session.NetTable`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, KeyPressEvent, merge_key_bindings
from prompt_toolkit.layout import HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.output import Output

from lanopoly.console.bid_clock import BID_TIMERS, timer_text
from lanopoly.console.escape import quick_escape
from lanopoly.console.form_keys import leaving, stepping
from lanopoly.console.log_view import rows_between_words
from lanopoly.console.small import guarded
from lanopoly.console.start import STYLE, Setup
from lanopoly.i18n import board_name, plural, preset_name, t
from lanopoly.net import reason
from lanopoly.net.core.pinauth import normalize_pin
from lanopoly.net.discovery import (
    BackgroundAdvert,
    Lobby,
    LobbyAd,
    LobbyAdvertiser,
    LobbyBrowser,
    advertised_addresses,
    make_zeroconf,
    service_type,
)
from lanopoly.net.hosting import HostLobby, Joining, SetupError, Started, new_pin
from lanopoly.net.interfaces import configured_interfaces
from lanopoly.net.links import Unreachable

log = logging.getLogger(__name__)

LOBBY_TIMEOUT = 3600.0

LABEL_COLUMN = 26
"""The fewest columns of the join screen's labels (PIN, address) before their fields."""

HOST_REFUSALS = {
    "wrong PIN": "join.wrong_pin",
    "the lobby is full": "join.full",
    "too many wrong PINs from this address": "join.too_many_pins",
}
"""The host's refusals a person meets (in the protocol's English), by their text in the catalogs."""


def join_failure(lang: str, error: BaseException) -> str:
    """Why joining failed, for the join screen's "Could not join: ..." line: without the net
    layer's own "could not join: " (the screen said it twice), a host's usual refusal (a mistyped
    PIN above all) and an address nobody answers at (a mistyped port, a lobby closed) in the
    person's language, anything else as it came."""
    cause = error.__cause__
    if isinstance(cause, Unreachable) and cause.why in ("refused", "timeout"):
        address = f"{cause.host}:{cause.port}"
        return t(lang, f"join.unreachable_{cause.why}", address=address, seconds=f"{cause.timeout:g}")
    why = reason(error).removeprefix("could not join: ")
    key = HOST_REFUSALS.get(why.removeprefix("refused: "))
    return t(lang, key) if key is not None else why


"""Seconds a joiner waits in a lobby for the host to start."""


def game_text(lobby: Lobby, lang: str) -> str:
    """A lobby's rules and board as the join list shows them, in the person's language
    ("ufficiali/classico")."""
    return f"{preset_name(lang, lobby.rules)}/{board_name(lang, lobby.board, short=True)}"


def column_widths(lobbies: Sequence[Lobby], lang: str = "en") -> tuple[int, int]:
    """The widths of the join list's name and address columns: the address column as wide as
    the longest address, and the name column given what that leaves of 80 columns, so a name
    with its suffix ("il tavolo di Ana ee01") is not cut when it fits."""
    address = max([15, *(len(lobby.address) for lobby in lobbies)])
    rules = max([16, *(len(game_text(lobby, lang)) for lobby in lobbies)])
    room = 80 - len("> ") - (address + 1) - (10 + 1) - (8 + 1) - rules - 1
    longest = max([0, *(len(lobby.table) for lobby in lobbies)])
    return max(18, min(room, longest)), address


def _line(style: str, text: str) -> StyleAndTextTuples:
    return [(style, text), ("", "\n")]


class HostScreen:
    """Host a LAN game: the PIN, the address, the host key's fingerprint, the seats filling (and
    freed) live; ``run()`` gives the game set up once the person started it, or None if they went back.
    ``notice`` (what was wrong with the preferences file) shows first on the message line."""

    def __init__(
        self,
        setup: Setup,
        *,
        rounds: int = 0,
        port: int = 0,
        pin: str | None = None,
        advertise: bool = True,
        table: str = "",
        bid_timer: int = 0,
        interfaces: list[str] | None = None,
        input: Input | None = None,
        output: Output | None = None,
        notice: str = "",
    ) -> None:
        self.setup = setup
        self.lang = setup.lang
        self.timers = sorted({*BID_TIMERS, bid_timer})
        """The bid timers Up/Down choose among (seconds, 0 off), ``bid_timer`` (as given) among them."""
        self.bid_timer = bid_timer
        self.seats = max(2, setup.bots + 1)
        self.bots = self.seats - 1
        self.pin = pin or new_pin()
        self.interfaces = interfaces if interfaces is not None else configured_interfaces()
        self.name = table
        rules = setup.rules_with(rounds)
        self.lobby = HostLobby(
            setup.player_name(),
            self.seats,
            self.seats,
            setup.board,
            dict(rules.to_dict()),
            self.pin,
            interfaces=self.interfaces,
            port=port,
            bid_timer=bid_timer,
            on_change=self._changed,
            bot_names=[t(setup.lang, "lan.bot_name", n=n) for n in range(1, 8)],
        )
        self.advertise = advertise
        self.advert: BackgroundAdvert | None = None
        self.address = ""
        self.message: tuple[str, str] = ("class:error", notice) if notice else ("class:hint", "")
        self.starting: asyncio.Task[None] | None = None
        self.failed = False
        self.app: Application[Started | None] = Application(
            layout=Layout(guarded(Window(FormattedTextControl(self._text), wrap_lines=True), lambda: self.lang)),
            key_bindings=self._keys(),
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
        )
        quick_escape(self.app)

    @property
    def table_name(self) -> str:
        return self.name or t(self.lang, "lobby.table", name=self.setup.player_name())

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the host's key: the joiners' screens show the key they reached."""
        return self.lobby.fingerprint

    async def run(self) -> Started | None:
        aiozc = None
        started: Started | None = None
        try:
            port = await self.lobby.open()
            addresses = advertised_addresses(self.interfaces)
            self.address = f"{addresses[0]}:{port}"
            if self.advertise:
                aiozc = make_zeroconf(self.interfaces)
                game_id, rules, board = self.lobby.game_id.hex(), self.setup.rules, self.setup.board
                ad = LobbyAd(self.table_name, game_id, 1, self.seats, rules, board, fingerprint=self.fingerprint)
                self.advert = BackgroundAdvert(LobbyAdvertiser(aiozc, ad, addresses, port, service_type()))
            started = await self.app.run_async()
            return started
        finally:
            if self.starting is not None and not self.starting.done():
                self.starting.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self.starting
            if self.advert is not None:
                await self.advert.close()
            if aiozc is not None:
                await aiozc.async_close()
            if started is None:
                await self.lobby.close()

    # -- the lobby ------------------------------------------------------------------------------

    @property
    def taken(self) -> int:
        """The seats taken by people: the host's and each joiner's still in the lobby."""
        return len(self.lobby.roster)

    def _changed(self, roster: list[str]) -> None:
        """Someone joined or left: the seats are drawn again (and advertised)."""
        taken = len(roster)
        if self.advert is not None and self.starting is None:
            self.advert.update(seats_taken=taken, state="full" if taken >= self.seats else "open")
        self.app.invalidate()

    def free(self) -> int:
        return self.seats - self.taken

    def bots_at_start(self) -> int:
        return min(self.bots, self.free())

    def start(self) -> None:
        """Start the game with the peers in the lobby and the chosen bots (in a task: the screen
        stays live). A joiner whose connection ended is first taken out of the lobby: the host is
        told and the lobby stays open, to start without them or wait for another player."""
        if self.starting is not None or self.failed:
            return
        self.starting = asyncio.get_running_loop().create_task(self._start())

    async def _start(self) -> None:
        gone = await self.lobby.drop_departed()
        if gone or self.taken < 2:
            if gone:
                told = plural(self.lang, "lobby.left", len(gone), names=", ".join(gone))
            else:
                told = t(self.lang, "lobby.need_player")
            self.message = ("class:error", told)
            self.starting = None
            self._changed(self.lobby.roster)  # the seats drawn and advertised again
            return
        seats = self.taken + self.bots_at_start()
        self.lobby.bid_timer = self.bid_timer  # in the start record: every peer signs it
        self.message = ("class:hint", t(self.lang, "lobby.starting"))
        if self.advert is not None:
            self.advert.update(state="playing")
        self.app.invalidate()
        try:
            started = await self.lobby.start(seats)
        except (SetupError, ValueError, OSError) as e:
            self.failed = True
            self.message = ("class:error", t(self.lang, "lobby.start_failed", reason=reason(e)))
            await self.lobby.close()
            self.app.invalidate()
            return
        self.app.exit(result=started)

    def _keys(self) -> KeyBindingsBase:
        keys = KeyBindings()

        @keys.add("enter")
        def _start(event: KeyPressEvent) -> None:
            self.start()

        bots = stepping(self._fewer, self._more, ("left", "-"), ("right", "+"))
        timer = stepping(lambda: self._timer(-1), lambda: self._timer(1), ("down",), ("up",))
        return merge_key_bindings([bots, timer, keys, leaving()])

    def _timer(self, step: int) -> None:
        """The next longer (``step`` 1) or shorter (-1) bid timer, until the game starts."""
        if self.starting is None:
            index = self.timers.index(self.bid_timer) + step
            self.bid_timer = self.timers[max(0, min(index, len(self.timers) - 1))]
            self.lobby.set_bid_timer(self.bid_timer)  # the joiners' screens show it too

    def _more(self) -> None:
        self.bots = min(self.bots_at_start() + 1, self.free())

    def _fewer(self) -> None:
        self.bots = max(self.bots_at_start() - 1, 0)

    # -- drawing --------------------------------------------------------------------------------

    def seat_lines(self) -> list[str]:
        """One line per seat: the host, the peers who joined, the bots, the free seats."""
        lang = self.lang
        names = self.lobby.roster
        lines = []
        for seat in range(self.seats):
            if seat == 0:
                what = t(lang, "lobby.seat_you", name=names[0])
            elif seat < len(names):
                what = t(lang, "lobby.seat_joined", name=names[seat])
            elif seat < len(names) + self.bots_at_start():
                what = t(lang, "lobby.seat_bot")
            else:
                what = t(lang, "lobby.seat_free")
            lines.append(f"  {seat + 1}  {what}")
        return lines

    def _text(self) -> StyleAndTextTuples:
        lang, s = self.lang, self.setup
        out: StyleAndTextTuples = []
        out += _line("class:title", " " + t(lang, "lobby.title", table=self.table_name))
        out += _line("", "")
        out += _line("class:value", " " + t(lang, "lobby.pin", pin=self.pin))
        out += _line("class:value", " " + t(lang, "lobby.address", address=self.address or "..."))
        out += _line("class:value", " " + t(lang, "lobby.key", fingerprint=self.fingerprint))
        board, rules = board_name(lang, s.board), preset_name(lang, s.rules)
        out += _line("", " " + t(lang, "lobby.game", board=board, rules=rules))
        out += _line("", "")
        out += _line("", " " + plural(lang, "lobby.seats", self.taken, seats=self.seats))
        for text in self.seat_lines():
            out += _line("", text)
        out += _line("", "")
        out += _line("class:value", " " + t(lang, "lobby.bots", n=self.bots_at_start()))
        out += _line("class:value", " " + t(lang, "lobby.bid_timer", timer=timer_text(lang, self.bid_timer)))
        out += _line(*self.message)
        out += [("class:hint", " " + t(lang, "lobby.keys"))]
        return out


@dataclass(frozen=True)
class Target:
    """Where to join: an address, and the game id and the host key's fingerprint when discovery
    told them (a joiner then refuses a host whose key has another fingerprint)."""

    host: str
    port: int
    game_id: bytes = b""
    fingerprint: str = ""


def split_address(text: str) -> tuple[str, int] | None:
    """``host:port`` -> (host, port), or None."""
    host, sep, port = text.strip().rpartition(":")
    if sep and host and port.isdigit() and 0 < int(port) < 65536:
        return host, int(port)
    return None


class JoinScreen:
    """Find a LAN game and join it; ``run()`` gives the game set up once the host started it, or
    None if the person went back. ``choose`` preselects the first lobby whose name or game id
    starts with it (``lanopoly join NAME``). ``notice`` (what was wrong with the preferences file)
    shows first on the message line."""

    def __init__(
        self,
        setup: Setup,
        *,
        address: str = "",
        pin: str = "",
        choose: str = "",
        interfaces: list[str] | None = None,
        input: Input | None = None,
        output: Output | None = None,
        notice: str = "",
    ) -> None:
        self.setup = setup
        self.lang = setup.lang
        self.interfaces = interfaces if interfaces is not None else configured_interfaces()
        self.browser: LobbyBrowser | None = None
        self.selected = 0
        self.choose = choose
        self.pin = Buffer(multiline=False, accept_handler=self._accept)
        self.pin.text = pin
        self.address = Buffer(multiline=False, accept_handler=self._accept)
        self.address.text = address
        self.message: tuple[str, str] = ("class:error", notice) if notice else ("class:hint", "")
        self.joining: asyncio.Task[None] | None = None
        self.joiner: Joining | None = None
        self.seats = 0
        """The seats of the lobby joined, as its host said."""
        self.pin_control = BufferControl(self.pin)
        self.address_control = BufferControl(self.address)
        # The labels' column: 26, or the longer label whole with a space after it (the Norwegian
        # "eller adresse (vert:port):" lost its colon).
        labels = (len(t(self.lang, "form.label", label=t(self.lang, key))) for key in ("join.pin", "join.address"))
        width = max(LABEL_COLUMN, 2 + max(labels))
        body = HSplit(
            [
                Window(FormattedTextControl(self._games)),
                # The PIN first: the field a joiner fills first (the game is picked in the list
                # above), where typing goes at first, and Tab goes on to the address below it.
                VSplit(
                    [
                        Window(FormattedTextControl(lambda: self._label("join.pin")), width=width, height=1),
                        Window(self.pin_control, height=1),
                    ]
                ),
                VSplit(
                    [
                        Window(FormattedTextControl(lambda: self._label("join.address")), width=width, height=1),
                        Window(self.address_control, height=1),
                    ]
                ),
                # As many rows as the status takes (at least 4, so the screen does not jump): a
                # French or Italian joiner's key, roster and bid timer take six at 80 columns.
                Window(FormattedTextControl(self._status), height=lambda: max(4, len(self._status_rows()))),
                Window(FormattedTextControl(lambda: [("class:hint", " " + t(self.lang, self._keys_hint()))]), height=1),
            ]
        )
        self.app: Application[Started | None] = Application(
            layout=Layout(guarded(body, lambda: self.lang), focused_element=self.pin),
            key_bindings=self._keys(),
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
        )
        quick_escape(self.app)

    async def run(self) -> Started | None:
        aiozc = make_zeroconf(self.interfaces)
        self.browser = LobbyBrowser(aiozc, service_type())
        watcher: asyncio.Task[None] | None = None
        try:
            await self.browser.start()
            watcher = asyncio.get_running_loop().create_task(self._watch(self.browser))
            return await self.app.run_async()
        finally:
            if watcher is not None:
                watcher.cancel()
            if self.joining is not None and not self.joining.done():
                self.joining.cancel()  # leaving the lobby: its connection closes, the host frees the seat
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self.joining
            await self.browser.close()
            await aiozc.async_close()

    async def _watch(self, browser: LobbyBrowser) -> None:
        async for _ in browser.events():
            if self.choose:
                self._preselect()
            self.app.invalidate()

    def _preselect(self) -> None:
        """Select the first lobby whose name or game id starts with ``choose`` (once it is seen)."""
        for index, lobby in enumerate(self.lobbies()):
            if lobby.table.startswith(self.choose) or lobby.game_id.startswith(self.choose.lower()):
                self.selected = index
                self.choose = ""
                return

    def lobbies(self) -> list[Lobby]:
        """The lobbies seen now, open ones first."""
        found = list(self.browser.lobbies.values()) if self.browser is not None else []
        return sorted(found, key=lambda lobby: (lobby.state != "open", lobby.table, lobby.instance))

    def target(self) -> Target | None:
        """The typed address if any, else the selected lobby."""
        typed = self.address.text.strip()
        if typed:
            address = split_address(typed)
            if address is None:
                raise ValueError(t(self.lang, "join.bad_address", text=typed))
            return Target(*address)
        lobbies = self.lobbies()
        if not lobbies:
            return None
        lobby = lobbies[min(self.selected, len(lobbies) - 1)]
        if not lobby.addresses:
            return None
        game_id = b""
        with contextlib.suppress(ValueError):
            game_id = bytes.fromhex(lobby.game_id)
        return Target(lobby.addresses[0], lobby.port, game_id, lobby.fingerprint)

    def _keys_hint(self) -> str:
        """The keys' line: once joined, only Escape does anything (a newcomer read "Enter: join"
        while waiting for the host and pressed it again)."""
        joined = self.joining is not None and not self.joining.done()
        return "join.keys_waiting" if joined else "join.keys"

    def _accept(self, buffer: Buffer) -> bool:
        self.join()
        return True  # keep the text

    def join(self) -> None:
        """Join the chosen game with the typed PIN (in a task; the screen stays live)."""
        if self.joining is not None and not self.joining.done():
            return
        lang = self.lang
        try:
            target = self.target()
        except ValueError as e:
            self.message = ("class:error", str(e))
            return
        if target is None:
            self.message = ("class:error", t(lang, "join.choose"))
            return
        pin = self.pin.text.strip()
        try:
            normalize_pin(pin)
        except ValueError as e:
            self.message = ("class:error", t(lang, "join.bad_pin", reason=str(e)))
            return
        joiner = Joining(
            target.host,
            target.port,
            self.setup.player_name(),
            pin,
            self.interfaces,
            target.game_id,
            target.fingerprint or None,
            on_roster=self._roster,
        )
        self.joiner = joiner
        self.message = ("class:hint", t(lang, "join.waiting", address=f"{target.host}:{target.port}"))

        async def go() -> None:
            try:
                async with asyncio.timeout(LOBBY_TIMEOUT):
                    started = await joiner.run()
            except (SetupError, TimeoutError, OSError) as e:
                self.message = ("class:error", t(lang, "join.failed", reason=join_failure(lang, e)))
                self.joiner = None
                self.app.invalidate()
                return
            self.app.exit(result=started)

        self.joining = asyncio.get_running_loop().create_task(go())

    def _keys(self) -> KeyBindingsBase:
        keys = KeyBindings()

        @keys.add("tab")
        @keys.add("s-tab")
        def _field(event: KeyPressEvent) -> None:
            layout = event.app.layout
            layout.focus(self.address if layout.has_focus(self.pin) else self.pin)

        return merge_key_bindings([stepping(self._up, self._down, ("up",), ("down",)), keys, leaving()])

    def _down(self) -> None:
        self.selected = min(self.selected + 1, max(0, len(self.lobbies()) - 1))

    def _up(self) -> None:
        self.selected = max(self.selected - 1, 0)

    # -- drawing --------------------------------------------------------------------------------

    def _status(self) -> StyleAndTextTuples:
        """The status rows, one under the other."""
        out: StyleAndTextTuples = []
        for i, row in enumerate(self._status_rows()):
            out += [("", "\n"), row] if i else [row]
        return out

    def _status_rows(self) -> list[tuple[str, str]]:
        """The message, and while in a lobby the host key's fingerprint, who is there and the bid
        timer: each wrapped at words to the screen's width, so no word is cut and nothing is left
        below the window."""
        parts = [self.message]
        joiner = self.joiner
        if joiner is not None:
            if joiner.fingerprint:
                parts.append(("class:value", t(self.lang, "join.fingerprint", fingerprint=joiner.fingerprint)))
            if joiner.roster:
                names = ", ".join(joiner.roster)
                parts.append(("", t(self.lang, "join.roster", names=names, taken=len(joiner.roster), seats=self.seats)))
            if joiner.bid_timer is not None:
                timer = t(self.lang, "join.bid_timer", timer=timer_text(self.lang, joiner.bid_timer))
                parts.append(("class:value", timer))
        width = max(20, self.app.output.get_size().columns - 1 if self.app.is_running else 79)
        rows = []
        for style, text in parts:
            for line in text.splitlines() or [""]:
                rows += [(style, row) for row in rows_between_words(line, width) or [""]]
        return rows

    def _roster(self, roster: list[str], seats: int) -> None:
        """The host told who is in the lobby (someone joined or left)."""
        self.seats = seats
        self.app.invalidate()

    def _label(self, key: str) -> StyleAndTextTuples:
        focused = (key == "join.pin") == self.app.layout.has_focus(self.pin)
        label = t(self.lang, "form.label", label=t(self.lang, key))
        return [("class:selected" if focused else "", " " + label), ("", " ")]

    def lobby_lines(self, lobby: Lobby, widths: tuple[int, int] = (18, 21)) -> tuple[str, str]:
        """A lobby's two lines: what it is (name, address, seats, state, rules and board, cut at 80
        columns), and the host key it advertises (80 columns hold no more on one line).
        ``widths``: of the name and address columns (:func:`column_widths`)."""
        lang = self.lang
        state = t(lang, f"join.state.{lobby.state}")
        # The seats still free, as a joiner counts them ("1/3 seats open" read as one free)
        seats = plural(lang, "join.free", max(0, lobby.seats_total - lobby.seats_taken))
        name, address = widths
        table = f"{lobby.table[:name]:<{name}} {lobby.address:<{address}}"
        line = f"{table} {seats:<10} {state:<8} {game_text(lobby, lang)}"[: 80 - len("> ")]
        return line, "  " + t(lang, "join.key", fingerprint=lobby.fingerprint)

    def _games(self) -> StyleAndTextTuples:
        lang = self.lang
        out: StyleAndTextTuples = []
        out += _line("class:title", " " + t(lang, "join.title"))
        out += _line("", "")
        lobbies = self.lobbies()
        if not lobbies:
            out += _line("class:hint", "   " + t(lang, "join.none"))
        widths = column_widths(lobbies, lang)
        for index, lobby in enumerate(lobbies):
            chosen = index == min(self.selected, len(lobbies) - 1) and not self.address.text.strip()
            what, key = self.lobby_lines(lobby, widths)
            out += _line("class:selected" if chosen else "", ("> " if chosen else "  ") + what)
            out += _line("class:selected" if chosen else "class:hint", "  " + key)
        return out
