"""Write the gettext catalogs of lanopoly from the Python dict tables they replaced.

Until issue 14 the console's texts lived in tables in ``python/lanopoly/i18n.py`` (EN/FR/IT/NO,
TOKENS, BOARD_LABELS, ALIASES) and the refusals' in ``python/lanopoly/refusals.py``. This script
reads those tables from the old files (without importing them) and writes
``python/lanopoly/locale/<lang>/LC_MESSAGES/{console,refusals}.po``. It is kept for merging
branches that still add texts to the tables: take their old-style files and run it again::

    git show BRANCH:python/lanopoly/i18n.py > /tmp/i18n_old.py
    git show BRANCH:python/lanopoly/refusals.py > /tmp/refusals_old.py
    python tools/po_from_tables.py /tmp/i18n_old.py /tmp/refusals_old.py

then keep the table-less i18n.py and refusals.py of this change. New keys become entries as they
are, ``K.one`` with ``K.other`` one counted entry ``K`` (what ``plural(lang, "K", n)`` reads);
code that looked into the tables (``key in EN``) asks :func:`lanopoly.i18n.has` instead. Run on
the tables this change removed, it writes the committed catalogs byte for byte. It rewrites every
catalog, so texts edited in the .po files since are lost: once every branch is merged, the .po
files are the only source and this script can go.
"""

# ruff: noqa: E501  (tables of texts, one pair a line)
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "python" / "lanopoly" / "locale"
LANGS = ("en", "fr", "it", "no")
PLURAL_FORMS = {"fr": "nplurals=2; plural=(n > 1);"}
DEFAULT_PLURAL_FORMS = "nplurals=2; plural=(n != 1);"
LANGUAGE_NAMES = {"en": "English", "fr": "Français", "it": "Italiano", "no": "Norsk"}

# Pairs of the old tables that become one entry with plural forms: context -> (singular, plural keys).
PAIRS = {"level": ("level.one", "level.many")}
"""Besides every ``K.one`` with a ``K.other`` (the pairs the old ``plural(lang, "K", n)`` read)."""

