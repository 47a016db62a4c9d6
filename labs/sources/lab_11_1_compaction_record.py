# INSTRUCTOR'S SOLUTION SOURCE: the full solutions. Learners open labs/lab_11_1_compaction_record.ipynb (make learner-labs writes it from this file).
# ---
# jupyter:
#   course:
#     functions:
#     - parse_session_entry
#     lab: '11.1'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] id="lab11-1-01"
# # Lab 11.1 · The compaction record: strict, independent, storable
#
# When older turns no longer fit the model's window, the agent deletes nothing. It appends one more fact to the session: a **compaction entry**, holding a structured summary of the older turns and the id of the first entry that is still sent verbatim.
#
# In this lab you write that record's schema and the parser every store reads it through.
#
# **You write:** the pydantic models `CompactionSummary` and `CompactionEntry`, and `parse_session_entry(value)`.
#
# | rule | what it asks |
# |---|---|
# | R1 | parsing is strict: unknown keys (legacy aliases too), missing keys, non-finite numbers, booleans as numbers and non-string list items are errors |
# | R2 | an error names the entry id and the field path, e.g. `session compaction compact-1.summary.decisions[1] must be a string` |
# | R3 | the parsed entry shares nothing mutable with its input |
# | R4 | `tokensBefore` is recorded, not re-estimated: the parser only checks it is finite and ≥ 0 |
# | R7, R9 | both stores take their snapshot through the parser; a reopened JSONL file gives back equal entries |
#
# The last cell runs checks 1–3 of the chapter's fifteen against your code.

# %% id="lab11-1-02"
import copy
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import pandas as pd
from IPython.display import display
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

import course_lib
from course_lib import InMemorySessionStore, JsonlSessionStore, checklist, fixtures, to_json_dict
from course_lib.teaching import i18n, lab_helpers
from course_lib.models import NonBlankStr, NonNegative, Number, Seq
from course_lib.parsing import session_entry_error

pd.set_option("display.max_colwidth", None)
tr = i18n.notebook_messages("lab_11_1_compaction_record")  # this lab's sentences in your language

# %% [markdown] id="lab11-1-03"
# ## 1 · The example: `compact-1`
#
# The chapter's opening path has ten entries, `sys` to `a3`. A budget of 31 tokens dropped the first interaction (`u1`, `a1`), so the caller records `compact-1` at the end of the path:
#
# - its `parentId` is `a3`, the last entry;
# - `firstKeptEntryId: "u2"` says a resumed context sends the original messages from `u2` on;
# - `tokensBefore: 29` is the caller's estimate of the messages before compaction.
#
# This is its wire form, one row per field path (the paths R2's error messages use):

# %% id="lab11-1-04"
compact_1 = fixtures.compact_1_wire()  # camelCase keys, lists as JSON arrays
lab_helpers.fields_table(compact_1)

# %% [markdown] id="lab11-1-05"
# The summary has seven fields, always in this order: `goal` (a non-blank string), then six lists of strings.
#
# ### Predict
#
# Each row below changes one thing in `compact-1`. Decide for every row, before you read the right-hand column: is it **accepted**, or **rejected**, and which field must the error name? In `my_prediction` below, write `"accepted"` or `"rejected"` for each row.

# %% id="b0310dc8"
my_prediction = {"tokensBefore 1000000 (wrong, but finite)": None, "tokensBefore true": None, "timestamp '100'": None}  # write "accepted" or "rejected"


# %% id="lab11-1-06"
variants = lab_helpers.compaction_variants(compact_1)  # the course's catalogue: (variant, "accepted" or the field the error names)
# the answers appear once your three predictions above are written: predict first, then look
lab_helpers.after_predicting(my_prediction, {what: answer for what, (_, answer) in variants.items()}, index=tr("variant"))


