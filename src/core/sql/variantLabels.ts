/**
 * Names the variants of one statement: a site whose text depends on a branch (`query += " LIMIT 3"`)
 * gives several statements at one line, and a report that lists each needs a word for which is which.
 * The label is the words where a variant differs from the others (cut at word boundaries), or,
 * for the shorter of two, the words it lacks.
 */

const MAX_LABEL = 40;

function shorten(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length <= MAX_LABEL ? t : `${t.slice(0, MAX_LABEL - 1)}…`;
}

const inWord = (s: string, i: number): boolean => /\S/.test(s[i - 1] ?? '') && /\S/.test(s[i] ?? '');

/** Back to the start of the word that `i` falls inside (so a label never starts mid-word). */
function wordStart(s: string, i: number): number {
  while (i > 0 && inWord(s, i)) i--;
  return i;
}

/**
 * One label per statement, in order: `variant 2 of 2: LIMIT 3`, `variant 1 of 2: without LIMIT 3`;
 * just `variant i of n` when the texts are the same or differ only in ways not worth quoting.
 * A single statement gets an empty label.
 */
export function variantLabels(sqls: readonly string[]): string[] {
  const n = sqls.length;
  if (n < 2) return sqls.map(() => '');
  let prefix = Math.min(...sqls.map((s) => s.length));
  for (const s of sqls) { let i = 0; while (i < prefix && s[i] === sqls[0][i]) i++; prefix = i; }
  const starts = sqls.map((s) => wordStart(s, prefix));
  const first = Math.min(...starts);
  let suffix = Math.min(...sqls.map((s) => s.length - first));
  for (const s of sqls) { let i = 0; while (i < suffix && s[s.length - 1 - i] === sqls[0][sqls[0].length - 1 - i]) i++; suffix = i; }
  // why: the common tail must also begin at a word, or the middles would end mid-word.
  const middles = sqls.map((s) => {
    let end = s.length - suffix;
    while (end < s.length && inWord(s, end)) end++;
    return s.slice(first, Math.max(first, end));
  });
  return middles.map((m, i) => {
    const head = `variant ${i + 1} of ${n}`;
    const own = shorten(m);
    if (own) return `${head}: ${own}`;
    const other = n === 2 ? shorten(middles[1 - i]) : '';
    return other ? `${head}: without ${other}` : head;
  });
}
