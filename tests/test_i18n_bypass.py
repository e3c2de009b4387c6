"""No user-facing text in ``bot/`` or ``render/`` bypasses the translation layer.

The checker parses the source with :mod:`ast` and follows every expression that reaches a place
where text is shown to people: message contents, embeds, buttons, menus, command names and
descriptions, console lines printed for admins, exceptions carrying a refusal, and every word
Pillow draws. A string literal with a letter in it that reaches such a place is a violation (an
f-string's literal parts too, concatenations, both branches of a conditional, a ``join``
separator, and local variables assigned a literal). Text produced by a call (``translate(...)``,
``str(n)``) is what the translation layer or a number gives, so it is not followed.

Identifiers, custom_ids and log messages never reach these places, so they need no allow-list;
the only exemptions are developer tools that are not part of the game (listed with a reason).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Modules that never show anything to players or admins (developer tools), and why.
EXEMPT = {
    "render/demo.py": "a developer command that writes demo pictures (README screenshots)",
    "render/goldens.py": "a developer command that regenerates the test goldens",
    "render/positions.py": "builds test and demo positions; its player names are sample data",
}

#: call name -> (positional argument indexes, keyword names) whose text is shown to people.
#: ``*`` as keyword means every keyword (``describe(abilities=...)``).
SINKS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    # discord.py messages and replies
    "send_message": ((0,), ("content",)),
    "send": ((0,), ("content",)),
    "reply": ((0,), ("content",)),
    "edit": ((), ("content",)),
    "edit_message": ((), ("content",)),
    "edit_original_response": ((), ("content",)),
    "Embed": ((), ("title", "description")),
    "set_footer": ((), ("text",)),
    "set_author": ((), ("name",)),
    "add_field": ((), ("name", "value")),
    # components (Components V2 texts and picture descriptions included)
    "TextDisplay": ((0,), ("content",)),
    "text_block": ((0,), ()),
    "MediaGalleryItem": ((), ("description",)),
    "Button": ((), ("label",)),
    "Select": ((), ("placeholder",)),
    "SelectOption": ((0,), ("label", "description")),
    "TextInput": ((), ("label", "placeholder", "default")),
    "Modal": ((), ("title",)),
    # application commands (names and descriptions are localised through the Translator)
    "command": ((), ("name", "description")),
    "Group": ((), ("name", "description")),
    "Choice": ((), ("name",)),
    "describe": ((), ("*",)),
    "rename": ((), ("*",)),
    "locale_str": ((0,), ()),
    # admin console and refusals
    "print": ((0, 1, 2, 3), ()),
    "ArgumentParser": ((), ("description", "epilog")),
    "add_argument": ((), ("help",)),
    "ConfigProblem": ((0,), ()),
    "Refusal": ((0,), ("reason",)),
    "NoTable": ((0,), ("reason",)),
    "Damaged": ((0,), ("reason",)),
    "Stale": ((0,), ("reason",)),
    "NotSeated": ((0,), ("reason",)),
    "OutOfTurn": ((0,), ("reason",)),
    "Illegal": ((0,), ("reason",)),
    # Pillow and the renderer's text helpers
    "text": ((1,), ("text",)),
    "multiline_text": ((1,), ("text",)),
    "draw_text": ((2,), ("text",)),
    "fit": ((0,), ("text",)),
    "wrap": ((0,), ("text",)),
}
#: Keywords of a class statement that are shown (``class GoblinCog(GroupCog, group_name=...)``).
CLASS_KEYWORDS = ("group_name", "group_description", "name", "description")
LETTER = re.compile(r"[^\W\d_]")


@dataclass(frozen=True)
class Violation:
    """A literal with letters that reaches a place shown to people."""

    path: str
    line: int
    sink: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text!r} reaches {self.sink}()"


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


class _Scopes(ast.NodeVisitor):
    """Assignments to local names, per function (a simple intra-function data flow)."""

    def __init__(self) -> None:
        self.assigned: dict[int, dict[str, list[ast.expr]]] = {}
        self.owner: dict[int, int] = {}  # node id -> id of its enclosing function (or module)
        self._stack: list[int] = []

    def run(self, tree: ast.Module) -> None:
        self._stack.append(id(tree))
        self.assigned[id(tree)] = {}
        self.generic_visit(tree)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.owner[id(node)] = self._stack[-1]
        self._stack.append(id(node))
        self.assigned[id(node)] = {}
        self.generic_visit(node)
        self._stack.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def generic_visit(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            self.owner[id(child)] = self._stack[-1]
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            if value is not None:
                for target in targets:
                    if isinstance(target, ast.Name):
                        self.assigned[self._stack[-1]].setdefault(target.id, []).append(value)
        super().generic_visit(node)


def _literals(expr: ast.expr, scope: dict[str, list[ast.expr]], depth: int = 0,
              ) -> Iterator[ast.Constant]:
    """The string literals whose text ends up in the value of ``expr``."""
    if depth > 8:
        return
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        yield expr
    elif isinstance(expr, ast.JoinedStr):
        for part in expr.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                yield part
    elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add | ast.Mod):
        yield from _literals(expr.left, scope, depth + 1)
        yield from _literals(expr.right, scope, depth + 1)
    elif isinstance(expr, ast.IfExp):
        yield from _literals(expr.body, scope, depth + 1)
        yield from _literals(expr.orelse, scope, depth + 1)
    elif isinstance(expr, ast.BoolOp):
        for value in expr.values:
            yield from _literals(value, scope, depth + 1)
    elif isinstance(expr, ast.List | ast.Tuple):
        for element in expr.elts:
            yield from _literals(element, scope, depth + 1)
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        if expr.func.attr == "join":  # "sep".join(parts): the separator and literal parts
            yield from _literals(expr.func.value, scope, depth + 1)
            for arg in expr.args:
                yield from _literals(arg, scope, depth + 1)
        elif expr.func.attr in ("format", "upper", "lower", "title", "strip", "capitalize"):
            yield from _literals(expr.func.value, scope, depth + 1)
    elif isinstance(expr, ast.Name):
        for value in scope.get(expr.id, []):
            yield from _literals(value, scope, depth + 1)


def _shown(expr: ast.expr, scope: dict[str, list[ast.expr]]) -> Iterator[ast.Constant]:
    for lit in _literals(expr, scope):
        if LETTER.search(str(lit.value)):
            yield lit


def sink_calls(source: str) -> list[str]:
    """The names of the user-facing calls in ``source`` (what the check looks at)."""
    return [_call_name(n.func) for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.Call) and _call_name(n.func) in SINKS]


def check_source(source: str, path: str = "<source>") -> list[Violation]:
    """Every literal with letters that reaches a user-facing place in ``source``."""
    tree = ast.parse(source)
    scopes = _Scopes()
    scopes.run(tree)
    out: list[Violation] = []

    def scope_of(node: ast.AST) -> dict[str, list[ast.expr]]:
        return scopes.assigned.get(scopes.owner.get(id(node), id(tree)), {})

    def report(expr: ast.expr, sink: str, node: ast.AST) -> None:
        for lit in _shown(expr, scope_of(node)):
            out.append(Violation(path, lit.lineno, sink, str(lit.value)))

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _call_name(node.func)
            if name not in SINKS:
                continue
            positions, keywords = SINKS[name]
            for i in positions:
                if i < len(node.args) and not isinstance(node.args[i], ast.Starred):
                    report(node.args[i], name, node)
            for kw in node.keywords:
                if kw.arg is not None and ("*" in keywords or kw.arg in keywords):
                    report(kw.value, name, node)
        elif isinstance(node, ast.ClassDef):
            for kw in node.keywords:
                if kw.arg in CLASS_KEYWORDS:
                    report(kw.value, f"class {node.name}", node)
    return out


def project_sources() -> list[Path]:
    """The modules of ``bot/`` and ``render/`` the check covers."""
    paths = sorted([*(ROOT / "bot").rglob("*.py"), *(ROOT / "render").rglob("*.py")])
    return [p for p in paths if p.relative_to(ROOT).as_posix() not in EXEMPT]


def test_no_user_facing_literal_in_bot_and_render() -> None:
    sources = project_sources()
    calls = [c for p in sources for c in sink_calls(p.read_text())]
    # The check really looks at the project's messages, components, commands and drawings.
    for name in ("send_message", "TextDisplay", "text_block", "Button", "SelectOption", "command",
                 "Choice",
                 "draw_text", "print"):
        assert name in calls, f"no {name}() call found: is the checker still looking?"
    assert len(calls) > 100
    problems = [v for p in sources
                for v in check_source(p.read_text(), p.relative_to(ROOT).as_posix())]
    assert not problems, "text shown to people must go through i18n:\n" + "\n".join(
        map(str, problems))


def test_exempt_modules_exist() -> None:
    for rel in EXEMPT:
        assert (ROOT / rel).exists(), f"{rel} is exempt but does not exist any more"


BAD = '''
import discord
from discord import app_commands

class Cog(commands.GroupCog, group_name="goblin", group_description="Play here"):
    @app_commands.command(name="new", description="Open a table")
    @app_commands.describe(timer="How long a turn lasts")
    async def new(self, interaction, timer: int) -> None:
        await interaction.response.send_message("Table opened!", ephemeral=True)
        await interaction.followup.send(f"Welcome {interaction.user}")
        greeting = "Hello"
        await interaction.edit_original_response(content=greeting)
        embed = discord.Embed(title="Table " + str(1), description="\\n".join(["Round", x]))
        embed.set_footer(text="Move 3" if timer else translate("k"))
        view.add_item(discord.ui.Button(label="Join", custom_id="kg:lobby:1:join"))
        options = [discord.SelectOption(label="Argentus", value="argentus")]
        choice = app_commands.Choice(name="1 minute", value=60)

def picture(d, obs):
    d.text((10, 10), "Round 3", fill=(0, 0, 0))
    draw_text(d, (0, 0), f"{obs.round} rounds", 30)
    label, size = fit("to win", 100, 20)
    print("The bot stopped")
    raise Refusal("Not your turn")
'''

GOOD = '''
import discord

class Cog(commands.GroupCog, group_name=_name("group"), group_description=_t("bot.cmd.group")):
    @app_commands.command(name=_name("new"), description=_t("bot.cmd.new"))
    async def new(self, interaction) -> None:
        log.info("opened table %s in %s", 1, "channel")
        await interaction.response.send_message(translate(msg("bot.done.join"), "fr"))
        embed = discord.Embed(title=translate("bot.table.title"), description="\\n".join(lines))
        lines = [f"**{translate(x, lc)}**", "", f"> {e}"]
        view.add_item(discord.ui.Button(label=translate(msg("bot.lobby.join")),
                                        custom_id="kg:lobby:1:join", style=STYLES["primary"]))
        embed.set_image(url="attachment://table.png")

def picture(d, obs):
    draw_text(d, (0, 0), str(obs.round), 30, anchor="mm")
    draw_text(d, (0, 0), f"+{obs.count}", 30, fill=GOLD)
    raise Refusal(msg("bot.error.host_only"))
'''


def test_the_checker_finds_literals_that_bypass_i18n() -> None:
    found = {(v.sink, v.text) for v in check_source(BAD)}
    expected = {
        ("class Cog", "goblin"), ("class Cog", "Play here"),
        ("command", "new"), ("command", "Open a table"), ("describe", "How long a turn lasts"),
        ("send_message", "Table opened!"), ("send", "Welcome "),
        ("edit_original_response", "Hello"), ("Embed", "Table "), ("Embed", "Round"),
        ("set_footer", "Move 3"), ("Button", "Join"), ("SelectOption", "Argentus"),
        ("Choice", "1 minute"), ("text", "Round 3"), ("draw_text", " rounds"),
        ("fit", "to win"), ("print", "The bot stopped"), ("Refusal", "Not your turn"),
    }
    assert expected <= found, sorted(expected - found)
    assert found <= expected, sorted(found - expected)


def test_the_checker_accepts_translated_text_ids_and_logs() -> None:
    assert check_source(GOOD) == []


@pytest.mark.parametrize("snippet", [
    'interaction.response.send_message(content="Oops")',
    'x = "Oops"\ny = x\nembed = Embed(description=y)',
    'button = Button(label=("Play " + name).strip())',
])
def test_the_checker_follows_text_through_expressions(snippet: str) -> None:
    assert check_source(snippet), snippet
