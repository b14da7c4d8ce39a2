"""The apps depend one way: every import of every module, at any depth, follows the graph.

The graph is drawn in docs/architecture.md ("Apps and what they may import"); this test
reads it there, so the drawing and the code cannot drift apart. Imports are read with
``ast`` from the sources, module level and inside functions alike (a function-level
import is how a cycle hides), so no module is executed.

A model named in a string is an import too, the one Django makes for it: a relation's
target (``ForeignKey("games.Game")``, ``ManyToManyField``, ``OneToOneField``, ``to=``),
``apps.get_model("games", "Game")`` or ``("games.Game")``, a signal's lazy
``sender="games.Game"``, ``apps.get_app_config("games")``, and the user model
(``settings.AUTH_USER_MODEL``, ``get_user_model()``: the app that the setting names).
Migrations are skipped: Django writes them from the models, which are read.
"""

from __future__ import annotations

import ast
from pathlib import Path

from django.apps import apps
from django.conf import settings

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("accounts", "games", "ratings", "moderation", "tournaments", "shanghaien", "bench")


def part_of(module: str) -> str | None:
    """The part of the code base a dotted module belongs to; None outside the project."""
    if module == "shanghaien.lib" or module.startswith("shanghaien.lib."):
        return "kernel"
    if module == "shanghaien" or module.startswith("shanghaien."):
        return "project"
    top = module.split(".", 1)[0]
    return top if top in PARTS else None


def module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


RELATIONS = {"ForeignKey", "ForeignObject", "ManyToManyField", "OneToOneField", "GenericRelation"}


def app_module(label: str, model: str = "") -> str | None:
    """The module of the app whose label is ``label`` ("games.Game": of the part before
    the dot); None for a label no installed app has, or a relation to ``"self"``."""
    if "." in label:
        label = label.split(".", 1)[0]
    elif model == "self" or not label:
        return None
    try:
        return apps.get_app_config(label).name
    except LookupError:
        return None


