/**
 * What kind of loop repeats a statement, decided here once for every language from the facts every extractor
 * gives (LoopInfo's traits, and the loops a call runs once in or is dispatched in). Only a data loop — over rows,
 * over the items of a request, over a list built from rows — multiplies a statement; the others give at most a hint
 * that names their kind.
 */
import type { LoopInfo } from '../model';
import { isSmallConstantCollection } from './nPlusOneSyntax';

export type LoopKind = 'data' | 'retry' | 'poll-or-stream' | 'dispatch' | 'constant-list' | 'runs-once';

/** Where a statement (or the call leading to it) stands in its loops. */
export interface LoopPlace { once?: LoopInfo[]; dispatched?: LoopInfo[] }

/** A counted loop or literal list this short, left by `break` on success, is a retry loop (`for i := 0; i < 10; i++ { …; break }`). */
const RETRY_BOUND = 20;

/** The kind of `loop` for a statement at `place`; `small` tells a literal collection of a few constants. */
export function loopKind(loop: LoopInfo, place: LoopPlace, small: (l: LoopInfo) => boolean): LoopKind {
  // A retry loop is told as one even where the statement's own branch leaves it (`…; break` in the attempt).
  if (loop.retry) return 'retry';
  if (loop.breaks && !loop.endless && loop.iterable !== undefined && isSmallConstantCollection(loop.iterable, RETRY_BOUND)) return 'retry';
  if (place.once?.includes(loop)) return 'runs-once';
  if (place.dispatched?.includes(loop)) return 'dispatch';
  if (loop.endless) return 'poll-or-stream';
  if (small(loop)) return 'constant-list';
  return 'data';
}

/** The data loops of `loops` (outermost first), and the innermost other loop that is not runs-once (for a hint). */
export function splitLoops(loops: readonly LoopInfo[], place: LoopPlace, small: (l: LoopInfo) => boolean): { data: LoopInfo[]; other?: { loop: LoopInfo; kind: LoopKind } } {
  const data: LoopInfo[] = [];
  let other: { loop: LoopInfo; kind: LoopKind } | undefined;
  for (const l of loops) {
    const k = loopKind(l, place, small);
    if (k === 'data') data.push(l);
    else if (k !== 'runs-once') other = { loop: l, kind: k };
  }
  return { data, other };
}

/** How a hint words each kind of loop. */
export const LOOP_KIND_TEXT: Record<Exclude<LoopKind, 'data' | 'runs-once'>, string> = {
  retry: 'The loop leaves after the first pass that succeeds (a retry loop), so it repeats only on failure.',
  'poll-or-stream': 'The loop takes one message or job per pass (a poll or stream loop), so the statement runs once per message, not per row.',
  dispatch: 'Each pass of the loop takes another branch on its key (a dispatch loop), so the statement runs once.',
  'constant-list': 'The loop is over a small constant list, so the cost is bounded.',
};
