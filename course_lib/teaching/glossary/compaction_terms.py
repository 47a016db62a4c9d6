"""The chapter's terms beside the course's: compaction and resuming (R1, R4, R18, R24–R28) and the lifecycle (L1–L6).

As in ``terms``, the Chinese terms are the Chinese edition's own.
"""

from __future__ import annotations

from .row import Term, Topic

COMPACTION = Topic("Compaction and resuming", "压缩与恢复")
LIFECYCLE = Topic("The compaction lifecycle (the capstone)", "压缩的生命周期（综合练习）")

COMPACTION_TERMS: tuple[Term, ...] = (
    Term(
        COMPACTION,
        "compaction",
        "压缩",
        ("create_compaction_entry()", "CompactionEntry"),
        (),
        "Recording older turns as one appended summary, so that later contexts reach back further than the "
        "budget allows: from then on a context starts with the summary and the entries from `firstKeptEntryId` "
        "on. Nothing is deleted (R24).",
        "把较早的轮次记录成一条追加的摘要，让之后的上下文能回溯到比预算所允许的更早之处：从此以后，上下文以摘要开头，"
        "接着是从 `firstKeptEntryId` 起的各条 entry。什么都不删除（R24）。",
    ),
    Term(
        COMPACTION,
        "summary",
        "摘要",
        (
            "CompactionSummary",
            "CompactionEntry.summary",
            "CompactionSummary.changed_files",
            "compaction_summary_text()",
        ),
        ("summary", "changedFiles"),
        "A compaction's record of what came before, seven fields always in this order: `goal`, `constraints`, "
        "`completed`, `decisions`, `changedFiles`, `unresolved`, `next` (R1). In a context it becomes one "
        "synthetic user message right after the system message (R18).",
        "compaction entry 对它之前内容的记录，共七个字段，顺序固定：`goal`、`constraints`、`completed`、`decisions`、"
        "`changedFiles`、`unresolved`、`next`（R1）。在上下文中，它变成一条合成的 user message，紧接在 system message "
        "之后（R18）。",
    ),
    Term(
        COMPACTION,
        "first kept entry",
        "保留起点",
        ("CompactionEntry.first_kept_entry_id", "create_compaction_entry(first_kept_entry_id=…)"),
        ("firstKeptEntryId",),
        "The entry a resumed context starts sending original messages from, itself included: the first entry "
        "(a user message) of one of the path's interaction groups (R18, R27).",
        "恢复后的上下文开始发送原始消息的那条 entry，包括它自身：路径上某个交互组的第一条 entry（一条 user message）"
        "（R18、R27）。",
    ),
    Term(
        COMPACTION,
        "cut point",
        "切点",
        ("lifecycle.find_cut_point()",),
        (),
        "Where a compaction cuts the history: just before the first kept entry, always at the start of a whole "
        "interaction group, so a tool call is never cut off from its result (L3).",
        "压缩切分历史的位置：紧挨在保留起点之前，总是落在一个完整交互组的开头，所以一个 tool call 绝不会与它的结果被切开（L3）。",
    ),
    Term(
        COMPACTION,
        "`tokensBefore`",
        "`tokensBefore`",
        ("CompactionEntry.tokens_before", "create_compaction_entry(tokens_before=…)"),
        ("tokensBefore",),
        "The caller's estimate of the tokens before the compaction, recorded as given: the parser only checks "
        "that it is a finite number ≥ 0 and never estimates it again (R4).",
        "调用方对压缩之前 token 数的估算，按给定值记录：解析器只检查它是 ≥ 0 的有限数，从不重新估算它（R4）。",
    ),
    Term(
        COMPACTION,
        "`create_compaction_entry`",
        "`create_compaction_entry`",
        ("create_compaction_entry()",),
        ("createCompactionEntry()",),
        "Lab 11.4: returns a new compaction entry for the end of the active path, its `parentId` the path's last "
        "entry (R25), through the same strict parser (R28). It changes neither the path nor any store: appending "
        "it is the caller's decision (R24).",
        "Lab 11.4：为活动路径的末尾返回一条新的 compaction entry，它的 `parentId` 是路径最后一条 entry 的 id（R25），"
        "并经过同一个严格的解析器（R28）。它既不改变路径，也不改变任何存储：是否追加它由调用方决定（R24）。",
    ),
    Term(
        COMPACTION,
        "resume",
        "恢复",
        ("context.latest_compaction()", "context.resume_candidates()", "compaction.summary_message()"),
        (),
        "Continuing a session from its latest compaction (Lab 11.5): only the latest compaction on the path "
        "counts; the context is the replayed system message, the summary, then the message entries from "
        "`firstKeptEntryId` on that fit (R18).",
        "从 session 最新的压缩处继续（Lab 11.5）：只有路径上最新的那次压缩才算数；上下文是重放得出的 system "
        "message、摘要，然后是从 `firstKeptEntryId` 起放得下的 message entry（R18）。",
    ),
    Term(
        COMPACTION,
        "replay",
        "重放",
        ("current_system_message()", "lifecycle.replay_request()"),
        (),
        "Rebuilding from the log alone: the current system message is replayed from every system message on the "
        "path, compacted part included (R5, R16); the capstone replays any past request exactly, because "
        "nothing in the log is rewritten (L5).",
        "只根据日志重建：当前的 system message 由路径上的每一条 system message 重放得出，被压缩的部分也包括在内（R5、"
        "R16）；综合练习能精确重放过去的任何一次请求，因为日志中没有任何东西被重写（L5）。",
    ),
)