# %% [markdown] id="lab11-1-07"
# <details><summary>Check your prediction: why these answers</summary>
#
# Three rows are accepted. A wrong but finite `tokensBefore` passes: the parser records the caller's number and never re-estimates it (R4). Every other row is rejected, and the error must name the field, so a bad fact is found where it sits instead of surfacing later as a strange budget.
#
# </details>
#
# ## 2 · Exercise: the two models
#
# **Your task:** write the bodies of three classes. The setup cell imported the field types to
# build them from (`from course_lib.models import NonBlankStr, NonNegative, Number, Seq`):
#
# | field type | accepts |
# |---|---|
# | `NonBlankStr` | a `str` with at least one non-space character |
# | `Seq(str)` | a list (or tuple) of strings on input, stored as a `tuple`, so nobody can change it later; `Seq(item)` is a function returning the type |
# | `Number` | an `int` or a `float`, never a `bool` (your `model_config` makes it finite) |
# | `NonNegative` | a finite `int` or `float` ≥ 0 |
# | `Literal["compaction"]` | exactly that string (`typing.Literal`, imported) |
#
# - `WireModel(BaseModel)`: the configuration both models share, one class attribute
#   `model_config = ConfigDict(...)` (pydantic's `ConfigDict`; `to_camel` from
#   `pydantic.alias_generators` is imported for the camelCase names).
# - `CompactionSummary(WireModel)`, seven fields in this order: `goal: NonBlankStr`, then
#   `constraints`, `completed`, `decisions`, `changed_files`, `unresolved`, `next`, each a `Seq(str)`.
# - `CompactionEntry(WireModel)`: `type: Literal["compaction"]` (default `"compaction"`),
#   `id: NonBlankStr`, `parent_id: NonBlankStr` (**never** `None`), `timestamp: Number`,
#   `summary: CompactionSummary`, `first_kept_entry_id: NonBlankStr`, `tokens_before: NonNegative`.
#
# Python attributes are snake_case; on the wire the keys are camelCase (`firstKeptEntryId`),
# and only those are accepted from wire data. Bad input of any kind (a coerced value such as
# `"100"` or `True` for a number, an unknown or missing key, a non-finite number, a non-string
# list item) must make `CompactionEntry.model_validate(...)` raise pydantic's `ValidationError`;
# the parser in the next exercise turns it into the course's one-line error. Rules: R1 (strict), R3 (immutable,
# nothing shared), R4 (`tokensBefore` kept as given).
#
# <details><summary>Hint 1 · a nudge</summary>
#
# Which pydantic settings turn *coercion*, *unknown keys* and *infinities* from silent into errors? And which one makes an instance unchangeable?
#
# </details>
#
# <details><summary>Hint 2 · the approach</summary>
#
# Put the settings once in `WireModel.model_config`; the two models inherit them. Each field is one annotated line with a type from the table; a literal field with a default pins `type`.
#
# </details>
#
# <details><summary>Hint 3 · the shape of the code</summary>
#
# `model_config = ConfigDict(...)` takes six keywords: one for *no coercion*, one for *unknown keys*, one for *no change after creation*, one for *no infinities or NaN*, one naming `to_camel` as the alias maker, and one that also lets Python code build a model by its snake_case names (look each up in pydantic's `ConfigDict` reference). Every field is `name: Type` with a type from the table; the `type` field also gets a default, the one string its `Literal` allows.
#
# </details>

# %% id="lab11-1-08" tags=["exercise"]
class WireModel(BaseModel):
    """Strict, frozen, camelCase on the wire: the configuration both models share (R1, R3)."""

    ### BEGIN SOLUTION
    model_config = ConfigDict(
        strict=True,  # R1: no coercion, so "100" and True are not numbers
        extra="forbid",  # R1: unknown keys and legacy aliases are errors
        frozen=True,  # R3: nobody can change a parsed entry in place
        allow_inf_nan=False,  # R1: numbers must be finite
        alias_generator=to_camel,  # first_kept_entry_id <-> firstKeptEntryId
        validate_by_name=True,  # Python code may build models with snake_case names
    )
    ### END SOLUTION


class CompactionSummary(WireModel):
    """The seven summary fields, always in this order (R1)."""

    ### BEGIN SOLUTION
    goal: NonBlankStr
    constraints: Seq(str)  # R1: every item a string; R3: a tuple, so it cannot change later
    completed: Seq(str)
    decisions: Seq(str)
    changed_files: Seq(str)
    unresolved: Seq(str)
    next: Seq(str)
    ### END SOLUTION


class CompactionEntry(WireModel):
    """A summary appended to the session as one more fact; its parent is never null (R1)."""

    ### BEGIN SOLUTION
    type: Literal["compaction"] = "compaction"
    id: NonBlankStr
    parent_id: NonBlankStr
    timestamp: Number
    summary: CompactionSummary
    first_kept_entry_id: NonBlankStr
    tokens_before: NonNegative  # R4: recorded as given; only finite and >= 0 is checked
    ### END SOLUTION


