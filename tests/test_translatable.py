"""Every message a person reads goes through gettext, so that a catalogue can translate it.

The check reads the Python sources and looks at the message of each typed error and of
each flash message: text written there directly (a literal, an f-string, a literal joined
to something) is refused unless a gettext call wraps it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = ("accounts", "games", "moderation", "ratings", "shanghaien")
# Not scanned: schema history, the pure rules engine (codes only, no text for people) and
# commands for operators.
SKIPPED = (("migrations",), ("games", "rules"), ("management", "commands"))

# The typed errors and which positional argument is their message.
TYPED_ERRORS = {
    "BadRequest": 1,
    "Forbidden": 1,
    "NotFound": 1,
    "Conflict": 1,
    "Illegal": 1,
    "NotAuthenticated": 1,
    "ServiceError": 1,
    "RateLimited": 0,
    "BadToken": 0,  # accounts.tokens: the API answers with its text
}
FLASH = {"success", "error", "info", "warning"}
GETTEXT = {
    "_",
    "gettext",
    "gettext_lazy",
    "ngettext",
    "ngettext_lazy",
    "pgettext",
    "pgettext_lazy",
    "npgettext",
    "npgettext_lazy",
}


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _is_gettext(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and _name(node.func) in GETTEXT


def bare_text(node: ast.expr) -> bool:
    """Whether ``node`` builds text for people without gettext."""
    if _is_gettext(node):
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and any(c.isalpha() for c in node.value)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Mod):  # "…" % args: the template decides
            return bare_text(node.left)
        return bare_text(node.left) or bare_text(node.right)
    if isinstance(node, ast.IfExp):
        return bare_text(node.body) or bare_text(node.orelse)
    if isinstance(node, ast.BoolOp):
        return any(bare_text(value) for value in node.values)
    return False


def _is_super_init(func: ast.expr) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "__init__"
        and isinstance(func.value, ast.Call)
        and _name(func.value.func) == "super"
    )


def _is_flash(func: ast.expr) -> bool:
    """``messages.error(request, …)`` and its kin, or the admin's ``message_user``."""
    if _name(func) == "message_user":
        return True
    return (
        isinstance(func, ast.Attribute) and func.attr in FLASH and _name(func.value) == "messages"
    )


def _message_argument(call: ast.Call, error_base: str | None = None) -> ast.expr | None:
    """The message of a typed error or flash message; ``error_base`` is the typed error
    the enclosing class derives from (its ``super().__init__`` takes the message)."""
    name = _name(call.func)
    if name in TYPED_ERRORS:
        position = TYPED_ERRORS[name]
    elif error_base is not None and _is_super_init(call.func):
        position = TYPED_ERRORS[error_base]
    elif _is_flash(call.func):
        position = 1
    else:
        return None
    for keyword in call.keywords:
        if keyword.arg == "message":
            return keyword.value
    return call.args[position] if len(call.args) > position else None


class _Finder(ast.NodeVisitor):
    def __init__(self):
        self.bases: list[str | None] = []  # the typed error each enclosing class derives from
        self.found: list[tuple[int, str]] = []

    def visit_ClassDef(self, node: ast.ClassDef):
        names = [_name(base) for base in node.bases]
        self.bases.append(next((n for n in names if n in TYPED_ERRORS), None))
        self.generic_visit(node)
        self.bases.pop()

    def visit_Call(self, node: ast.Call):
        message = _message_argument(node, self.bases[-1] if self.bases else None)
        if message is not None and bare_text(message):
            self.found.append((node.lineno, ast.unparse(message)[:80]))
        self.generic_visit(node)


def sources():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            if any(
                parts[i : i + len(skip)] == skip
                for skip in SKIPPED
                for i in range(len(parts) - len(skip) + 1)
            ):
                continue
            yield path


def untranslated(path: Path) -> list[str]:
    finder = _Finder()
    finder.visit(ast.parse(path.read_text(), filename=str(path)))
    where = path.relative_to(ROOT)
    return [f"{where}:{line}: {text}" for line, text in sorted(finder.found)]


def test_the_check_sees_the_sources():
    paths = {str(p.relative_to(ROOT)) for p in sources()}
    assert "accounts/views.py" in paths
    assert "shanghaien/lib/input.py" in paths
    assert not any("migrations" in p or p.startswith("games/rules/") for p in paths)


def test_the_check_tells_text_from_translated_text():
    def check(code: str) -> bool:
        finder = _Finder()
        finder.visit(ast.parse(code))
        return bool(finder.found)

    assert check('NotFound("no_such_user", "There is no such player.")')
    assert check('NotFound("no_such_user", f"There is no player called {name!r}.")')
    assert check('RateLimited("Slow down.", 10)')
    assert check('messages.error(request, "Not saved: " + errors)')
    assert check('messages.success(request, message="Saved.")')
    assert check('self.message_user(request, f"{title}: {n} done.", messages.SUCCESS)')
    assert not check('NotFound("no_such_user", _("There is no player called %(name)r.") % d)')
    assert not check('RateLimited(gettext("Slow down."), 10)')
    assert not check("messages.error(request, error.message)")
    assert not check('messages.error(request, _("Not saved: %(errors)s") % d)')
    assert check(
        "class TooLarge(ServiceError):\n"
        "    def __init__(self, limit):\n"
        '        super().__init__("too_large", f"Larger than {limit} bytes.")\n'
    )
    assert not check('ValueError("a score is 1, 0.5 or 0")')  # not said to a person
    assert not check(
        'class Form(forms.Form):\n    def __init__(self):\n        super().__init__("x", "y")'
    )


def test_every_message_for_people_is_translatable():
    found = [line for path in sources() for line in untranslated(path)]
    assert not found, "text not passed through gettext:\n" + "\n".join(found)
