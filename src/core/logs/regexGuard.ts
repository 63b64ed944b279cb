/**
 * Regular expressions written by the user (settings, `-m`, `--pattern`) run on text from logs. A
 * backtracking engine can take exponential time on a hostile input, and a repository can ship such a
 * pattern in its workspace settings. So: patterns whose time is not bounded by the input's length in
 * practice (a repeated group that itself repeats or alternates, backreferences) are refused with the
 * reason; the others run only on inputs up to a length cap, under a time guard that retires a pattern
 * once it has been slow.
 */

/** A user's pattern behind the guard. */
export interface GuardedRegex {
  readonly source: string;
  /** The match, null when none (or the input is over the cap), undefined once the pattern is retired as too slow. */
  exec(text: string): RegExpExecArray | null | undefined;
  /** True once slow matches (over SLOW_MATCH_MS each) added up to SLOW_BUDGET_MS, or all matches to TOTAL_BUDGET_MS. */
  readonly retired: boolean;
}

/** A match longer than this is slow. */
export const SLOW_MATCH_MS = 50;
/**
 * Slow matches adding up to this retire the pattern: one catastrophic match gets there by itself,
 * while a pause of the process (a garbage collection, a busy machine) during a quick one does not.
 */
export const SLOW_BUDGET_MS = 500;
/** All matches of one pattern together longer than this retire it. */
export const TOTAL_BUDGET_MS = 30_000;

/**
 * Why a pattern is refused ('' when it is accepted): a quantified group whose body repeats or
 * alternates (`(a+)+`, `(\w|\d)*`: exponential backtracking), or a backreference.
 */
export function nonLinearReason(source: string): string {
  interface Frame { repeats: boolean; alternates: boolean }
  const stack: Frame[] = [{ repeats: false, alternates: false }];
  let i = 0;
  const n = source.length;
  /** Reads a quantifier at `i`: its length, and whether it allows more than one repetition. */
  const quantifier = (at: number): [number, boolean] => {
    const c = source[at];
    if (c === '*' || c === '+') return [source[at + 1] === '?' ? 2 : 1, true];
    if (c === '?') return [source[at + 1] === '?' ? 2 : 1, false];
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}\??/.exec(source.slice(at, at + 24));
      if (m) return [m[0].length, m[2] !== undefined ? m[3] === '' || Number(m[3]) > 1 : Number(m[1]) > 1];
    }
    return [0, false];
  };
  while (i < n) {
    const c = source[i];
    const top = stack[stack.length - 1];
    if (c === '\\') {
      const d = source[i + 1];
      if (d !== undefined && d >= '1' && d <= '9') return 'it uses a backreference';
      if (d === 'k' && source[i + 2] === '<') return 'it uses a backreference';
      i += 2;
    } else if (c === '[') {
      i++;
      if (source[i] === '^') i++;
      if (source[i] === ']') i++;
      while (i < n && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '(') {
      stack.push({ repeats: false, alternates: false });
      i++;
      // why: `(?:`, `(?<name>`, `(?=` … open a group too; their prefix is not a quantifier.
      if (source[i] === '?') {
        i++;
        if (source[i] === '<' && source[i + 1] !== '=' && source[i + 1] !== '!') { while (i < n && source[i] !== '>') i++; i++; } else i++;
      }
      continue;
    } else if (c === ')') {
      const inner = stack.length > 1 ? stack.pop()! : top;
      i++;
      const [len, many] = quantifier(i);
      if (len && many && (inner.repeats || inner.alternates)) {
        return `a repeated group ${inner.repeats ? 'repeats itself' : 'has alternatives'} (exponential backtracking on some inputs); rewrite it without nesting`;
      }
      const parent = stack[stack.length - 1];
      if (inner.repeats || len > 0) parent.repeats = true;
      i += len;
      continue;
    } else if (c === '|') {
      top.alternates = true;
      i++;
      continue;
    } else {
      i++;
    }
    const [len] = quantifier(i);
    if (len) { stack[stack.length - 1].repeats = true; i += len; }
  }
  return '';
}

/**
 * Compiles a user's pattern behind the guard. Throws (with the reason) when it is invalid or refused.
 * `maxInput`: longer texts are not matched (exec gives null).
 */
export function guardUserRegex(source: string, flags: string, maxInput: number): GuardedRegex {
  const why = nonLinearReason(source);
  if (why) throw new Error(`"${source}" is refused: ${why}`);
  let re: RegExp;
  try { re = new RegExp(source, flags); } catch (err) { throw new Error(`"${source}" is not a valid regular expression: ${(err as Error).message}`); }
  return guardCompiled(re, source, maxInput);
}

/** The guard around an already compiled expression (its source checked by the caller). */
export function guardCompiled(re: RegExp, source: string, maxInput: number): GuardedRegex {
  let retired = false;
  let total = 0;
  let slow = 0;
  return {
    source,
    get retired() { return retired; },
    exec(text: string) {
      if (retired) return undefined;
      if (text.length > maxInput) return null;
      const t0 = performance.now();
      const m = re.exec(text);
      const dt = performance.now() - t0;
      total += dt;
      if (dt > SLOW_MATCH_MS) slow += dt;
      if (slow >= SLOW_BUDGET_MS || total > TOTAL_BUDGET_MS) retired = true;
      return m;
    },
  };
}
