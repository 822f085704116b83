"""Registration with the frameworks that find environments by name, without importing them.

``import lanopoly`` calls ``register_when_imported()``: Gymnasium learns ``"lanopoly/Lanopoly-v1"``
and OpenSpiel ``"python_lanopoly"`` as soon as each framework is imported, whether before or after
lanopoly (``gym.make`` and ``pyspiel.load_game`` then need no import of lanopoly's env modules). A
framework lanopoly has not seen imported is waited for by a small import hook, which tells it once
its own import has finished; lanopoly never imports a framework itself, so ``import lanopoly``
stays as quick as before when no framework is used.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

GYMNASIUM_ID = "lanopoly/Lanopoly-v1"
OPENSPIEL_NAME = "python_lanopoly"


def register_gymnasium() -> None:
    """Register the environment with Gymnasium (once; entry points are strings, nothing is imported):
    ``make`` gives a ``LanopolyEnv``, ``make_vec`` a ``LanopolyVectorEnv`` (games stepped in Rust)."""
    import gymnasium

    if GYMNASIUM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYMNASIUM_ID,
            entry_point="lanopoly.envs.gymnasium_env:LanopolyEnv",
            vector_entry_point="lanopoly.envs.vector_env:LanopolyVectorEnv",
        )


def register_openspiel() -> None:
    """Register the game with OpenSpiel (the game module registers itself when imported)."""
    import lanopoly.envs.openspiel_game  # noqa: F401


REGISTRATIONS: dict[str, Callable[[], None]] = {"gymnasium": register_gymnasium, "pyspiel": register_openspiel}


def register_when_imported() -> None:
    """Register with every framework already imported now, and with the others when they are."""
    waiting = {}
    for module, register in REGISTRATIONS.items():
        if module in sys.modules:
            _register(module, register)
        else:
            waiting[module] = register
    if waiting and not any(isinstance(finder, _AfterImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(waiting))


def _register(module: str, register: Callable[[], None]) -> None:
    """Run a registration; a failure is a warning, never a failed import of the framework."""
    try:
        register()
    except Exception as e:  # a broken or incompatible framework must not break its own import
        warnings.warn(f"lanopoly could not register with {module}: {e!r}", RuntimeWarning, stacklevel=2)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for a module it waits for, it asks the other finders and wraps the
    loader they give so that the registration runs right after the module has executed (not when
    it is only looked for: ``importlib.util.find_spec`` imports nothing)."""

    def __init__(self, waiting: dict[str, Callable[[], None]]) -> None:
        self.waiting = waiting

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.waiting:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec: importlib.machinery.ModuleSpec | None = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _ThenRegister(spec.loader, fullname, self.executed)
                return spec
        return None

    def executed(self, module: str) -> None:
        """``module`` has been imported: register with it (once), and retire when all are done."""
        register = self.waiting.pop(module, None)
        if not self.waiting and self in sys.meta_path:
            sys.meta_path.remove(self)
        if register is not None:
            _register(module, register)


class _ThenRegister(importlib.abc.Loader):
    """A module's own loader, then the registration; afterwards the module sees its own loader."""

    def __init__(self, loader: importlib.abc.Loader, module: str, executed: Callable[[str], None]) -> None:
        self.loader, self.module, self.executed = loader, module, executed

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        self.executed(self.module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)
