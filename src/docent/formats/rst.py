"""reStructuredText (Sphinx sites) to markdown, through docutils' own parser.

Sections become headings carrying docutils' section ids (`## Title {#id}`, the anchors
Sphinx gives them), so chunks, titles and deep links work as for markdown. Code blocks
become fences with their language; lists, tables, definitions and fields become their
markdown forms; admonitions (`.. note::`) a label on their text. Sphinx's roles
(`:ref:`, `:func:`, ...) keep their text; its directives keep their content (`versionadded`,
`seealso`) or are dropped (`toctree`, `autofunction`, `literalinclude`). Nothing is read
from disk or the network: `include`, `raw` and file options are off.
"""

from __future__ import annotations

import re
from typing import Any

_LABELS = {
    "attention", "caution", "danger", "error", "hint", "important", "note", "tip", "warning",
}
# Sphinx directives whose content is prose worth keeping, with the label they read as.
_KEPT = {
    "versionadded": "Added in version", "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version", "seealso": "See also", "only": "",
    "glossary": "", "centered": "", "hlist": "", "tab": "", "tabs": "", "group-tab": "",
    "code-tab": "",
}
# Sphinx directives that carry no prose of their own here (or would read files).
_DROPPED = (
    "toctree", "index", "highlight", "currentmodule", "module", "literalinclude",
    "autofunction", "autoclass", "automodule", "automethod", "autoattribute", "autodata",
    "autosummary", "tabularcolumns", "sectionauthor", "codeauthor", "moduleauthor",
    "graphviz", "plot", "ifconfig", "todo", "todolist",
)
_CODE_ROLES = (
    "func", "class", "meth", "attr", "mod", "obj", "data", "exc", "const", "envvar",
    "option", "command", "program", "file", "samp", "kbd", "py:func", "py:class",
    "py:meth", "py:attr", "py:mod", "py:obj", "py:data", "py:exc", "py:const", "c:func",
)
_TEXT_ROLES = ("ref", "doc", "term", "abbr", "dfn", "guilabel", "menuselection", "numref",
               "download", "any", "pep", "rfc", "sub", "sup")
_EXPLICIT_TITLE = re.compile(r"^(.+?)\s*<[^<>]*>$", re.DOTALL)
_BLANKS = re.compile(r"\n{3,}")

_registered = False


def rst_to_markdown(text: str) -> str:
    """The markdown of a reStructuredText page (see the module docstring)."""
    from docutils.core import publish_doctree

    _register_sphinx_names()
    doctree = publish_doctree(
        text,
        settings_overrides={
            "report_level": 5, "halt_level": 5, "warning_stream": False,
            "file_insertion_enabled": False, "raw_enabled": False,
            "doctitle_xform": False, "sectsubtitle_xform": False, "docinfo_xform": False,
            "syntax_highlight": "none", "input_encoding": "unicode",
            "_disable_config": True,
        },
    )
    out = _Writer().blocks(doctree.children, level=0)
    return _BLANKS.sub("\n\n", "\n\n".join(b for b in out if b.strip())).strip() + "\n"


