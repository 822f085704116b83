"""Tab completion on the command line: command names (the language's own words too), then the
property or player names the command expects.
"""

from __future__ import annotations

from collections.abc import Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from lanopoly.console.commands import COMMANDS, command_words
from lanopoly.console.names import fold
from lanopoly.console.session import Table
from lanopoly.i18n import ALIASES, t

_PROPERTY_COMMANDS = {"build", "sell", "selldown", "mortgage", "m", "unmortgage", "u", "lift", "keep", "claim", "info"}
_PLAYER_COMMANDS = {"accept", "reject", "trade", "portfolio"}


class CommandCompleter(Completer):
    """Completes command names, then property or player names as the command expects."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        lang = self.table.lang
        if " " not in text:
            own = [(alias, name) for alias, name in ALIASES.get(lang, {}).items()]
            words = command_words(lang)  # an English name a word of the language took is not offered
            english = [(name, name) for name, _, _args in COMMANDS if words.get(fold(name)) == name]
            for word, name in english + own:
                if fold(word).startswith(fold(text)):
                    yield Completion(word, -len(text), display_meta=t(lang, "cmd." + name))
            return
        command, _, rest = text.partition(" ")
        game = self.table.game
        name = command_words(lang).get(fold(command), "")
        if name in _PROPERTY_COMMANDS:
            candidates = [game.square(s)["name"] for s in range(40) if "price" in game.square(s)]
        elif name in _PLAYER_COMMANDS and " " not in rest:
            candidates = list(game.names)
        else:
            return
        for name in candidates:
            if fold(name).startswith(fold(rest)) or fold(rest) in fold(name):
                yield Completion(name, -len(rest))