# Texts the old tables had in one form for every count ("1 more lines"): both forms, per language.
COUNTED: dict[str, dict[str, tuple[str, str]]] = {
    "log.below": {
        "en": (
            "log: {n} more line below (PageDown; PageUp for earlier lines)",
            "log: {n} more lines below (PageDown; PageUp for earlier lines)",
        ),
        "fr": (
            "journal : encore {n} ligne plus bas (PageDown ; PageUp pour remonter)",
            "journal : encore {n} lignes plus bas (PageDown ; PageUp pour remonter)",
        ),
        "it": (
            "registro: ancora {n} riga sotto (PagGiù; PagSu per risalire)",
            "registro: altre {n} righe sotto (PagGiù; PagSu per risalire)",
        ),
        "no": (
            "logg: {n} linje til nedenfor (PageDown; PageUp for tidligere linjer)",
            "logg: {n} linjer til nedenfor (PageDown; PageUp for tidligere linjer)",
        ),
    },
    "net.sent": {
        "en": ("{n} sent, waiting for the next step", "{n} sent, waiting for the next step"),
        "fr": ("{n} envoyé, en attente de l'étape suivante", "{n} envoyés, en attente de l'étape suivante"),
        "it": ("{n} inviata, in attesa del prossimo passo", "{n} inviate, in attesa del prossimo passo"),
        "no": ("{n} sendt, venter på neste steg", "{n} sendt, venter på neste steg"),
    },
    "end.title": {
        "en": ("Game over after {rounds} round: {winner} wins.", "Game over after {rounds} rounds: {winner} wins."),
        "fr": (
            "Partie terminée après {rounds} tour : {winner} gagne.",
            "Partie terminée après {rounds} tours : {winner} gagne.",
        ),
        "it": ("Partita finita dopo {rounds} giro: vince {winner}.", "Partita finita dopo {rounds} giri: vince {winner}."),
        "no": (
            "Spillet er over etter {rounds} runde: {winner} vinner.",
            "Spillet er over etter {rounds} runder: {winner} vinner.",
        ),
    },
    "end.longest": {
        "en": ("   held {square} longest ({turns} turn)", "   held {square} longest ({turns} turns)"),
        "fr": ("   a gardé {square} le plus longtemps ({turns} tour)", "   a gardé {square} le plus longtemps ({turns} tours)"),
        "it": ("   ha tenuto {square} più a lungo ({turns} turno)", "   ha tenuto {square} più a lungo ({turns} turni)"),
        "no": ("   eide {square} lengst ({turns} tur)", "   eide {square} lengst ({turns} turer)"),
    },
    "end.record": {
        "en": ("Longest holder: {name}, {square} for {turns} turn.", "Longest holder: {name}, {square} for {turns} turns."),
        "fr": (
            "Plus longue détention : {name}, {square} pendant {turns} tour.",
            "Plus longue détention : {name}, {square} pendant {turns} tours.",
        ),
        "it": ("Possesso più lungo: {name}, {square} per {turns} turno.", "Possesso più lungo: {name}, {square} per {turns} turni."),
        "no": ("Lengste eierskap: {name}, {square} i {turns} tur.", "Lengste eierskap: {name}, {square} i {turns} turer."),
    },
    "start.saved_value": {
        "en": ("{names}, {steps} step", "{names}, {steps} steps"),
        "fr": ("{names}, {steps} étape", "{names}, {steps} étapes"),
        "it": ("{names}, {steps} passo", "{names}, {steps} passi"),
        "no": ("{names}, {steps} steg", "{names}, {steps} steg"),
    },
    "replay.status": {
        "en": ("Step {step} of {total}: {state}, {speed} step a second", "Step {step} of {total}: {state}, {speed} steps a second"),
        "fr": ("Étape {step} sur {total} : {state}, {speed} étape par seconde", "Étape {step} sur {total} : {state}, {speed} étapes par seconde"),
        "it": ("Passo {step} di {total}: {state}, {speed} passo al secondo", "Passo {step} di {total}: {state}, {speed} passi al secondo"),
        "no": ("Steg {step} av {total}: {state}, {speed} steg i sekundet", "Steg {step} av {total}: {state}, {speed} steg i sekundet"),
    },
    "end.chart": {
        "en": ("Net worth round by round ({rounds} round; a full bar is {top}):", "Net worth round by round ({rounds} rounds; a full bar is {top}):"),
        "fr": ("Fortune tour par tour ({rounds} tour ; une barre pleine vaut {top}) :", "Fortune tour par tour ({rounds} tours ; une barre pleine vaut {top}) :"),
        "it": ("Patrimonio giro per giro ({rounds} giro; una barra piena vale {top}):", "Patrimonio giro per giro ({rounds} giri; una barra piena vale {top}):"),
        "no": ("Formue runde for runde ({rounds} runde; en full stolpe er {top}):", "Formue runde for runde ({rounds} runder; en full stolpe er {top}):"),
    },
    # counted by the players named: "bob left" / "bob, eve left"
    "lobby.left": {
        "en": (
            "{names} left the lobby: the seat is free. Enter starts without them, or wait for a player.",
            "{names} left the lobby: their seats are free. Enter starts without them, or wait for players.",
        ),
        "fr": (
            "{names} a quitté le salon : la place est libre. Entrée lance sans lui, ou attendez un joueur.",
            "{names} ont quitté le salon : les places sont libres. Entrée lance sans eux, ou attendez des joueurs.",
        ),
        "it": (
            "{names} ha lasciato la sala: il posto è libero. Invio inizia senza, o aspetta un giocatore.",
            "{names} hanno lasciato la sala: i posti sono liberi. Invio inizia senza, o aspetta dei giocatori.",
        ),
        "no": (
            "{names} forlot lobbyen: plassen er ledig. Enter starter uten, eller vent på en spiller.",
            "{names} forlot lobbyen: plassene er ledige. Enter starter uten dem, eller vent på spillere.",
        ),
    },
    "net.alert_away": {
        "en": ("{peers} away for {since}: waiting for them to rejoin", "{peers} away for {since}: waiting for them to rejoin"),
        "fr": ("{peers} absent depuis {since} : on attend son retour", "{peers} absents depuis {since} : on attend leur retour"),
        "it": ("{peers} assente da {since}: si aspetta che rientri", "{peers} assenti da {since}: si aspetta che rientrino"),
        "no": ("{peers} borte i {since}: venter på at de kommer tilbake", "{peers} borte i {since}: venter på at de kommer tilbake"),
    },
    # counted by the seats named
    "net.removed": {
        "en": (
            "{peer} voted out: {seats} resigns, the bank takes their assets (all the others voted so).",
            "{peer} voted out: {seats} resign, the bank takes their assets (all the others voted so).",
        ),
        "fr": (
            "{peer} exclu : {seats} abandonne, la banque prend ses biens (tous les autres l'ont voté).",
            "{peer} exclu : {seats} abandonnent, la banque prend leurs biens (tous les autres l'ont voté).",
        ),
        "it": (
            "{peer} escluso: {seats} si ritira, la banca prende i suoi beni (votato da tutti gli altri).",
            "{peer} escluso: {seats} si ritirano, la banca prende i loro beni (votato da tutti gli altri).",
        ),
        "no": (
            "{peer} stemt ut: {seats} gir opp, banken tar eiendelene (alle de andre stemte slik).",
            "{peer} stemt ut: {seats} gir opp, banken tar eiendelene (alle de andre stemte slik).",
        ),
    },
}  # fmt: skip