class _Writer:
    """Renders docutils nodes as markdown blocks (strings without surrounding blank lines)."""

    def blocks(self, nodes_: Any, level: int) -> list[str]:
        out: list[str] = []
        for node in nodes_:
            out.extend(self.block(node, level))
        return out

    def block(self, node: Any, level: int) -> list[str]:
        from docutils import nodes

        if isinstance(node, (nodes.system_message, nodes.comment, nodes.target,
                             nodes.substitution_definition, nodes.raw, nodes.pending,
                             nodes.docinfo, nodes.transition)):
            return []
        if isinstance(node, nodes.topic) and "contents" in node.get("classes", []):
            return []  # a table of contents: the headings themselves follow
        if isinstance(node, nodes.section):
            title = node.next_node(nodes.title)
            heading = "#" * min(level + 1, 6) + " " + (self.inline(title) if title else "")
            ids = node.get("ids") or []
            if ids:
                heading += f" {{#{ids[0]}}}"
            rest = [c for c in node.children if c is not title]
            return [heading, *self.blocks(rest, level + 1)]
        if isinstance(node, nodes.title):  # of a topic, sidebar or table
            return [f"**{self.inline(node)}**"]
        if isinstance(node, (nodes.paragraph, nodes.subtitle, nodes.caption)):
            return [self.inline(node)]
        if isinstance(node, nodes.rubric):
            return [f"**{self.inline(node)}**"]
        if isinstance(node, (nodes.literal_block, nodes.doctest_block)):
            classes = [c for c in node.get("classes", []) if c not in ("code", "literal-block")]
            lang = "pycon" if isinstance(node, nodes.doctest_block) else (
                node.get("language") or (classes[0] if classes else ""))
            return [f"```{lang}\n{node.astext()}\n```"]
        if isinstance(node, nodes.bullet_list):
            return ["\n".join(self.item("- ", item, level) for item in node.children)]
        if isinstance(node, nodes.enumerated_list):
            start = int(node.get("start", 1))
            return ["\n".join(self.item(f"{start + k}. ", item, level)
                              for k, item in enumerate(node.children))]
        if isinstance(node, nodes.definition_list):
            return [self.definition(item, level) for item in node.children]
        if isinstance(node, nodes.field_list):
            return self.fields(node, level)
        if isinstance(node, nodes.table):
            return self.table(node)
        if isinstance(node, nodes.line_block):
            return ["\n".join(self.inline(line) for line in node.findall(nodes.line))]
        if isinstance(node, nodes.Admonition):
            return self.admonition(node, level)
        if isinstance(node, (nodes.image, nodes.figure)):
            alt = node.get("alt", "") if isinstance(node, nodes.image) else ""
            return [alt, *self.blocks(node.children, level)] if alt else self.blocks(
                node.children, level)
        if isinstance(node, (nodes.footnote, nodes.citation)):
            label = node.next_node(nodes.label)
            body = [c for c in node.children if c is not label]
            return [f"[{label.astext() if label else ''}] " + " ".join(self.blocks(body, level))]
        if isinstance(node, nodes.Text):
            return [str(node)]
        if isinstance(node, nodes.Element):
            return self.blocks(node.children, level)  # containers, quotes, compounds
        return []

    def item(self, marker: str, item: Any, level: int) -> str:
        body = "\n\n".join(self.blocks(item.children, level))
        pad = " " * len(marker)
        return marker + body.replace("\n", "\n" + pad)

    def definition(self, item: Any, level: int) -> str:
        from docutils import nodes

        term = item.next_node(nodes.term)
        definition = item.next_node(nodes.definition)
        body = " ".join(self.blocks(definition.children, level)) if definition else ""
        return f"**{self.inline(term) if term else ''}**: {body}"

    def fields(self, node: Any, level: int) -> list[str]:
        # A field without a value is page metadata (Sphinx's `:orphan:`), not content.
        lines = [self.field(f, level) for f in node.children if f.astext().strip()
                 and len(f.children) > 1 and f.children[1].astext().strip()]
        return ["\n".join(lines)] if lines else []

    def field(self, field: Any, level: int) -> str:
        from docutils import nodes

        name = field.next_node(nodes.field_name)
        body = field.next_node(nodes.field_body)
        text = " ".join(self.blocks(body.children, level)) if body else ""
        return f"- **{self.inline(name) if name else ''}:** {text}"

    def admonition(self, node: Any, level: int) -> list[str]:
        from docutils import nodes

        title = node.next_node(nodes.title)
        kind = node.tagname if node.tagname in _LABELS else ""
        label = " ".join(
            p for p in (kind.capitalize(), self.inline(title) if title else "") if p
        ) or "Note"
        body = self.blocks([c for c in node.children if c is not title], 0)
        if body and not body[0].startswith(("```", "- ", "|", "**", "#")):
            return [f"**{label}:** {body[0]}", *body[1:]]
        return [f"**{label}:**", *body]

    def table(self, node: Any) -> list[str]:
        from docutils import nodes

        rows: list[list[str]] = []
        header = 0
        for group in node.findall(nodes.tgroup):
            for part in group.children:
                if isinstance(part, (nodes.thead, nodes.tbody)):
                    for row in part.children:
                        rows.append([
                            " ".join(self.blocks(entry.children, 0)).replace("|", "\\|")
                            .replace("\n", " ") for entry in row.children
                        ])
                    if isinstance(part, nodes.thead):
                        header = len(rows)
        if not rows:
            return []
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        if not header:  # markdown tables need a header row
            rows.insert(0, [""] * width)
            header = 1
        lines = ["| " + " | ".join(r) + " |" for r in rows]
        lines.insert(header, "|" + "---|" * width)
        title = node.next_node(nodes.title)
        return ([f"**{self.inline(title)}**"] if title else []) + ["\n".join(lines)]

    def inline(self, node: Any) -> str:
        from docutils import nodes

        parts: list[str] = []
        for child in node.children:
            if isinstance(child, nodes.Text):
                parts.append(str(child))
            elif isinstance(child, nodes.literal):
                parts.append(f"`{child.astext()}`")
            elif isinstance(child, nodes.strong):
                parts.append(f"**{self.inline(child)}**")
            elif isinstance(child, nodes.emphasis):
                parts.append(f"*{self.inline(child)}*")
            elif isinstance(child, nodes.reference) and child.get("refuri"):
                parts.append(f"[{self.inline(child)}]({child['refuri']})")
            elif isinstance(child, (nodes.footnote_reference, nodes.citation_reference)):
                parts.append(f"[{child.astext()}]")
            elif isinstance(child, (nodes.system_message, nodes.target)) and not child.children:
                continue
            elif isinstance(child, nodes.image):
                parts.append(child.get("alt", ""))
            elif isinstance(child, nodes.Element):
                parts.append(self.inline(child))
        return "".join(parts).strip()


