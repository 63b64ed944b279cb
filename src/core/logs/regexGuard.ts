/**
 * Regular expressions written by the user (settings, `-m`, `--pattern`) run on text from logs. A
 * backtracking engine can take exponential time on a hostile input, and a repository can ship such a
 * pattern in its workspace settings. So: patterns whose time is not bounded by the input's length in
 * practice (a repeated group that itself repeats or alternates, backreferences) are refused with the
 * reason; the others run only on inputs up to a length cap, under a time guard that retires a pattern
 * once it has been slow. The guard reads the clock only where a match could be slow: on inputs too
 * short for that, a random sample stands for the rest.
 */

/** A user's pattern behind the guard. */
export interface GuardedRegex {
  readonly source: string;
  /** The match, null when none (or the input is over the cap), undefined once the pattern is retired as too slow. */
  exec(text: string): RegExpExecArray | null | undefined;
  /** Whether it matches (false when the input is over the cap), undefined once retired; builds no match object. */
  test(text: string): boolean | undefined;
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

/** What the guard learns from a pattern's source. */
export interface PatternShape {
  /** Why it is refused ('' when accepted). */
  reason: string;
  /** Quantifiers whose repetition count is a choice over a range as long as the input (`*`, `+`, `{2,}`, `{1,100}`). */
  openQuantifiers: number;
  /** The product of the other choices: alternatives of each `|`, and short ranges (`?`, `{1,3}`). */
  fixedChoices: number;
  /** Only tried at the start of the input (`^`, no top-level `|`). */
  anchored: boolean;
}

/** A quantifier's range up to this many counts is a fixed factor, beyond it one that grows with the input. */
const SHORT_RANGE = 16;

/**
 * Reads a pattern's structure in one pass: it is refused when a quantified group's body repeats or
 * alternates, even in a group nested inside it (`(a+)+`, `(\w|\d)*`, `((a|a)c)+`: exponential
 * backtracking), or when it uses a backreference. Otherwise every way a match can backtrack is a
 * choice of one count per quantifier and one branch per alternation, which the counts bound.
 */
export function patternShape(source: string): PatternShape {
  interface Frame { repeats: boolean; alternates: boolean; branches: number }
  const stack: Frame[] = [{ repeats: false, alternates: false, branches: 1 }];
  const shape: PatternShape = { reason: '', openQuantifiers: 0, fixedChoices: 1, anchored: source.startsWith('^') };
  let i = 0;
  const n = source.length;
  /** Reads a quantifier at `at`: its length, whether it allows more than one repetition, and how many counts it allows. */
  const quantifier = (at: number): [number, boolean, number] => {
    const c = source[at];
    if (c === '*' || c === '+') return [source[at + 1] === '?' ? 2 : 1, true, Infinity];
    if (c === '?') return [source[at + 1] === '?' ? 2 : 1, false, 2];
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}\??/.exec(source.slice(at, at + 24));
      if (m) {
        const lo = Number(m[1]);
        const hi = m[2] === undefined ? lo : m[3] === '' ? Infinity : Number(m[3]);
        return [m[0].length, hi > 1, hi - lo + 1];
      }
    }
    return [0, false, 1];
  };
  const count = (counts: number): void => {
    if (counts > SHORT_RANGE) shape.openQuantifiers++;
    else shape.fixedChoices *= Math.max(1, counts);
  };
  const refuse = (reason: string): PatternShape => ({ ...shape, reason });
  while (i < n) {
    const c = source[i];
    const top = stack[stack.length - 1];
    if (c === '\\') {
      const d = source[i + 1];
      if (d !== undefined && d >= '1' && d <= '9') return refuse('it uses a backreference');
      if (d === 'k' && source[i + 2] === '<') return refuse('it uses a backreference');
      i += 2;
    } else if (c === '[') {
      i++;
      if (source[i] === '^') i++;
      if (source[i] === ']') i++;
      while (i < n && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '(') {
      stack.push({ repeats: false, alternates: false, branches: 1 });
      i++;
      // why: `(?:`, `(?<name>`, `(?=` … open a group too; their prefix is not a quantifier.
      if (source[i] === '?') {
        i++;
        if (source[i] === '<' && source[i + 1] !== '=' && source[i + 1] !== '!') { while (i < n && source[i] !== '>') i++; i++; } else i++;
      }
      continue;
    } else if (c === ')') {
      const inner = stack.length > 1 ? stack.pop()! : top;
      shape.fixedChoices *= inner.branches;
      i++;
      const [len, many, counts] = quantifier(i);
      if (len && many && (inner.repeats || inner.alternates)) {
        return refuse(`a repeated group ${inner.repeats ? 'repeats itself' : 'has alternatives'} (exponential backtracking on some inputs); rewrite it without nesting`);
      }
      if (len) count(counts);
      const parent = stack[stack.length - 1];
      // why: what a group holds is held by the groups around it: `((a|a)c)+` repeats an alternation.
      if (inner.repeats || len > 0) parent.repeats = true;
      if (inner.alternates) parent.alternates = true;
      i += len;
      continue;
    } else if (c === '|') {
      top.alternates = true;
      top.branches++;
      if (stack.length === 1) shape.anchored = false;
      i++;
      continue;
    } else {
      i++;
    }
    const [len, , counts] = quantifier(i);
    if (len) { stack[stack.length - 1].repeats = true; count(counts); i += len; }
  }
  shape.fixedChoices *= stack[0].branches;
  return shape;
}