# Refusals reworded to keep every field of the template (msgfmt --check wants them all).
REWORDED = {
    "there is no seat {seat}": {
        "en": "there is no player {seat}",
        "fr": "il n'y a pas de joueur {seat}",
        "it": "non c'è nessun giocatore {seat}",
        "no": "det finnes ingen spiller {seat}",
    },
}

TOKEN_KEYS = ("dog", "top_hat", "car", "battleship", "cat", "t_rex", "duck", "penguin")

Entry = tuple[str | None, str, str | None, list[str], list[str]]  # context, msgid, plural, msgstrs, comments


def tables(path: Path) -> tuple[dict[str, object], dict[str, dict[str, list[str]]]]:
    """The top-level literal assignments of an old-style module, and the comments before each key."""
    source = path.read_text()
    lines = source.splitlines()
    values: dict[str, object] = {}
    comments: dict[str, dict[str, list[str]]] = {}
    for node in ast.parse(source).body:
        target = (
            node.target
            if isinstance(node, ast.AnnAssign)
            else (node.targets[0] if isinstance(node, ast.Assign) else None)
        )
        if not isinstance(target, ast.Name) or node.value is None:
            continue
        try:
            values[target.id] = ast.literal_eval(node.value)
        except ValueError:
            continue
        if isinstance(node.value, ast.Dict):
            seen, notes = node.value.lineno, {}
            for key in node.value.keys:
                if isinstance(key, ast.Constant):
                    block = [m.group(1) for line in lines[seen : key.lineno - 1] if (m := re.match(r"\s*# (.*)", line))]
                    notes[key.value] = block
                    seen = key.lineno
            comments[target.id] = notes
    return values, comments


def counted(text: str) -> str:
    """The singular of an old pair with the count written out ("1 house") counting instead ("{n} house")."""
    return text if "{n" in text else text.replace("1", "{n}", 1)


def console_entries(values: dict[str, object], notes: dict[str, dict[str, list[str]]]) -> dict[str, list[Entry]]:
    """Every entry of the console domain, per language, in the English table's order."""
    texts: dict[str, dict[str, str]] = {lang: values[lang.upper()] for lang in LANGS}  # type: ignore[misc]
    english = texts["en"]
    pairs = PAIRS | {
        key[:-4]: (key, key[:-4] + ".other")
        for key in english
        if key.endswith(".one") and key[:-4] + ".other" in english
    }
    paired = {key: context for context, keys in pairs.items() for key in keys}
    out: dict[str, list[Entry]] = {lang: [] for lang in LANGS}
    for lang in LANGS:
        out[lang].append(("language.name", "English", None, [LANGUAGE_NAMES[lang]], ["The language's name in itself."]))
    for key in english:
        if key in paired and key != pairs[paired[key]][0]:
            continue
        context = paired.get(key, key)
        for lang in LANGS:
            table = texts[lang]
            comment = notes["EN"].get(key, [])
            if context in pairs:
                one, many = (table[k] for k in pairs[context])
                en_one, en_many = (english[k] for k in pairs[context])
                out[lang].append((context, counted(en_one), en_many, [counted(one), many], comment))
            elif context in COUNTED:
                en_one, en_many = COUNTED[context]["en"]
                out[lang].append((context, en_one, en_many, list(COUNTED[context][lang]), comment))
            else:
                out[lang].append((context, english[key], None, [table[key]], comment))
    tokens: dict[str, list[str]] = values["TOKENS"]  # type: ignore[assignment]
    for i, key in enumerate(TOKEN_KEYS):
        note = ["The eight tokens (French: as the engine's Paris edition names them)."] if i == 0 else []
        for lang in LANGS:
            out[lang].append((f"token.{key}", tokens["en"][i], None, [tokens[lang][i]], note))
    labels: dict[str, dict[str, str]] = values["BOARD_LABELS"]  # type: ignore[assignment]
    for i, kind in enumerate(labels["en"]):
        note = ["Board labels: exactly 4 characters (corners, card and tax squares, utilities)."] if i == 0 else []
        for lang in LANGS:
            out[lang].append((f"label.{kind}", labels["en"][kind], None, [labels[lang][kind]], note))
    aliases: dict[str, dict[str, str]] = values["ALIASES"]  # type: ignore[assignment]
    commands = list(dict.fromkeys(name for lang in LANGS for name in aliases[lang].values()))
    for i, name in enumerate(commands):
        note = (
            [
                "The words a player may type for a command, separated by spaces; the first is the one shown."
                " The English word works in every language: keep it alone when there is no other word."
            ]
            if i == 0
            else []
        )
        for lang in LANGS:
            words = [alias for alias, command in aliases[lang].items() if command == name] or [name]
            out[lang].append((f"alias.{name}", name, None, [" ".join(words)], note))
    return out


