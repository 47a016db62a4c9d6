"""What a check says, kept as a sentence and its values so the judge can say it in the reader's language.

A check describes each observation in English (``"kept ids and reason at
max_tokens={max_tokens}"``). Written as an f-string, that sentence would reach the
judge already filled in, and no catalog could translate it. ``say`` keeps the two
apart: a ``Wording`` is the English text (it *is* a ``str``, so it prints and
compares as before) that also carries its template and its fields. The template is
the catalog's message id; the fields are strings (or nested wordings), never
translated: ids, numbers and values stay as they are.

A point's wording travels out of the learner's kernel as data, and data from a
kernel is never trusted. ``render_against`` therefore formats only the *trusted*
template (the reference's own run of the same check stated it, or one of
``KNOWN`` for what only a learner's run can say) and takes nothing from the
kernel but field values that are strings, each cut to ``FIELD_LIMIT``
characters. A forged template such as ``"{0.__class__}"`` is never formatted,
and a sentence that comes with no known template is never shown as the course's
own: it is said as ``UNKNOWN`` (issue 43: a kernel's "检查通过 ✅（3/3）" stood as
the message of a failed row).
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import CourseError
from .i18n import MESSAGES, message

FIELD_LIMIT = 200
"""Characters of one field value taken from a kernel's record."""
UNKNOWN = message("the check reported an unknown result")
"""What a kernel's record that names no known template says in its stead: nothing of its own text."""


class TemplateError(CourseError, ValueError):
    """A wording's template uses more than plain ``{name}`` fields (a conversion, a format spec, an index)."""


def field_names(template: str) -> tuple[str, ...]:
    """The ``{name}`` fields of ``template``, in order; anything but a plain identifier is refused."""
    names: list[str] = []
    for _text, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise TemplateError(f"template {template!r}: field {{{name}}} must be a plain name (no !r, :spec, .attr)")
        names.append(name)
    return tuple(names)


class Wording(str):
    """English text that remembers its template and fields (``say``)."""

    template: str
    fields: Mapping[str, str | Wording]

    def __new__(cls, template: str, fields: Mapping[str, str | Wording]) -> Wording:
        names = field_names(template)
        missing = sorted(set(names) - set(fields))
        if missing:
            raise TemplateError(f"template {template!r}: no value for {missing}")
        text = super().__new__(cls, template.format_map(fields))
        text.template = template
        text.fields = dict(fields)
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "template": self.template,
            "fields": {k: v.to_json() if isinstance(v, Wording) else str(v) for k, v in self.fields.items()},
        }

    def __reduce__(self) -> Any:  # a str subclass with attributes: pickle it as what it is
        return (Wording, (self.template, self.fields))


def say(template: str, **fields: object) -> Wording:
    """``template`` filled with ``fields``, as a ``Wording``: ``say("max_tokens={n}", n=640)``.

    Values are kept as text (``str(value)``; pass ``repr(value)`` where the English
    quotes it); a value that is itself a ``Wording`` stays one, so it is
    translated too.
    """
    return Wording(template, {k: v if isinstance(v, Wording) else str(v) for k, v in fields.items()})


LIST = message("{items}, {item}")
"""One more item of a list a check names (``7, 15, 8``): the reader's language has its own separator (``7、15、8``)."""


def listed(items: Sequence[object]) -> str:
    """``items`` as a list the judge says in the reader's language: ``say(LIST, …)`` folded, one item a plain text."""
    if not items:
        return ""
    said: str = str(items[0])
    for item in items[1:]:
        said = say(LIST, items=said, item=item)
    return said


def wording_of(text: str) -> dict[str, Any] | None:
    """``text``'s template and fields as JSON data, or ``None`` for a plain (fixed) sentence."""
    return text.to_json() if isinstance(text, Wording) else None


def translate(text: str, chosen: str | None = None) -> str:
    """``text`` in the reader's language: a ``Wording`` through its template, a plain sentence as a message."""
    if isinstance(text, Wording):
        return render(text.to_json(), chosen)
    return MESSAGES(text, chosen)


def render(data: Mapping[str, Any], chosen: str | None = None) -> str:
    """A trusted wording (the course's own) in the reader's language."""
    return render_against(data, data, chosen)


def render_against(trusted: Mapping[str, Any], observed: Any, chosen: str | None = None) -> str:
    """``trusted``'s template in the reader's language, filled with ``observed``'s field values where they fit.

    ``observed`` came from a kernel: its values are used only when its template
    is ``trusted``'s and a value is a string (a nested wording is matched the
    same way, one level of ``trusted`` at a time); everything else comes from
    ``trusted``. So what is formatted is always a template the course wrote.
    """
    template = str(trusted.get("template", ""))
    given = observed.get("fields") if isinstance(observed, Mapping) and observed.get("template") == template else None
    values: dict[str, str] = {}
    for name, value in dict(trusted.get("fields") or {}).items():
        other = given.get(name) if isinstance(given, Mapping) else None
        if isinstance(value, Mapping):
            values[name] = render_against(value, other, chosen)
        else:
            values[name] = other[:FIELD_LIMIT] if isinstance(other, str) else str(value)
    translated = MESSAGES(template, chosen)
    try:
        return translated.format_map(values)
    except (KeyError, IndexError, ValueError):  # a catalog whose fields differ: its test fails; say it in English
        return template.format_map(values)


def render_known(data: Any, known: Mapping[str, str], chosen: str | None = None) -> str:
    """A wording only a learner's run states (a bound that stopped it, a diagnosis), if its template is ``known``.

    ``known`` maps each template the course can say here to itself; a record
    naming another one, or none, is said as ``UNKNOWN``: the English sentence
    the record also carries came from the kernel and is never shown as the
    course's. Field values must be strings and are cut to ``FIELD_LIMIT``.
    """
    template = data.get("template") if isinstance(data, Mapping) else None
    fields = data.get("fields") if isinstance(data, Mapping) else None
    if not isinstance(template, str) or template not in known or not isinstance(fields, Mapping):
        return MESSAGES(UNKNOWN, chosen)
    trusted = known[template]
    values = {name: fields.get(name) for name in field_names(trusted)}
    if not all(isinstance(value, str) for value in values.values()):
        return MESSAGES(UNKNOWN, chosen)
    return render({"template": trusted, "fields": {k: str(v)[:FIELD_LIMIT] for k, v in values.items()}}, chosen)