/**
 * Why a pattern is refused ('' when it is accepted): a quantified group whose body repeats or
 * alternates (`(a+)+`, `(\w|\d)*`: exponential backtracking), or a backreference.
 */
export function nonLinearReason(source: string): string {
  return patternShape(source).reason;
}

/** Backtracking steps below which a match is not worth timing: far under a millisecond. */
const UNTIMED_STEPS = 100_000;

/**
 * The longest input on which an accepted pattern cannot take more than UNTIMED_STEPS steps, so that
 * its matches need no clock: each open quantifier chooses among at most n + 1 counts, an unanchored
 * pattern is tried at n + 1 starts, and each attempt reads at most n + |pattern| characters.
 */
export function untimedLength(shape: PatternShape, sourceLength: number, flags: string, maxInput: number): number {
  const degree = shape.openQuantifiers + (shape.anchored && !flags.includes('m') ? 0 : 1);
  const steps = (len: number): number => shape.fixedChoices * (len + 1) ** degree * (len + sourceLength);
  // why: steps() grows with the length, so the longest length within the bound is found by halving
  // (counting up to it took a few ms per expression, paid again by every thread that reads a range).
  let lo = 0;
  let hi = maxInput;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (steps(mid) <= UNTIMED_STEPS) lo = mid; else hi = mid - 1;
  }
  return lo;
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
  const shape = patternShape(source);
  // why: a pattern compiled past the static check (tests do, on purpose) has no bound: every match is timed.
  const untimed = shape.reason ? 0 : untimedLength(shape, source.length, re.flags, maxInput);
  return new Guarded(re, source, maxInput, untimed);
}

/** Matches on short inputs are timed anyway one in about this many (at random), for the total budget. */
const SAMPLE_EVERY = 16;

// why: a class with number fields, not a closure: a double kept in a closure's context is boxed
// anew on every write, a garbage object per match on the hot path.
class Guarded implements GuardedRegex {
  retired = false;
  private total = 0;
  private slow = 0;
  /** Untimed matches left before the next sampled one, and how many matches that one stands for. */
  private countdown = 1;
  private interval = 1;

  /**
   * `untimed`: inputs up to this length cannot make the pattern slow (see untimedLength), so reading
   * the clock twice, which costs more than such a match, is skipped; a random sample of them is
   * timed and stands for all of them in the total. Longer inputs are timed every time.
   */
  constructor(private readonly re: RegExp, readonly source: string, private readonly maxInput: number, private readonly untimed: number) {}

  exec(text: string): RegExpExecArray | null | undefined {
    if (this.retired) return undefined;
    const n = text.length;
    if (n > this.maxInput) return null;
    const weight = n <= this.untimed ? this.sample() : 1;
    if (weight === 0) return this.re.exec(text);
    const t0 = performance.now();
    const m = this.re.exec(text);
    this.charge(performance.now() - t0, weight);
    return m;
  }

  test(text: string): boolean | undefined {
    if (this.retired) return undefined;
    const n = text.length;
    if (n > this.maxInput) return false;
    const weight = n <= this.untimed ? this.sample() : 1;
    if (weight === 0) return this.re.test(text);
    const t0 = performance.now();
    const m = this.re.test(text);
    this.charge(performance.now() - t0, weight);
    return m;
  }

  /** 0 for a short input left untimed, else how many short matches this timed one stands for. */
  private sample(): number {
    if (--this.countdown > 0) return 0;
    const stands = this.interval;
    // why: a random gap (1 to 2·SAMPLE_EVERY − 1), so a log cannot place its slow lines between samples;
    // Math.random once per sample, not per match (its result is a heap number).
    this.interval = this.countdown = 1 + Math.floor(Math.random() * (2 * SAMPLE_EVERY - 1));
    return stands;
  }

  /** Counts a timed match that stands for `weight` matches. */
  private charge(dt: number, weight: number): void {
    this.total += dt * weight;
    if (dt > SLOW_MATCH_MS) this.slow += dt;
    if (this.slow >= SLOW_BUDGET_MS || this.total > TOTAL_BUDGET_MS) this.retired = true;
  }
}
