/** Unchanged lines shown around each change, as `diff -u` does. */
const CONTEXT_LINES = 3;
/**
 * Above this many cells (changed lines before x after, once the common head and tail are cut) the
 * changed middle is shown as removed then added instead of aligned: it bounds memory and time for
 * pathological inputs; configuration files stay far below it.
 */
const MAX_ALIGNMENT_CELLS = 4_000_000;

type Edit = { readonly op: " " | "-" | "+"; readonly line: string };

/**
 * A unified diff (the `diff -u` format, with `---`/`+++` headers and `@@` hunks) turning `before`
 * into `after`, line by line; the empty string when both texts are equal. Pure.
 */
export function unifiedDiff(
  before: string,
  after: string,
  labels: { before: string; after: string },
): string {
  if (before === after) return "";
  const edits = editScript(lines(before), lines(after));
  const out = [`--- ${labels.before}`, `+++ ${labels.after}`];
  let index = 0;
  while (index < edits.length) {
    const firstChange = edits.findIndex((edit, at) => at >= index && edit.op !== " ");
    if (firstChange === -1) break;
    const start = Math.max(index, firstChange - CONTEXT_LINES);
    // Extend the hunk while the next change is close enough for the contexts to touch.
    let end = firstChange;
    let unchangedRun = 0;
    for (let at = firstChange; at < edits.length; at++) {
      if (edits[at]?.op === " ") {
        unchangedRun += 1;
        if (unchangedRun > 2 * CONTEXT_LINES) break;
      } else {
        unchangedRun = 0;
        end = at;
      }
    }
    const stop = Math.min(edits.length, end + 1 + CONTEXT_LINES);
    const hunk = edits.slice(start, stop);
    const beforeStart = 1 + edits.slice(0, start).filter((edit) => edit.op !== "+").length;
    const afterStart = 1 + edits.slice(0, start).filter((edit) => edit.op !== "-").length;
    const beforeCount = hunk.filter((edit) => edit.op !== "+").length;
    const afterCount = hunk.filter((edit) => edit.op !== "-").length;
    out.push(`@@ -${range(beforeStart, beforeCount)} +${range(afterStart, afterCount)} @@`);
    for (const edit of hunk) out.push(`${edit.op}${edit.line}`);
    index = stop;
  }
  return `${out.join("\n")}\n`;
}

function range(start: number, count: number): string {
  // `diff -u` numbers an empty range by the line before it.
  if (count === 0) return `${start - 1},0`;
  return count === 1 ? `${start}` : `${start},${count}`;
}

function lines(text: string): string[] {
  const all = text.split("\n");
  if (all.at(-1) === "") all.pop();
  return all;
}

/** The shortest edit script by longest common subsequence, after cutting the common head and tail. */
function editScript(a: readonly string[], b: readonly string[]): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const same = (line: string): Edit => ({ op: " ", line });
  return [...a.slice(0, head).map(same), ...alignMiddle(midA, midB), ...a.slice(a.length - tail).map(same)];
}

function alignMiddle(a: readonly string[], b: readonly string[]): Edit[] {
  const removed = a.map((line): Edit => ({ op: "-", line }));
  const added = b.map((line): Edit => ({ op: "+", line }));
  if (a.length === 0 || b.length === 0 || a.length * b.length > MAX_ALIGNMENT_CELLS)
    return [...removed, ...added];
  // lcs[i * width + j]: length of the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
  const edits: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      edits.push({ op: " ", line: a[i] as string });
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0)) {
      edits.push({ op: "-", line: a[i++] as string });
    } else {
      edits.push({ op: "+", line: b[j++] as string });
    }
  }
  while (i < a.length) edits.push({ op: "-", line: a[i++] as string });
  while (j < b.length) edits.push({ op: "+", line: b[j++] as string });
  return edits;
}
