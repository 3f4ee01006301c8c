"""A claim's expression text, checked before sympy reads it: arithmetic on names, and nothing else.

``sympy.sympify`` evaluates its text as Python.  A plugin is code, so its claims could run anything
anyway; but a claim's text may also come from data (a stored result, a JSON design), so the text is
parsed first (``ast``) and admitted only when it is

* at most ``MAX_CHARS`` characters, its operations nested at most ``MAX_DEPTH`` deep (sympy's parser
  recurses: a 100 kB sum overflowed its stack);
* made of numbers, names (not starting with ``_``), ``+ - * / **``, unary signs, parentheses and
  calls of ``FUNCTIONS`` with positional arguments — no attribute, subscript, keyword, lambda,
  comprehension or string;
* bounded when evaluated: every number at most ``MAX_NUMBER`` in size, an exponent that is a number at
  most ``MAX_EXPONENT`` in size (``R**(10**10)`` kept sympy busy for ever), and no exponential inside
  an exponent (``exp(exp(R))``, ``2**(2**R)``).

``refused(text)`` says why a text breaks the rule (None when it follows it); ``claim.as_expr`` makes it
an ``InvalidClaimError`` naming the claim, the text and the rule.
"""

from __future__ import annotations

import ast

MAX_CHARS = 2000
MAX_NUMBER = 1e15
MAX_EXPONENT = 64
MAX_DEPTH = 100
#: the functions an expression may call (sympy's, by these names)
FUNCTIONS = frozenset({"sqrt", "cbrt", "root", "log", "exp", "ceiling", "floor", "Min", "Max", "Abs"})
RULE = (f"the rule is at most {MAX_CHARS} characters of numbers, names, + - * / **, parentheses and calls of "
        f"{sorted(FUNCTIONS)}, nested at most {MAX_DEPTH} deep; numbers at most {MAX_NUMBER:g}, a numeric "
        f"exponent at most {MAX_EXPONENT}, no exponential inside an exponent")
_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


def _number(node: ast.AST) -> float | None:
    """The value of a numeric subtree (numbers, signs, the four operations and bounded powers), else None."""
    if isinstance(node, ast.Constant):
        v = node.value
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        v = _number(node.operand)
        return None if v is None else (v if isinstance(node.op, ast.UAdd) else -v)
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, _OPS)):
        return None
    a, b = _number(node.left), _number(node.right)
    if a is None or b is None:
        return None
    op = type(node.op)
    try:
        if op is ast.Pow:
            return abs(a) ** b if abs(b) <= MAX_EXPONENT else float("inf")
        return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}[op] if op is not ast.Div else a / b
    except (ZeroDivisionError, OverflowError):
        return float("inf")


def _grows(node: ast.AST) -> bool:
    """Whether a subtree holds an exponential: ``exp(…)`` or a power whose exponent is not a number."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "exp":
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) and _number(n.right) is None:
            return True
    return False


def _power(n: ast.BinOp) -> str | None:
    p = _number(n.right)
    if p is not None and not abs(p) <= MAX_EXPONENT:
        return f"the exponent {ast.unparse(n.right)}"
    if p is None and _grows(n.right):
        return f"an exponential in the exponent {ast.unparse(n.right)}"
    return None


def _node(n: ast.AST) -> str | None:
    """What node ``n`` breaks of the rule (a short phrase), or None."""
    if isinstance(n, ast.Expression | ast.expr_context | ast.operator | ast.unaryop):
        return None  # structure; the operators are checked where they are used
    if isinstance(n, ast.Constant):
        if not isinstance(n.value, int | float) or isinstance(n.value, bool):
            return f"the constant {n.value!r}"
        return f"the number {n.value!r}" if not abs(float(n.value)) <= MAX_NUMBER else None
    if isinstance(n, ast.Name):
        return f"the name {n.id!r}" if n.id.startswith("_") else None
    if isinstance(n, ast.BinOp):
        if not isinstance(n.op, _OPS):
            return f"the operator {type(n.op).__name__}"
        return _power(n) if isinstance(n.op, ast.Pow) else None
    if isinstance(n, ast.UnaryOp):
        return None if isinstance(n.op, ast.UAdd | ast.USub) else f"the operator {type(n.op).__name__}"
    if isinstance(n, ast.Call):
        if not (isinstance(n.func, ast.Name) and n.func.id in FUNCTIONS) or n.keywords:
            return f"the call {ast.unparse(n)[:40]}"
        if n.func.id == "exp" and any(_grows(a) for a in n.args):
            return f"an exponential in the exponent {ast.unparse(n)[:40]}"
        return None
    return f"{type(n).__name__.lower()} {ast.unparse(n)[:40]!r}"


def refused(text: str) -> str | None:
    """Why ``text`` breaks the rule (module docstring, ``RULE`` appended), or None when it follows it."""
    if len(text) > MAX_CHARS:
        return f"{len(text)} characters; {RULE}"
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return f"text that does not parse; {RULE}"
    if _depth(tree) > MAX_DEPTH:
        return f"operations nested more than {MAX_DEPTH} deep; {RULE}"
    why = next((w for w in map(_node, ast.walk(tree)) if w is not None), None)
    return None if why is None else f"{why}; {RULE}"


def _depth(tree: ast.AST) -> int:
    """How deep the operations nest (without recursion: the tree may be deep)."""
    deepest, todo = 0, [(tree, 0)]
    while todo:
        node, d = todo.pop()
        deepest = max(deepest, d)
        todo.extend((child, d + 1) for child in ast.iter_child_nodes(node))
    return deepest
