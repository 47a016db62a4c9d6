"""Lab 11.1: the strict compaction record (R1–R4).

Equivalent mutant, left out: dropping ``validate_by_name=True`` from the model
config. The lab's parser validates wire data with ``by_alias=True,
by_name=False`` explicitly, and nothing in the lab (stores, checks, hidden
cases) builds the learner's models by their Python names, so no input can tell
the two apart.
"""

from __future__ import annotations

from . import mutant

LAB = "11.1"
MUTANTS = (
    mutant(
        LAB, "lax_types", "R1", "strict=False: '100' and True are coerced to numbers", ("strict=True,", "strict=False,")
    ),
    mutant(
        LAB,
        "extra_keys_ignored",
        "R1",
        "extra='ignore': legacy aliases and unknown keys are silently dropped",
        ('extra="forbid",', 'extra="ignore",'),
    ),
    mutant(
        LAB,
        "not_frozen",
        "R3",
        "the model is not frozen: whoever holds a parsed entry can change it in place",
        ("frozen=True,", "frozen=False,"),
    ),
    mutant(
        LAB,
        "infinities_accepted",
        "R1",
        "allow_inf_nan=True: Infinity and NaN pass as numbers",
        ("allow_inf_nan=False,", "allow_inf_nan=True,"),
    ),
    mutant(
        LAB,
        "no_camel_case",
        "R1",
        "no alias generator: the wire's camelCase keys are unknown",
        ("        alias_generator=to_camel,  # first_kept_entry_id <-> firstKeptEntryId\n", ""),
    ),
    mutant(
        LAB,
        "snake_case_on_the_wire",
        "R1",
        "validated by name too: snake_case keys are accepted on the wire",
        ("model_validate(value, by_alias=True, by_name=False)", "model_validate(value)"),
    ),
    mutant(
        LAB,
        "blank_goal",
        "R1",
        "goal is any string: a blank goal is accepted",
        ("    goal: NonBlankStr\n", "    goal: str\n"),
    ),
    mutant(
        LAB,
        "blank_id",
        "R1",
        "id is any string: a blank id is accepted",
        ("\n    id: NonBlankStr\n", "\n    id: str\n"),
    ),
    mutant(
        LAB, "null_parent", "R1", "parentId may be null", ("parent_id: NonBlankStr", "parent_id: NonBlankStr | None")
    ),
    mutant(
        LAB,
        "blank_first_kept",
        "R1",
        "firstKeptEntryId is any string: a blank one is accepted",
        ("first_kept_entry_id: NonBlankStr", "first_kept_entry_id: str"),
    ),
    mutant(
        LAB,
        "negative_tokens_before",
        "R4",
        "tokensBefore is any finite number: -1 is accepted",
        ("tokens_before: NonNegative", "tokens_before: Number"),
    ),
    mutant(
        LAB,
        "integer_tokens_before",
        "R4",
        "tokensBefore is an int: 17.25 is refused and -1 accepted",
        ("tokens_before: NonNegative", "tokens_before: int"),
    ),
    mutant(
        LAB,
        "constraints_optional",
        "R1",
        "constraints defaults to (): a missing list is accepted",
        ("constraints: Seq(str)", "constraints: Seq(str) = ()"),
    ),
    mutant(
        LAB,
        "mutable_lists",
        "R3",
        "decisions is a list: the parsed entry can be changed in place",
        ("    decisions: Seq(str)\n", "    decisions: list[str]\n"),
    ),
    mutant(
        LAB,
        "untyped_list_items",
        "R1",
        "decisions is a bare tuple: a non-string member is accepted",
        ("    decisions: Seq(str)\n", "    decisions: tuple\n"),
    ),
    mutant(
        LAB,
        "fields_out_of_order",
        "R1",
        "next is declared before unresolved: the summary's fields leave the fixed order",
        ("    unresolved: Seq(str)\n    next: Seq(str)\n", "    next: Seq(str)\n    unresolved: Seq(str)\n"),
    ),
    mutant(
        LAB,
        "summary_as_dict",
        "R1 R3",
        "summary is a plain dict: nothing inside it is checked or copied",
        ("    summary: CompactionSummary\n", "    summary: dict\n"),
    ),
    mutant(
        LAB,
        "returns_parsed_entry_itself",
        "R3",
        "an already-parsed entry is returned as it is, not as a new object",
        ("value = to_json_dict(value)  # R3", "return value  # R3"),
    ),
    mutant(
        LAB,
        "raw_pydantic_error",
        "R2",
        "pydantic's own error goes out: it names the field but not the entry id",
        ("raise session_entry_error(exc, value) from None", "raise"),
    ),
    mutant(
        LAB,
        "everything_is_a_compaction",
        "R1",
        "every mapping is validated as a compaction: messages are refused",
        (
            'if not isinstance(value, Mapping) or value.get("type") != "compaction":',
            "if not isinstance(value, Mapping):",
        ),
    ),
)