def refusal_entries(values: dict[str, object], notes: dict[str, dict[str, list[str]]]) -> dict[str, list[Entry]]:
    """Every entry of the refusals domain, per language: the msgid is the engine's template."""
    texts: dict[str, dict[str, str]] = {lang: values[lang.upper()] for lang in LANGS}  # type: ignore[misc]
    return {
        lang: [
            (None, code, None, [REWORDED.get(code, {}).get(lang, texts[lang][code])], notes["EN"].get(code, []))
            for code in texts["en"]
        ]
        for lang in LANGS
    }


def quote(text: str) -> str:
    """A .po string: escaped, split after each newline into lines of its own."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    parts = escaped.split("\n")
    pieces = [p + "\\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    if len(pieces) <= 1:
        return f'"{pieces[0] if pieces else ""}"'
    return '""\n' + "\n".join(f'"{p}"' for p in pieces)


def write(lang: str, domain: str, entries: list[Entry]) -> None:
    forms = PLURAL_FORMS.get(lang, DEFAULT_PLURAL_FORMS)
    header = (
        f"Project-Id-Version: lanopoly {domain}\nPO-Revision-Date: 2026-12-01 00:00+0000\n"
        f"Last-Translator: lanopoly developers\nLanguage-Team: lanopoly {lang}\nLanguage: {lang}\nMIME-Version: 1.0\n"
        f"Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\nPlural-Forms: {forms}\n"
    )
    what = (
        "console: every text of the console and of the event sentences"
        if domain == "console"
        else ("refusals: the engine's refusals, keyed by the engine's template")
    )
    chunks = [
        f"# lanopoly {what}; language {lang}.\n# msgctxt is the key the code asks for.\n"
        f'msgid ""\nmsgstr {quote(header)}\n'
    ]
    for context, msgid, plural, msgstrs, comment in entries:
        lines = [f"#. {c}" for c in comment]
        if "{" in msgid or (plural and "{" in plural):
            lines.append("#, python-brace-format")
        if context is not None:
            lines.append(f"msgctxt {quote(context)}")
        lines.append(f"msgid {quote(msgid)}")
        if plural is None:
            lines.append(f"msgstr {quote(msgstrs[0])}")
        else:
            lines.append(f"msgid_plural {quote(plural)}")
            lines += [f"msgstr[{i}] {quote(s)}" for i, s in enumerate(msgstrs)]
        chunks.append("\n".join(lines) + "\n")
    path = LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(chunks))


def main(argv: list[str]) -> int:
    i18n_path, refusals_path = (Path(a) for a in argv[1:3])
    console = console_entries(*tables(i18n_path))
    refusals = refusal_entries(*tables(refusals_path))
    for lang in LANGS:
        write(lang, "console", console[lang])
        write(lang, "refusals", refusals[lang])
    print(f"wrote {len(console['en'])} console and {len(refusals['en'])} refusal entries per language to {LOCALE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
