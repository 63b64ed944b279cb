/**
 * The score in a benchmarker's output. Contest benchmarkers print it in one of two ways: a JSON
 * object with a `score` field (often the last line, or the whole output), or a line `score: N` /
 * `SCORE: N` (any case, `=` too). The last one found wins: the final tally follows the progress lines.
 * A JSON `pass: false` (or `passed`, `success`) marks a failed run; its `reason`, `message` or
 * `error` (or the first of `messages` / `errors`) says why.
 */

export interface BenchOutcome {
  score: number | null;
  /** Set when the output says the run failed. */
  failed?: string;
}

const SCORE_LINE = /\bscore\b["']?\s*[:=]\s*(-?\d+(?:\.\d+)?)/i;
const FAIL_LINE = /\b(?:fail(?:ed)?|failure)\b\s*[:=]?\s*(.*)$/i;

function fromJson(v: unknown): BenchOutcome | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const score = typeof o.score === 'number' && Number.isFinite(o.score) ? o.score
    : typeof o.score === 'string' && /^-?\d+(\.\d+)?$/.test(o.score.trim()) ? Number(o.score) : undefined;
  const passKey = ['pass', 'passed', 'success'].find((k) => typeof o[k] === 'boolean');
  const failed = passKey !== undefined && o[passKey] === false;
  if (score === undefined && passKey === undefined) return undefined;
  const why = (): string => {
    for (const k of ['reason', 'message', 'error']) if (typeof o[k] === 'string' && (o[k] as string).trim()) return (o[k] as string).trim();
    for (const k of ['messages', 'errors']) {
      const list = o[k];
      if (Array.isArray(list) && typeof list[0] === 'string') return list[0];
    }
    return 'the benchmark says the run failed';
  };
  return { score: score ?? null, ...(failed ? { failed: why().slice(0, 500) } : {}) };
}

/** The score (and failure) in a benchmarker's output; `score` null when none is found. */
export function parseBenchOutput(text: string): BenchOutcome {
  const whole = text.trim();
  if (whole.startsWith('{')) {
    try {
      const r = fromJson(JSON.parse(whole));
      if (r) return r;
    } catch { /* not one object: read line by line */ }
  }
  let found: BenchOutcome | undefined;
  let failLine: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith('{')) {
      try {
        const r = fromJson(JSON.parse(line));
        if (r) { found = r.score === null && found ? { ...found, ...(r.failed ? { failed: r.failed } : {}) } : r; continue; }
      } catch { /* a line that only looks like JSON */ }
    }
    const m = SCORE_LINE.exec(line);
    if (m) found = { score: Number(m[1]), ...(found?.failed ? { failed: found.failed } : {}) };
    const f = /^(?:\W*)(?:fail(?:ed)?|failure)\b/i.test(line) ? FAIL_LINE.exec(line) : null;
    if (f) failLine = (f[1] || line).trim().slice(0, 500) || line.slice(0, 500);
  }
  const out: BenchOutcome = found ?? { score: null };
  if (!out.failed && failLine !== undefined) out.failed = failLine;
  return out;
}