# %% [markdown] id="lab11-1-09"
# ## 3 · Exercise: the parser
#
# Both stores, `create_compaction_entry` and `build_context` take every entry through one door,
# `parse_session_entry`. Yours handles compactions with your model and hands every other entry
# type to the course's parser.
#
# **Your task:** `parse_session_entry(value)`.
#
# - `value` is either a wire-format mapping (a `dict` with camelCase keys, as read from JSON), or
#   an **already-parsed entry**: an entry model instance (a pydantic `BaseModel`), such as one a
#   store or your own parser returned earlier (a store copying its entries passes those).
# - Return a **new** entry every time, never `value` itself and nothing shared with it (R3): a
#   compaction (`"type": "compaction"`) as your `CompactionEntry`, anything else as the course's
#   parser returns it.
# - Bad input, in both modes: a compaction that breaks R1 (a wire dict, or a parsed entry re-read
#   as one) raises `SessionEntryError` (a `ValueError`) whose message names the entry id and the
#   field path, e.g. `session compaction compact-1.summary.decisions[1] must be a string` (R2);
#   a bad message, metadata entry, unknown type or non-mapping raises whatever the course's
#   parser raises for it (its own `SessionEntryError`): pass it on unchanged.
#
# The setup cell imported three helpers for this:
#
# | helper | what it does |
# |---|---|
# | `to_json_dict(value) -> Any` | any model (or list/dict of models) as plain wire data: camelCase keys, lists |
# | `course_lib.parse_session_entry(value) -> SessionEntry` | the course's strict parser for messages and metadata entries (every type but compaction) |
# | `session_entry_error(exc: ValidationError, value) -> SessionEntryError` | pydantic's report on `value` as the course's one-line error naming the id and the field; `raise` it `from None` |
#
# <details><summary>Hint 1 · a nudge</summary>
#
# Two kinds of input, one kind of output: how can both become the same thing before validating?
#
# </details>
#
# <details><summary>Hint 2 · the approach</summary>
#
# Turn a model back into wire data first; route on `"type"`; validate compactions with your model by alias only; translate pydantic's error into the course's one-line message.
#
# </details>
#
# <details><summary>Hint 3 · the shape of the code</summary>
#
# Four steps: *a model?* → back to wire data with `to_json_dict`; *not a compaction?* → hand it to `course_lib.parse_session_entry`; *a compaction* → your model's `model_validate`, told to read aliases only (two keyword arguments); *a `ValidationError`?* → raise what `session_entry_error(...)` builds from it and the value, hiding pydantic's traceback (`from None`).
#
# </details>

# %% id="lab11-1-10" tags=["exercise"]
def parse_session_entry(value: Any) -> Any:
    """Parse one wire-format entry strictly into a new, independent object (R1–R4)."""
    ### BEGIN SOLUTION
    if isinstance(value, BaseModel):
        value = to_json_dict(value)  # R3: an already-parsed entry is re-read, never shared
    if not isinstance(value, Mapping) or value.get("type") != "compaction":
        return course_lib.parse_session_entry(value)  # messages and metadata: the course's parser
    try:
        # Wire data must use the chapter's camelCase keys, so validate by alias only (R1).
        return CompactionEntry.model_validate(value, by_alias=True, by_name=False)
    except ValidationError as exc:
        raise session_entry_error(exc, value) from None  # R2: one line naming the id and the field
    ### END SOLUTION


# %% [markdown] id="lab11-1-11"
# ### Run: the fifteen variants
#
# Your parser on every row of the prediction table. ✅ means the outcome matches the hand-worked
# answer: accepted with every field as given, or rejected with a `ValueError` that names the entry
# (`compact-1`) and the field (R2). A long error shows as its first line.

# %% id="lab11-1-12"
def judged(value, answer):
    """Your parser on one variant: what it did (one line), and whether that is the hand-worked answer."""
    tried = lab_helpers.attempt(lambda: parse_session_entry(value))
    if answer == "accepted":  # R4: accepted as given, so the parsed entry reads back as the variant
        if tried.accepted and to_json_dict(tried.value) != value:
            return tr("accepted, but the fields changed"), False
        return tried.shown, tried.accepted
    if tried.rejected and not (tried.names("compact-1") and answer in tried.message):  # R2
        return tr("{shown} ← must name compact-1 and {field}").format(shown=tried.shown, field=answer), False
    return tried.shown, tried.rejected


