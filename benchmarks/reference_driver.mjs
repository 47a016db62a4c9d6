// `make bench`'s side of the chapter's TypeScript reference (benchmarks/reference.py runs it with node).
//
// node --expose-gc reference_driver.mjs BUNDLE SESSION LEAF BUDGET_JSON
//
// BUNDLE is the reference's own src/session.ts and src/context.ts, bundled by esbuild into the
// bench's temporary folder (no code of the reference is kept in this repository). The driver
// recovers SESSION once, takes the path to LEAF, builds the context once and prints what it got
// (the entries recovered, the ids kept, the reason) so the bench can check that both sides did the
// same work. Then, for each line "recover" or "build" on stdin, it times one run and prints its CPU
// seconds and wall seconds: `recoverJsonl(readFileSync(SESSION))` (the file read, every line parsed
// and validated into a deep copy; the store's tree check is left out, which only helps the
// reference) or `buildContext(path, budget)` with the chars/4 estimator. Each run starts from a
// collected heap and cold CPU caches, as the bench's Python runs do.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [bundle, session, leaf, budgetJson] = process.argv.slice(2);
const { recoverJsonl, pathTo, buildContext } = await import(bundle);
const budget = JSON.parse(budgetJson);

// Python's json.dumps(value, ensure_ascii=False): the separators ", " and ": ", as the pack's
// estimate_tokens_chars counts a tool call's arguments.
function pythonDumps(value) {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${pythonDumps(item)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(value);
}

// course_lib.estimators.estimate_tokens_chars: ceil(characters / 4) of every text a model reads.
function estimateTokens(message) {
  let characters = 0;
  if (message.role === "system") {
    const parts = [message.content, ...Object.values(message.sections ?? {}).filter((part) => part !== null)];
    characters = parts.filter((part) => part.length > 0).join("\n\n").length;
  } else {
    for (const block of message.content) {
      characters += block.type === "toolCall" ? block.name.length + pythonDumps(block.arguments).length : block.text.length;
    }
  }
  return Math.ceil(characters / 4);
}

const options = { ...budget, estimateTokens };
const recovered = recoverJsonl(readFileSync(session, "utf8"));
const path = pathTo(recovered.entries, leaf);
const built = buildContext(path, options);
console.log(JSON.stringify({ entries: recovered.entries.length, kept: built.keptEntryIds, reason: built.reason }));

const EVICTION_BYTES = 96 * 2 ** 20; // as benchmarks/bench.py: three times this machine's L3 cache
const eviction = Buffer.alloc(EVICTION_BYTES);
let round = 0;
function coldCaches() {
  round = (round + 1) & 255;
  for (let index = 0; index < EVICTION_BYTES; index += 64) eviction[index] = round;
}

const runs = {
  recover: () => recoverJsonl(readFileSync(session, "utf8")),
  build: () => buildContext(path, options),
};

for await (const line of createInterface({ input: process.stdin })) {
  const run = runs[line.trim()];
  if (run === undefined) throw new Error(`unknown command ${JSON.stringify(line)}: recover or build`);
  globalThis.gc();
  coldCaches();
  const cpu = process.cpuUsage();
  const wall = process.hrtime.bigint();
  run();
  const wallSeconds = Number(process.hrtime.bigint() - wall) / 1e9;
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ cpu: (used.user + used.system) / 1e6, wall: wallSeconds }));
}
