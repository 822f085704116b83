"""Playing a LAN game from its start, or again after a crash: the session, its driver, its files.

``play`` takes a game just set up (``hosting.Started``) and runs it: the session core with this
peer's policies, the driver on the links formed at the start, the journal and secret files next
to the saved game. ``rebuild`` rebuilds a peer from those files (``lanopoly rejoin``/``resume``),
reading them only; when its game is not over, ``restart`` opens the listening port (the start
record's, or another when that one is taken: the peers learn it from this peer's link handshakes)
and dials every other peer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from lanopoly.bots import Policy
from lanopoly.net.core import effects as fx
from lanopoly.net.core.outcome import SessionResult
from lanopoly.net.core.session import Config, Session
from lanopoly.net.driver import Driver
from lanopoly.net.genesis import StartRecord
from lanopoly.net.hosting import Gate, Started
from lanopoly.net.keys import ED25519, Signer, Suite
from lanopoly.net.store import Journal, Secrets, StoreError, check_signatures, journal_path, secret_path

log = logging.getLogger(__name__)

Policies = Callable[[StartRecord, int], Mapping[int, Policy | None]]
"""This peer's policy for each seat it controls (None: the person), given the start record and its index."""


def source_of(interfaces: list[str] | None) -> str | None:
    """The address outgoing connections start from: the first configured one (None: the system's)."""
    return interfaces[0] if interfaces else None


def driver_for(
    started: Started,
    policies: Policies,
    config: Config,
    *,
    save: Path | None = None,
    interfaces: list[str] | None = None,
    suite: Suite = ED25519,
) -> Driver:
    """The session of a game just set up, with its driver (and files, when ``save`` is given)."""
    genesis, me = started.genesis, started.me
    core = Session(
        genesis, me, started.key, started.chain_secret, started.held, policies(genesis.record, me), config, suite=suite
    )
    journal = None
    if save is not None:
        Secrets(me, started.key.seed, started.chain_secret, started.held, started.pin, (started.host_address, 0)).write(
            secret_path(save)
        )
        journal = Journal(journal_path(save), genesis)
    driver = Driver(
        core,
        started.key,
        suite=suite,
        save=save,
        journal=journal,
        host_address=started.host_address,
        source=source_of(interfaces),
        port=started.gate.port,
    )
    started.gate.on_link = driver.incoming
    return driver


async def play(driver: Driver, started: Started, on_event: Callable[[fx.Event], None] | None = None) -> SessionResult:
    """Run a game just set up until it is over or frozen; the gate closes with it."""
    if on_event is not None:
        driver.subscribe(on_event)
    try:
        return await driver.run(started.links)
    finally:
        await started.gate.close()


@dataclass(frozen=True)
class Rebuilt:
    """A peer's session rebuilt from its files, before anything is opened: ``restart`` listens and
    dials for it, unless its game is over already (then nothing is opened at all)."""

    save: Path
    core: Session
    key: Signer
    host: str


def rebuild(save: Path, policies: Policies, config: Config, *, suite: Suite = ED25519) -> Rebuilt:
    """A peer's session rebuilt from its journal and secrets, every signature checked; reads files
    only. StoreError when the files are missing or do not hold."""
    secrets = Secrets.read(secret_path(save))
    genesis, entries = Journal.read(journal_path(save))
    record = genesis.record
    me = secrets.me
    if not 0 <= me < len(record.peers):
        raise StoreError(f"{secret_path(save)} names peer {me}, who is not in the game")
    key = suite.new_signer(secrets.key_seed)
    if key.public != record.peers[me].key:
        raise StoreError(f"{secret_path(save)} holds another key than peer {me}'s")
    check_signatures(journal_path(save), genesis, entries, suite)
    try:
        core = Session(
            genesis,
            me,
            key,
            secrets.chain_secret,
            secrets.held,
            policies(record, me),
            config,
            suite=suite,
            journal=entries,
        )
    except ValueError as e:
        raise StoreError(f"{journal_path(save)} does not rebuild the game: {e}") from None
    return Rebuilt(save, core, key, secrets.host[0])


async def restart(
    rebuilt: Rebuilt, *, interfaces: list[str] | None = None, suite: Suite = ED25519
) -> tuple[Driver, Gate]:
    """The rebuilt peer listening again (its old port, or another when that one is taken), with
    the driver that dials every other peer once it ``run``s. OSError when it cannot listen."""
    core, key, save = rebuilt.core, rebuilt.key, rebuilt.save
    record = core.genesis.record
    gate = Gate(interfaces, record.peers[core.me].port)
    try:
        await gate.open()
    except OSError:
        log.warning("port %d is taken: listening on another one (the peers learn it)", record.peers[core.me].port)
        gate = Gate(interfaces, 0)
        await gate.open()
    gate.accept_links(record, core.me, key, suite)
    driver = Driver(
        core,
        key,
        suite=suite,
        save=save,
        journal=Journal(journal_path(save), core.genesis),
        host_address=rebuilt.host,
        source=source_of(interfaces),
        port=gate.port,
        dial_all=True,
    )
    gate.on_link = driver.incoming
    return driver, gate
