"""What a user's card, claim or algorithm *is*, as a digest: a result keyed by it is never served stale.

A stored result is keyed by the code that computed it.  fcocheck's own code is covered by
``verify.sweep.version.code_version`` (a hash of its source files); a plugin's card or claim is not in
those files, so ``definition_digest(obj)`` hashes it: the object's value and the code it runs.

* Plain values (numbers, strings, arrays, ``None`` …) by ``solvers.exact_digest`` (typed, exact).
* Containers, dataclass instances (every field) and objects with a ``__dict__`` (every attribute),
  each with its class.
* A function written outside the libraries: its code — bytecode, constants (nested functions
  recursively), the names it reads, argument counts and flags, defaults, the contents of its closure,
  and the value of every global it reads (a helper function, a constant, an imported user module)
  recursively.  Not its line numbers, comments or docstring: moving a function down a file changes
  nothing it computes.
* A class written outside the libraries: its bases, its dataclass fields and defaults, and every
  attribute it defines (methods by their code).
* A user module a function reads (``import helpers``): the SHA-256 of its source file.
* Anything from a library — fcocheck itself, the standard library, an installed package — by its
  qualified name only: fcocheck's code is in ``code_version``, a library's in its version.
* Anything else (no value to read): its ``repr`` when it holds no address, else a fresh nonce — such a
  definition is never recognised again, so its results are recomputed rather than served stale.

Cycles (a method that names its own class) are fed as a back-reference to the first visit.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import sys
import sysconfig
import types
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from fcocheck.solvers.exact_digest import feed, token

#: class attributes that are bookkeeping, not behaviour
_SKIP = frozenset({"__dict__", "__weakref__", "__module__", "__doc__", "__qualname__", "__annotations__",
                   "__dataclass_fields__", "__dataclass_params__", "__match_args__", "__slots__",
                   "__firstlineno__", "__static_attributes__", "__orig_bases__", "__parameters__"})
_EXACT = (type(None), bool, int, float, str, np.ndarray, np.generic)


@functools.lru_cache(maxsize=1)
def _library_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    return tuple(Path(r).resolve() for r in roots)


@functools.lru_cache(maxsize=4096)
def is_library(module: str | None) -> bool:
    """Whether ``module`` is fcocheck, the standard library or an installed package (not a user's code)."""
    if not module:
        return False
    top = module.partition(".")[0]
    if top in ("fcocheck", "builtins") or top in sys.stdlib_module_names:
        return True
    file = getattr(sys.modules.get(top), "__file__", None)
    if file is None:
        return top in sys.builtin_module_names
    where = Path(file).resolve()
    return any(where.is_relative_to(root) for root in _library_roots())


class _Feeder:
    """One digest's traversal: the hash and the objects already visited (for back-references)."""

    def __init__(self, h: Any) -> None:
        self.h = h
        self.seen: dict[int, int] = {}
        self.keep: list[Any] = []  # visited objects stay alive, so their ids are not reused

    def visit(self, x: Any) -> bool:
        """True the first time ``x`` is met; later, feed a back-reference and return False."""
        if id(x) in self.seen:
            token(self.h, b"<", str(self.seen[id(x)]).encode())
            return False
        self.seen[id(x)] = len(self.seen)
        self.keep.append(x)
        return True

    def name(self, tag: bytes, x: Any) -> None:
        token(self.h, tag, f"{getattr(x, '__module__', '')}.{getattr(x, '__qualname__', repr(x))}".encode())

    def value(self, x: Any) -> None:  # noqa: C901 - one branch per kind, in the module docstring's order
        """Feed ``x`` (module docstring)."""
        if isinstance(x, _EXACT) and not (isinstance(x, np.ndarray) and x.dtype.hasobject):
            feed(self.h, x)
        elif isinstance(x, bytes | bytearray | complex | frozenset | set | range | type(Ellipsis)):
            items = sorted(map(repr, x)) if isinstance(x, frozenset | set) else repr(x)
            token(self.h, b"y", repr((type(x).__name__, items)).encode())
        elif isinstance(x, dict):
            token(self.h, b"{", str(len(x)).encode())
            for k in sorted(x, key=lambda k: (type(k).__qualname__, repr(k))):
                self.value(k)
                self.value(x[k])
        elif isinstance(x, list | tuple):
            token(self.h, b"[" if isinstance(x, list) else b"(", str(len(x)).encode())
            if type(x) not in (list, tuple):  # a named tuple: its class too
                self.value(type(x))
            for v in x:
                self.value(v)
        elif isinstance(x, types.FunctionType):
            self.function(x)
        elif isinstance(x, types.MethodType):
            token(self.h, b"M")
            self.value(x.__func__)
            self.value(x.__self__)
        elif isinstance(x, staticmethod | classmethod):
            token(self.h, b"S" if isinstance(x, staticmethod) else b"C")
            self.value(x.__func__)
        elif isinstance(x, property):
            token(self.h, b"P")
            for part in (x.fget, x.fset, x.fdel):
                self.value(part)
        elif isinstance(x, functools.partial):
            token(self.h, b"p")
            self.value((x.func, x.args, x.keywords))
        elif isinstance(x, type):
            self.cls(x)
        elif isinstance(x, types.ModuleType):
            self.module(x)
        elif isinstance(x, types.CodeType):
            self.code(x)
        elif isinstance(x, enum.Enum):
            self.value(type(x))
            token(self.h, b"e", x.name.encode())
        elif isinstance(x, types.BuiltinFunctionType | types.BuiltinMethodType) or _library_callable(x):
            self.name(b"B", x)
        elif dataclasses.is_dataclass(x) or hasattr(x, "__dict__"):
            self.instance(x)
        else:
            text = repr(x)
            token(self.h, b"r", (text if " at 0x" not in text else uuid.uuid4().hex).encode())

    def instance(self, x: Any) -> None:
        """A dataclass by its fields (not what it caches beside them), another object by its attributes."""
        if not self.visit(x):
            return
        token(self.h, b"o")
        self.value(type(x))
        if dataclasses.is_dataclass(x):
            for f in dataclasses.fields(x):
                token(self.h, b"f", f.name.encode())
                self.value(getattr(x, f.name))
        else:
            self.value(dict(vars(x)))

    def function(self, fn: types.FunctionType) -> None:
        if is_library(fn.__module__):
            self.name(b"F", fn)
            return
        if not self.visit(fn):
            return
        token(self.h, b"f", fn.__qualname__.encode())
        self.code(fn.__code__, fn.__doc__)
        self.value((fn.__defaults__, fn.__kwdefaults__))
        for cell in fn.__closure__ or ():
            try:
                self.value(cell.cell_contents)
            except ValueError:  # an empty cell
                token(self.h, b"0")
        for name in sorted(_global_names(fn.__code__)):
            if name in fn.__globals__:
                token(self.h, b"g", name.encode())
                self.value(fn.__globals__[name])

    def code(self, co: types.CodeType, doc: str | None = None) -> None:
        """Bytecode, names, argument counts, flags and constants (``doc``, the docstring, left out)."""
        token(self.h, b"c", co.co_code)
        token(self.h, b"n", repr((co.co_names, co.co_argcount, co.co_posonlyargcount, co.co_kwonlyargcount,
                                  co.co_flags)).encode())
        for i, const in enumerate(co.co_consts):
            if isinstance(const, types.CodeType):
                self.code(const)
            elif i == 0 and doc is not None and const == doc:
                token(self.h, b"d")  # the docstring: not behaviour
            else:
                self.value(const)

    def cls(self, c: type) -> None:
        if is_library(c.__module__):
            self.name(b"T", c)
            return
        if not self.visit(c):
            return
        token(self.h, b"t", c.__qualname__.encode())
        self.value(c.__bases__)
        if dataclasses.is_dataclass(c):
            for f in dataclasses.fields(c):
                self.value((f.name, None if f.default is dataclasses.MISSING else f.default,
                            None if f.default_factory is dataclasses.MISSING else f.default_factory))
        for k in sorted(vars(c)):
            if k not in _SKIP and not (k == "__init__" and dataclasses.is_dataclass(c)):
                token(self.h, b"a", k.encode())
                self.value(vars(c)[k])

    def module(self, m: types.ModuleType) -> None:
        if is_library(m.__name__):
            self.name(b"N", m)
            return
        if not self.visit(m):
            return
        file = getattr(m, "__file__", None)
        token(self.h, b"m", m.__name__.encode())
        if file is not None and Path(file).is_file():
            token(self.h, b"s", hashlib.sha256(Path(file).read_bytes()).digest())


def _library_callable(x: Any) -> bool:
    """A callable object of a library with no state of its own to read (a ufunc, a builtin method)."""
    return callable(x) and not hasattr(x, "__dict__") and is_library(getattr(x, "__module__", None))


def _global_names(co: types.CodeType) -> set[str]:
    """The names ``co`` and its nested code objects read (globals and attributes alike)."""
    names = set(co.co_names)
    for const in co.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


_CACHE: dict[int, tuple[Any, str]] = {}


def definition_digest(obj: Any) -> str:
    """Hex SHA-256 (16 characters) of what ``obj`` is and runs (module docstring); cached per object."""
    hit = _CACHE.get(id(obj))
    if hit is not None and hit[0] is obj:
        return hit[1]
    h = hashlib.sha256()
    _Feeder(h).value(obj)
    digest = h.hexdigest()[:16]
    _CACHE[id(obj)] = (obj, digest)
    return digest
