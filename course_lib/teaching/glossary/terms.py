"""The chapter's terms beside the course's: the session, its entries and stores, and the projection (R1–R23).

The Chinese terms are the ones the course's Chinese edition uses
(``course_lib/teaching/locale/zh_CN/LC_MESSAGES/notebooks/*.po``); where the chapter keeps the English
word (session, entry, tool call, …) the row does too. ``compaction_terms`` holds the
rest: compaction, resuming and the lifecycle.
"""

from __future__ import annotations

from .row import Term, Topic

SESSION = Topic("The session and its entries", "session 与 entry")
PROJECTION = Topic("The projection: what one model call is sent", "投影：一次模型调用收到什么")

SESSION_TERMS: tuple[Term, ...] = (
    Term(
        SESSION,
        "session",
        "session",
        (),
        (),
        "The whole history of one conversation with the agent: an append-only tree of entries, each naming its "
        "parent. Nothing in it is edited or deleted; a store holds it.",
        "与 agent 的一次对话的全部历史：一棵只追加的 entry 树，每条 entry 都指明它的父 entry。其中没有任何东西会被修改或删除；由存储保存它。",
    ),
    Term(
        SESSION,
        "entry",
        "entry",
        ("SessionEntry", "parse_session_entry()", "MessageEntry.parent_id"),
        ("type", "parentId"),
        "One recorded fact of a session: a message entry, a metadata entry or a compaction entry, told apart by "
        "`type`; each has an `id` and the `parentId` of the entry before it (`null` only at the root). The "
        "parser is strict (R1–R4).",
        "session 中记录下来的一条事实：message entry、metadata entry 或 compaction entry，由 `type` 区分；每条都有 "
        "`id`，以及它前一条 entry 的 `parentId`（只有根的是 `null`）。解析器是严格的（R1–R4）。",
    ),
    Term(
        SESSION,
        "message entry",
        "message entry",
        ("MessageEntry", "MessageEntry.message"),
        ('"type": "message"', "message"),
        "An entry that holds one message: a system message, a user message, an assistant message or a tool result.",
        "保存一条 message 的 entry：system message、user message、assistant message 或 tool result。",
    ),
    Term(
        SESSION,
        "system message",
        "system message",
        ("SystemMessage", "SystemMessage.sections", "current_system_message()"),
        ('"role": "system"', "sections"),
        "The agent's instructions; a later system message may replace or remove `sections`. The current one is "
        "replayed from every system message on the path (R5, R6), and it belongs to no interaction group (R14).",
        "agent 的指令；之后的 system message 可以替换或删除 `sections`。当前的 system message 由路径上的每一条 system "
        "message 重放得出（R5、R6），它不属于任何交互组（R14）。",
    ),
    Term(
        SESSION,
        "tool call",
        "tool call",
        ("ToolCall", "AssistantMessage.content"),
        ('"type": "toolCall"', "content"),
        "A block of an assistant message's `content` asking for a tool to run: its `id`, the tool's `name` and "
        "its `arguments`. Inside a group a call is matched to its result by id, never by position (R12).",
        "assistant message 的 `content` 中请求运行一个工具的块：它的 `id`、工具的 `name` 和 `arguments`。在组内，call "
        "按 id 而不是按位置与它的结果配对（R12）。",
    ),
    Term(
        SESSION,
        "tool result",
        "tool result",
        ("ToolResultMessage", "ToolResultMessage.tool_call_id", "ToolResultMessage.is_error"),
        ('"role": "toolResult"', "toolCallId", "isError"),
        "The message that answers one tool call: `toolCallId` names the call, `isError` says whether the tool "
        "failed. A call has at most one result, and every call has its result when its group ends (R12).",
        "回答一个 tool call 的消息：`toolCallId` 指明是哪个 call，`isError` 说明工具是否失败。一个 call "
        "最多有一个结果，并且在它的组结束时，每个 call 都已有结果（R12）。",
    ),
    Term(
        SESSION,
        "compaction entry",
        "compaction entry",
        ("CompactionEntry",),
        ('"type": "compaction"',),
        "An entry that records a summary of older turns: its `summary`, `firstKeptEntryId` and `tokensBefore`. "
        "It is appended at the end of the path like any other entry; nothing before it is deleted (R24, L5).",
        "记录较早轮次摘要的 entry：它的 `summary`、`firstKeptEntryId` 和 `tokensBefore`。它像其他任何 entry "
        "一样被追加在路径末尾；它之前的一切都不会被删除（R24、L5）。",
    ),
    Term(
        SESSION,
        "store (JSONL / in-memory)",
        "存储（JSONL / 内存）",
        ("InMemorySessionStore", "JsonlSessionStore", "recover_jsonl()"),
        (),
        "Where a session's entries are kept: `InMemorySessionStore` in memory, `JsonlSessionStore` in a JSONL "
        "file, one entry per line, the newline committing it (R8). Both parse a snapshot of every appended entry, "
        "refuse a duplicate id or an unknown parent, and hand out copies (R7, R9).",
        "保存 session 中各条 entry 的地方：`InMemorySessionStore` 保存在内存中，`JsonlSessionStore` 保存在 JSONL "
        "文件中，每行一条 entry，换行符提交这条 entry（R8）。两种存储都为每条追加的 entry 解析一份快照，拒绝重复的 "
        "id 或未知的父 entry，并且只交出副本（R7、R9）。",
    ),
    Term(
        SESSION,
        "append",
        "追加",
        ("InMemorySessionStore.append()", "JsonlSessionStore.append()"),
        (),
        "The only way a session changes: one new entry at the end, its parent already stored. Nothing on disk is "
        "ever rewritten (R8); a compaction is appended too (L5).",
        "session 唯一的变化方式：在末尾加上一条新的 entry，它的父 entry 已经存储。磁盘上已有的内容从不被重写（R8）；"
        "compaction entry 也是追加的（L5）。",
    ),
    Term(
        SESSION,
        "leaf",
        "leaf",
        ("path_to(leaf_id=…)",),
        (),
        "The entry a path ends at: the newest entry of the branch being continued. From every entry one chain of "
        "parents leads back to the root.",
        "一条路径结束处的 entry：正在继续的那个分支中最新的 entry。从每条 entry 出发，都有唯一一条父 entry 链回到根。",
    ),
    Term(
        SESSION,
        "active path",
        "活动路径",
        ("build_context(active_path=…)", "create_compaction_entry(active_path=…)"),
        (),
        "The chain of entries from the root to the chosen leaf, following `parentId`: what the agent continues. "
        "Sibling branches stay stored but are not on it (R10).",
        "从根到选定的 leaf、沿着 `parentId` 的那条 entry 链：agent 要继续的就是它。兄弟分支仍然存储着，但不在它上面（R10）。",
    ),
    Term(
        SESSION,
        "`path_to`",
        "`path_to`",
        ("path_to()", "InMemorySessionStore.path_to()"),
        (),
        "`path_to(entries, leaf_id)` returns the active path as copies, root first, and refuses duplicate ids, "
        "an unknown leaf, a missing parent on the way and a cycle (R10); a store's `path_to(leaf_id)` does the "
        "same on its own entries.",
        "`path_to(entries, leaf_id)` 以副本的形式返回活动路径，根在前，并拒绝重复的 id、未知的 leaf、途中缺失的父 "
        "entry 和环（R10）；存储的 `path_to(leaf_id)` 在它自己的 entry 上做同样的事。",
    ),
)