with lab_helpers.until_implemented():
    rows = {}
    for what, (value, answer) in variants.items():
        got, ok = judged(value, answer)
        rows[what] = answer, got, ok
    display(lab_helpers.verdict_table(rows, function="parser", index=tr("variant")))

# %% [markdown] id="b580e5fb"
# ### Your prediction
#
# Your three predictions against the worked answer above (🎯 right, 🤔 not what it says), and,
# separately, your parser against the same answer (✅ agrees, ❌ your code is off, not your
# prediction: the checklist at the end names the rule).

# %% id="daee5ee1"
lab_helpers.prediction_table(
    my_prediction,
    worked={what: "accepted" if variants[what][1] == "accepted" else "rejected" for what in my_prediction},
    yours=lambda: {what: "accepted" if lab_helpers.attempt(lambda what=what: parse_session_entry(variants[what][0])).accepted
                   else "rejected" for what in my_prediction},
    function="parser",
)

# %% [markdown] id="lab11-1-13"
# ## 4 · Nothing shared (R3)
#
# **Predict:** the caller parses `compact-1`, then keeps editing its own dict: it appends a decision and rewrites the goal. Does the parsed entry change? And can anyone change the parsed entry afterwards?

# %% id="lab11-1-14"
with lab_helpers.until_implemented():
    source = copy.deepcopy(compact_1)
    parsed = parse_session_entry(source)
    source["summary"]["decisions"].append("changed by the caller later")
    source["summary"]["goal"] = "changed goal"

    display(pd.DataFrame(
        {tr("caller's dict now"): [source["summary"]["goal"], source["summary"]["decisions"]],
         tr("parsed entry"): [parsed.summary.goal, list(parsed.summary.decisions)]},
        index=["summary.goal", "summary.decisions"],
    ))
    lab_helpers.compare(parsed.summary.goal, "Verify session restore and JSONL writes.", tr("parsed summary.goal"))
    lab_helpers.compare(parsed.summary.decisions, ["Restore only the active path."], tr("parsed summary.decisions"))

    for what, change in {
        "parsed.summary.goal = 'x'": lambda: setattr(parsed.summary, "goal", "x"),
        "parsed.summary.decisions.append('x')": lambda: parsed.summary.decisions.append("x"),
    }.items():
        try:
            change()
            print(tr("⚠️ {change}: allowed, so whoever holds the entry can change it in place").format(change=what))
        except (ValidationError, AttributeError, TypeError) as exc:
            print(tr("✅ {change}: refused ({error})").format(change=what, error=type(exc).__name__))

# %% [markdown] id="lab11-1-15"
# ## 5 · The stores need no compaction code (R7, R9)
#
# The chapter's two stores already take every snapshot through the parser. Give them yours with `parse=` and they store compactions without a line of new write code.
#
# **Predict:** after appending a root message and `compact-1` to a JSONL file and reopening it, do you get back entries equal to what you appended, and of which class is the compaction?

# %% id="lab11-1-16"
root = to_json_dict(fixtures.opening_path()[1]) | {"parentId": None}  # u1, as the first entry of a session
compaction = compact_1 | {"parentId": "u1"}

with lab_helpers.until_implemented(), tempfile.TemporaryDirectory() as folder:
    memory = InMemorySessionStore(parse=parse_session_entry)
    for entry in (root, compaction):
        memory.append(entry)
    lab_helpers.compare(to_json_dict(memory.entries()) == [root, compaction], True, tr("in-memory entries equal to the appended ones"))

    file = Path(folder) / "session.jsonl"
    with JsonlSessionStore.open(file, parse=parse_session_entry) as store:
        for entry in (root, compaction):
            store.append(entry)
    lines = file.read_text().splitlines()
    display(pd.DataFrame({tr("starts with"): [line[:72] + " …" for line in lines]}, index=range(1, len(lines) + 1)).rename_axis(tr("line")))

    reopened = JsonlSessionStore.open(file, parse=parse_session_entry).entries()
    lab_helpers.compare(to_json_dict(reopened) == [root, compaction], True, tr("reopened entries equal to the appended ones"))
    lab_helpers.compare(type(reopened[1]) is CompactionEntry, True, tr("the reopened compaction is your CompactionEntry"))

# %% [markdown] id="lab11-1-17"
# ## 6 · Checklist
#
# Checks 1–3 against your `parse_session_entry` (and through it, your models). Each failing row says which rule broke and what was expected.

# %% id="lab11-1-18" tags=["checklist"]
checklist.run(lab="11.1", parse_session_entry=parse_session_entry)
