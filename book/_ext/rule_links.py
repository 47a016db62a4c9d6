"""Every rule id on the website links to that rule on the rules page (docs/rules.md).

The notebooks, the labs' checklist tables and the guides cite rules as bare ids (``R19``,
``L1–L6``); on paper a learner has to look them up, on the website one click shows the
rule. The links are made here, at build time, so no notebook or generated doc is edited:

* on the rules page, the paragraph that states a rule (``**R19** Groups are taken…``) gets
  the anchor ``#R19``;
* everywhere else, a rule id in prose becomes a link to ``docs/rules.html#R19``, in the
  notebooks' text and in their committed HTML outputs (the checklist tables). Code, literal
  text and existing links are left as they are: a quoted message stays exactly what a
  learner's kernel prints.

The ids come from ``course_lib.teaching.rules`` (the same list that generates docs/rules.md), so an
id that is not a rule (``R99``) stays plain text.

In another language's edition of the site (book/_ext/editions.py, issue 32) the ids link to
that edition's rules page (docs/zh/rules.md), at the anchors its generator writes before each
rule (``#r19``, course_lib/checklist/rules_page.py); while it has none, to the English edition's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser
from typing import Any

from docutils import nodes
from editions import ENGLISH, edition_uri
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

from course_lib.teaching.rules import BY_ID, RULE_ID

RULES_DOC = "docs/rules"
# Inside these a rule id is quoted, not cited (or is already a link).
SKIPPED_NODES = (nodes.literal, nodes.literal_block, nodes.reference, nodes.raw, nodes.comment, nodes.target)
SKIPPED_TAGS = frozenset({"a", "code", "pre", "kbd", "samp", "script", "style", "textarea", "svg", "head", "title"})
VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)


def anchor(rule_id: str) -> str:
    """The fragment of a rule on the rules page: the id itself, so ``rules.html#R19`` reads as it is cited."""
    return rule_id


def generated_anchor(rule_id: str) -> str:
    """The anchor the rules page's generator writes before a rule (``<a id="r19">``, as GitHub's are: lower case)."""
    return rule_id.lower()


def rules_target(app: Sphinx, docname: str) -> tuple[str, Callable[[str], str]]:
    """Where ``docname``'s rule ids link: this edition's rules page, else the English edition's; and its anchors."""
    if RULES_DOC in app.env.found_docs:
        english = app.config.book_edition == ENGLISH
        return app.builder.get_relative_uri(docname, RULES_DOC), anchor if english else generated_anchor
    return edition_uri(app, docname, ENGLISH, RULES_DOC), anchor


class RuleLinks(SphinxPostTransform):
    """Anchor each rule on the rules page; link each cited rule id, in text and in HTML outputs.

    A post-transform runs once the builder is known, after myst-nb has chosen which output
    of a cell to show (its ``SelectMimeType`` post-transform), so the HTML outputs exist here.
    """

    default_priority = 900
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        docname = self.env.docname
        if docname == RULES_DOC:
            self._anchor_rules()
        target, fragment = rules_target(self.app, docname)
        for text in list(self.document.findall(nodes.Text)):
            if not _skipped(text):
                _link_text(text, target, fragment)
        for raw in self.document.findall(nodes.raw):
            if "html" in raw.get("format", "").split():
                linked = link_html(raw.astext(), target, fragment)
                raw.children = [nodes.Text(linked)]

    def _anchor_rules(self) -> None:
        for paragraph in self.document.findall(nodes.paragraph):
            # myst-nb may put an empty text node first: the rule's id is the first thing with text.
            first = next((child for child in paragraph.children if child.astext().strip()), None)
            if isinstance(first, nodes.strong) and first.astext() in BY_ID:
                paragraph["ids"].append(anchor(first.astext()))
                self.document.ids[anchor(first.astext())] = paragraph


def _skipped(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, SKIPPED_NODES):
            return True
        parent = parent.parent
    return False


def _link_text(text: nodes.Text, target: str, fragment: Callable[[str], str]) -> None:
    source = str(text)
    pieces: list[nodes.Node] = []
    position = 0
    for match in RULE_ID.finditer(source):
        rule_id = match.group(1)
        if rule_id not in BY_ID:
            continue
        pieces.append(nodes.Text(source[position : match.start()]))
        pieces.append(
            nodes.reference(
                rule_id, rule_id, internal=True, refuri=f"{target}#{fragment(rule_id)}", classes=["rule-link"]
            )
        )
        position = match.end()
    if not pieces:
        return
    pieces.append(nodes.Text(source[position:]))
    text.parent.replace(text, [piece for piece in pieces if piece.astext() or isinstance(piece, nodes.reference)])


def link_html(markup: str, target: str, fragment: Callable[[str], str] = anchor) -> str:
    """``markup`` with each rule id in its text (outside links, code and SVG) made a link to the rules page."""
    writer = _HtmlLinker(target, fragment)
    writer.feed(markup)
    writer.close()
    return "".join(writer.out)


class _HtmlLinker(HTMLParser):
    """Copies HTML through unchanged except the rule ids in its text (entities are kept as written)."""

    def __init__(self, target: str, fragment: Callable[[str], str]) -> None:
        super().__init__(convert_charrefs=False)
        self.target = target
        self.fragment = fragment
        self.out: list[str] = []
        self.skipping: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(self.get_starttag_text() or "")
        if tag in SKIPPED_TAGS and tag not in VOID_TAGS:
            self.skipping.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(self.get_starttag_text() or "")

    def handle_endtag(self, tag: str) -> None:
        self.out.append(f"</{tag}>")
        if tag in self.skipping:
            while self.skipping and self.skipping.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        self.out.append(data if self.skipping else _link_markup(data, self.target, self.fragment))

    def handle_entityref(self, name: str) -> None:
        self.out.append(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self.out.append(f"&#{name};")

    def handle_comment(self, data: str) -> None:
        self.out.append(f"<!--{data}-->")

    def handle_decl(self, decl: str) -> None:
        self.out.append(f"<!{decl}>")

    def handle_pi(self, data: str) -> None:
        self.out.append(f"<?{data}>")

    def unknown_decl(self, data: str) -> None:
        self.out.append(f"<![{data}]>")


def _link_markup(data: str, target: str, fragment: Callable[[str], str]) -> str:
    def replace(match: re.Match[str]) -> str:
        rule_id = match.group(1)
        if rule_id not in BY_ID:
            return match.group(0)
        return f'<a class="reference internal rule-link" href="{target}#{fragment(rule_id)}">{rule_id}</a>'

    return RULE_ID.sub(replace, data)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_post_transform(RuleLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