PROJECTION_TERMS: tuple[Term, ...] = (
    Term(
        PROJECTION,
        "interaction group",
        "交互组",
        ("InteractionGroup", "InteractionGroup.entries"),
        (),
        "A user message and every message after it up to the next user message (R11): the unit a budget keeps or "
        "drops whole, never split (R19). A system message belongs to no group (R14).",
        "一条 user message 以及它之后直到下一条 user message 之前的每条消息（R11）：预算整体保留或整体丢弃的单位，"
        "从不拆分（R19）。system message 不属于任何组（R14）。",
    ),
    Term(
        PROJECTION,
        "`group_interactions`",
        "`group_interactions`",
        ("group_interactions()",),
        ("groupInteractions()",),
        "Lab 11.2: splits the path's message entries into interaction groups, as copies in the path's order, "
        "matching tool calls to their results by id (R11–R14).",
        "Lab 11.2：把路径上的 message entry 拆分成交互组，得到按路径顺序排列的副本，并按 id 把 tool call "
        "与它们的结果配对（R11–R14）。",
    ),
    Term(
        PROJECTION,
        "context",
        "上下文",
        ("BuildContextResult.messages",),
        ("messages",),
        "The messages one model call is sent: the replayed system message (if any), then the summary (if any), "
        "then the kept messages, all copies (R21).",
        "一次模型调用收到的消息：重放得出的 system message（如果有），然后是摘要（如果有），然后是保留的消息，全部都是副本（R21）。",
    ),
    Term(
        PROJECTION,
        "window",
        "窗口",
        ("TokenProjection.max_tokens", "lifecycle.RequestBudget.context_window"),
        ("maxTokens", "contextWindow"),
        "How many tokens the model reads at most in one call: `max_tokens` for `build_context`, `context_window` "
        "in the lifecycle. A context is built to fit it, except a `single_group_overflow` (R20).",
        "模型在一次调用中最多读取多少 token：对 `build_context` 来说是 `max_tokens`，在生命周期中是 "
        "`context_window`。上下文按放得进它来构建，`single_group_overflow` 除外（R20）。",
    ),
    Term(
        PROJECTION,
        "budget",
        "预算",
        ("build_context(max_tokens=…)", "TokenProjection.available_for_messages", "lifecycle.RequestBudget"),
        ("availableForMessages",),
        "What a call may spend on messages: `available_for_messages = max(0, max_tokens − system − "
        "reserved_output − safety_margin)`. The fixed costs come first (R17); then groups are taken newest first "
        "while they fit (R19).",
        "一次调用可以花在消息上的部分：`available_for_messages = max(0, max_tokens − system − reserved_output − "
        "safety_margin)`。固定成本先支付（R17）；然后从最新的组开始挑选，直到放不下为止（R19）。",
    ),
    Term(
        PROJECTION,
        "reserved output",
        "回答预留",
        ("build_context(reserved_output=…)", "TokenProjection.reserved_output"),
        ("reservedOutput",),
        "Tokens of the window kept free for the model's answer, subtracted before any message is chosen (R17). "
        "Not the capstone's `reserve_tokens`, which keeps room for the compaction call.",
        "窗口中为模型的回答保持空闲的 token，在选择任何消息之前就先扣除（R17）。不同于综合练习的 `reserve_tokens`，"
        "后者是为压缩调用保留的空间。",
    ),
    Term(
        PROJECTION,
        "safety margin",
        "安全余量",
        ("build_context(safety_margin=…)", "TokenProjection.safety_margin"),
        ("safetyMargin",),
        "Tokens kept free against the estimator's error, subtracted like the reserved output (R17); notebook 03 "
        "chooses one from the error measured on a real session.",
        "为应对估算器的误差而保持空闲的 token，和回答预留一样先扣除（R17）；notebook 03 根据在真实 session "
        "上测得的误差来选择它。",
    ),
    Term(
        PROJECTION,
        "estimator",
        "估算器",
        (
            "build_context(estimate_tokens=…)",
            "estimate_tokens_chars()",
            "estimators.estimate_tokens_cjk()",
            "importers.bpe.estimate_tokens_bpe()",
            "fixtures.teaching_estimator()",
        ),
        (),
        "A function from one message to its token cost: `ceil(chars / 4)`, its variant for Chinese text, a real "
        "BPE count, or the chapter's teaching estimator (one token per word, one per tool call). It sees copies "
        "and must return a finite number ≥ 0 (R15).",
        "从一条消息到其 token 成本的函数：`ceil(chars / 4)`、它针对中文文本的变体、真正的 BPE "
        "计数，或本章的教学用估算器（每个词一个 token，每个 tool call 一个 token）。它看到的是副本，必须返回 ≥ 0 "
        "的有限数（R15）。",
    ),
    Term(
        PROJECTION,
        "projection",
        "投影",
        ("BuildContextResult", "BuildContextResult.tokens", "TokenProjection"),
        ("tokens",),
        "The history projected onto one call's budget: `build_context`'s result and its token accounting "
        "`tokens`, where `total = system + messages + reservedOutput + safetyMargin` (R22). It is rebuilt from "
        "scratch for every call and changes nothing in the session (R23).",
        "把历史投影到一次调用的预算上得到的结果：`build_context` 的结果及其 token 账目 `tokens`，其中 `total = "
        "system + messages + reservedOutput + safetyMargin`（R22）。它在每次调用时都从头重建，不改变 session "
        "中的任何东西（R23）。",
    ),
    Term(
        PROJECTION,
        "`build_context`",
        "`build_context`",
        ("build_context()",),
        ("buildContext()",),
        "Labs 11.3 and 11.5: projects the active path onto a budget (R15–R23): replays the system message, puts "
        "the latest summary right after it, and keeps the newest whole interaction groups that fit.",
        "Lab 11.3 和 11.5：把活动路径投影到一个预算上（R15–R23）：重放 system message，把最新的摘要紧接在它之后，"
        "并保留放得下的最新的若干完整交互组。",
    ),
    Term(
        PROJECTION,
        "`kept_entry_ids`",
        "`kept_entry_ids`",
        ("BuildContextResult.kept_entry_ids",),
        ("keptEntryIds",),
        "The ids of the path's entries whose messages the context keeps, in order; never the replayed system "
        "message or the summary (R21).",
        "上下文所保留的消息在路径上对应的 entry 的 id，按顺序排列；从不包括重放得出的 system message 或摘要（R21）。",
    ),
    Term(
        PROJECTION,
        "reason",
        "原因（reason）",
        ("BuildContextResult.reason",),
        ("reason",),
        "Why the context is what it is: `within_budget` (nothing dropped), `trimmed` (older groups dropped) or "
        "`single_group_overflow` (the newest group alone is too big; it is sent whole anyway) (R20).",
        "上下文为什么是这个样子：`within_budget`（什么都没丢）、`trimmed`（丢掉了较早的组）或 "
        "`single_group_overflow`（仅最新的组就太大；它仍然被完整发送）（R20）。",
    ),
)