def _register_sphinx_names() -> None:
    """Teach docutils the roles and directives of Sphinx sites (once per process)."""
    global _registered
    if _registered:
        return
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles

    def text_role(code: bool) -> Any:
        def role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                 options: Any = None, content: Any = None) -> Any:
            match = _EXPLICIT_TITLE.match(text)
            shown = (match.group(1) if match else text).lstrip("~!")
            node = nodes.literal(rawtext, shown) if code else nodes.inline(rawtext, shown)
            return [node], []
        return role

    for name in _CODE_ROLES:
        roles.register_local_role(name, text_role(code=True))
    for name in _TEXT_ROLES:
        roles.register_local_role(name, text_role(code=False))

    class AnyOptions(dict):  # type: ignore[type-arg]
        """Accepts every option (Sphinx directives have many)."""

        def __missing__(self, key: str) -> Any:
            return directives.unchanged

    class Kept(Directive):
        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = AnyOptions()

        def run(self) -> list[Any]:
            label = _KEPT.get(self.name, "")
            arg = " ".join(self.arguments[0].split()) if self.arguments else ""
            if self.name.startswith(("version", "deprecated")) and arg:
                version, _, arg = arg.partition(" ")  # "2.1 The limit key ..."
                label = f"{label} {version}"
            box = nodes.container()
            lead = nodes.paragraph()
            if label:
                lead += nodes.Text(label + ": ")
            if arg:  # the directive's text, written on its first line
                inline, _ = self.state.inline_text(arg, self.lineno)
                lead.extend(inline)
            if lead.children:
                box += lead
            self.state.nested_parse(self.content, self.content_offset, box)
            return [box]

    class Dropped(Kept):
        def run(self) -> list[Any]:
            return []

    for name in _KEPT:
        directives.register_directive(name, Kept)
    for name in _DROPPED:
        directives.register_directive(name, Dropped)
    _registered = True