def _text(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _called(node: ast.Call) -> str:
    function = node.func
    return function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")


def model_references(node) -> list[str | None]:
    """The apps (their modules) that ``node`` names a model of in a string, if any."""
    if isinstance(node, ast.Attribute) and node.attr == "AUTH_USER_MODEL":
        return [app_module(settings.AUTH_USER_MODEL)]
    if not isinstance(node, ast.Call):
        return []
    called, args = _called(node), [_text(arg) for arg in node.args]
    keywords = {k.arg: _text(k.value) for k in node.keywords if k.arg}
    found = []
    if called in RELATIONS:
        target = keywords.get("to") or (args[0] if args else None)
        if target:
            found.append(app_module(target, target))
    elif called == "get_model" and args and args[0]:
        found.append(app_module(args[0] if len(args) == 1 else f"{args[0]}.x"))
    elif called == "get_app_config" and args and args[0]:
        found.append(app_module(f"{args[0]}.x"))
    elif called == "get_user_model":
        found.append(app_module(settings.AUTH_USER_MODEL))
    if keywords.get("sender") and "." in keywords["sender"]:
        found.append(app_module(keywords["sender"]))
    return found


def imported_modules(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``source``, at any depth, and of every
    app whose model it names in a string (``model_references``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        found += [(node.lineno, target) for target in model_references(node) if target]
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's package, up level - 1
                package = module.split(".") if is_package else module.split(".")[:-1]
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            found.append((node.lineno, target))
            # ``from games import services`` imports the module games.services
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return found


def sources():
    """Every module of the project but its migrations, which Django writes from the models."""
    for name in PARTS:
        yield from sorted(p for p in (ROOT / name).rglob("*.py") if "migrations" not in p.parts)


def edges() -> dict[tuple[str, str], list[str]]:
    """(from part, to part) → where, for every import between two different parts."""
    graph: dict[tuple[str, str], list[str]] = {}
    for path in sources():
        module = module_name(path)
        source_part = part_of(module)
        is_package = path.name == "__init__.py"
        for line, target in imported_modules(path.read_text(), module, is_package):
            target_part = part_of(target)
            if target_part and target_part != source_part:
                where = f"{path.relative_to(ROOT)}:{line} imports {target}"
                graph.setdefault((source_part, target_part), []).append(where)
    return graph


def documented_graph() -> dict[str, set[str]]:
    """The graph as docs/architecture.md draws it: lines ``part → part, part``."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("## Apps and what they may import", 1)[1].split("```", 2)[1]
    graph = {}
    for line in block.strip().splitlines():
        name, _, targets = line.partition("→")
        graph[name.strip()] = {t.strip() for t in targets.split(",") if t.strip() != "nothing"}
    return graph


def drawn_graph() -> dict[str, set[str]]:
    """The graph as the section's mermaid drawing has it: lines ``part --> part & part``."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Apps and what they may import", 1)[1].split("\n## ", 1)[0]
    block = section.split("```mermaid", 1)[1].split("```", 1)[0]
    graph = {}
    for line in block.strip().splitlines()[1:]:  # after "flowchart"
        name, _, targets = line.partition("-->")
        graph[name.strip()] = {t.strip() for t in targets.split("&")}
    return graph


def test_the_drawing_and_the_list_agree():
    listed = {name: targets for name, targets in documented_graph().items() if targets}
    assert drawn_graph() == listed


def test_every_import_follows_the_documented_graph():
    allowed = documented_graph()
    wrong = [
        where
        for (source, target), places in edges().items()
        if target not in allowed.get(source, set())
        for where in places
    ]
    assert not wrong, "imports outside docs/architecture.md's graph:\n" + "\n".join(wrong)


def test_the_documented_graph_is_the_one_the_code_has():
    """Each drawn arrow is used: the drawing shows the code as it is, not as it may be."""
    used = {}
    for source, target in edges():
        used.setdefault(source, set()).add(target)
    drawn = {name: targets for name, targets in documented_graph().items() if targets}
    assert used == drawn


def test_the_graph_has_no_cycle_and_nothing_depends_on_moderation_or_bench():
    graph = documented_graph()
    assert set(graph) == {
        "kernel",
        "accounts",
        "ratings",
        "games",
        "moderation",
        "tournaments",
        "project",
        "bench",
    }
    assert not graph["kernel"]
    assert graph["accounts"] <= {"kernel"} and graph["ratings"] <= {"accounts", "kernel"}
    assert "ratings" not in graph["accounts"] and "games" not in graph["ratings"]
    assert all("moderation" not in targets for name, targets in graph.items() if name != "project")
    assert all("bench" not in targets for targets in graph.values())

    def reachable(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for target in graph[todo.pop()]:
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        return seen

    cyclic = [name for name in graph if name in reachable(name)]
    assert not cyclic, f"cycle through {cyclic}"


def test_the_walker_finds_imports_inside_functions_and_relative_ones():
    source = (
        "from . import services\n"
        "from ..games.models import Game\n"
        "def later():\n"
        "    from moderation.services import do_report\n"
        "    import bench.echo\n"
    )
    found = {target for _, target in imported_modules(source, "accounts.views", False)}
    assert {"accounts.services", "games.models", "moderation.services", "bench.echo"} <= found
    parts = {part_of(target) for target in found}
    assert {"accounts", "games", "moderation", "bench"} <= parts


def test_relative_imports_resolve_from_a_package_and_from_a_module():
    inside_package = imported_modules("from .models import Game\n", "games.services", True)
    assert (1, "games.services.models") in inside_package
    inside_module = imported_modules("from ..access import x\n", "games.services.chat", False)
    assert (1, "games.access") in inside_module


def test_the_kernel_is_told_apart_from_the_project():
    assert part_of("shanghaien.lib.errors") == "kernel"
    assert part_of("shanghaien.health") == "project"
    assert part_of("django.db") is None
    assert part_of("games.rules.engine") == "games"


def test_a_model_named_in_a_string_is_an_import():
    source = (
        "from django.conf import settings\n"
        "class Change(models.Model):\n"
        "    game = models.ForeignKey('games.Game', on_delete=models.CASCADE)\n"
        "    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)\n"
        "    tags = models.ManyToManyField(to='moderation.Report')\n"
        "    parent = models.ForeignKey('self', null=True, on_delete=models.CASCADE)\n"
        "def later(apps):\n"
        "    apps.get_model('ratings', 'PlayerRating')\n"
        "    apps.get_model('bench_nothing.Model')\n"
        "post_save.connect(handler, sender='games.Seat')\n"
    )
    found = [part_of(target) for _, target in imported_modules(source, "elsewhere", False)]
    assert sorted(filter(None, found)) == ["accounts", "games", "games", "moderation", "ratings"]


def test_the_ratings_know_a_game_only_by_its_id():
    """ratings comes before games: not even a foreign key names a game's model."""
    wrong = edges().get(("ratings", "games"), [])
    assert not wrong, wrong