LIFECYCLE_TERMS: tuple[Term, ...] = (
    Term(
        LIFECYCLE,
        "`should_compact`",
        "`should_compact`",
        ("lifecycle.should_compact()", "lifecycle.CompactionSettings"),
        (),
        "The capstone: compact when compaction is enabled and the context's tokens are strictly above the "
        "threshold (L2).",
        "综合练习：当压缩已启用，并且上下文的 token 数严格高于阈值时，就压缩（L2）。",
    ),
    Term(
        LIFECYCLE,
        "threshold",
        "阈值",
        ("lifecycle.compaction_threshold()",),
        (),
        "The largest context that does not trigger compaction: `context_window − reserve_tokens`; a window no "
        "larger than the reserve is refused (L1, L2).",
        "不会触发压缩的最大上下文：`context_window − reserve_tokens`；不大于预留的窗口会被拒绝（L1、L2）。",
    ),
    Term(
        LIFECYCLE,
        "reserve",
        "预留",
        ("lifecycle.CompactionSettings.reserve_tokens",),
        (),
        "`reserve_tokens`: window space kept free for the compaction call itself, since writing the summary is "
        "one more model call (L1; 16384 by default). Not `build_context`'s reserved output.",
        "`reserve_tokens`：为压缩调用本身保持空闲的窗口空间，因为写摘要又是一次模型调用（L1；默认 16384）。不同于 "
        "`build_context` 的回答预留。",
    ),
    Term(
        LIFECYCLE,
        "`find_cut_point`",
        "`find_cut_point`",
        ("lifecycle.find_cut_point()", "lifecycle.CompactionSettings.keep_recent_tokens"),
        (),
        "The capstone: walks the context's interaction groups newest first, adding up their costs; the first "
        "group that brings the total to `keep_recent_tokens` is the oldest kept, and the id of its first entry "
        "is returned. `None` when every group is needed: there is nothing to compact (L3).",
        "综合练习：从最新的开始遍历上下文的交互组，把它们的成本累加起来；第一个使总数达到 `keep_recent_tokens` "
        "的组就是被保留的最老的组，返回它第一条 entry 的 id。如果每个组都需要保留，就返回 `None`：没有可以压缩的内容（L3）。",
    ),
    Term(
        LIFECYCLE,
        "overflow",
        "溢出",
        ("lifecycle.is_context_overflow()",),
        (),
        "A request whose prompt did not fit the window: the answer stops with `error` or `length`, and its error "
        "text or its usage says so (L4). The second reason to compact, besides the threshold.",
        "prompt 放不进窗口的请求：回答以 `error` 或 `length` 停止，并且它的错误文本或用量报告说明了这一点（L4）。"
        "这是阈值之外压缩的第二个原因。",
    ),
    Term(
        LIFECYCLE,
        "`retry_after_overflow`",
        "`retry_after_overflow`",
        ("lifecycle.retry_after_overflow()", "lifecycle.OverflowRecoveryError"),
        (),
        "The capstone: sends; while the answer is a context overflow, compacts and sends again, at most "
        "`max_attempts` times, then raises `OverflowRecoveryError` instead of compacting once more (L4).",
        "综合练习：发送；只要回答是上下文溢出，就压缩并再次发送，最多 `max_attempts` 次，之后抛出 "
        "`OverflowRecoveryError`，而不是再压缩一次（L4）。",
    ),
    Term(
        LIFECYCLE,
        "summarizer",
        "摘要器",
        ("lifecycle.Summarizer", "lifecycle.OfflineSummarizer"),
        (),
        "What writes a compaction's seven-field summary of everything before the cut point: in production a model "
        "call, in the capstone an offline, deterministic summarizer.",
        "为切点之前的一切写出有七个字段的摘要的东西：在生产环境中是一次模型调用，在综合练习中是一个离线的、确定性的摘要器。",
    ),
)
