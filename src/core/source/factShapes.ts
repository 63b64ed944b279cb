/**
 * One object shape per kind of fact, whichever extractor made it (tree-sitter walker, Perl lexer)
 * and whichever optional members it has: every member present, in one order, absent ones undefined.
 *
 * why: the N+1 detection and the front ends read the facts of all files of all languages in one
 * loop; with a shape per extractor and per combination of optional members those reads turned
 * polymorphic and the hot functions were re-optimised each time files of another language came along.
 */
import type { CallSite, FunctionDef, LoopInfo, SqlSite } from '../model';

type Uniform<T> = { [K in keyof Required<T>]: T[K] };

export function uniformSite(s: SqlSite): SqlSite {
  const out: Uniform<SqlSite> = {
    file: s.file, language: s.language, range: s.range, literalRanges: s.literalRanges, sql: s.sql, placeholders: s.placeholders,
    dynamic: s.dynamic, call: s.call, function: s.function, functionRange: s.functionRange, loops: s.loops, resultVar: s.resultVar,
    textStart: s.textStart, callRange: s.callRange, helper: s.helper, detached: s.detached, runRange: s.runRange, memoised: s.memoised,
    guards: s.guards, once: s.once, dispatched: s.dispatched,
    limit: s.limit,
  };
  return out;
}

export function uniformCall(c: CallSite): CallSite {
  const out: Uniform<CallSite> = { name: c.name, receiver: c.receiver, range: c.range, function: c.function, loops: c.loops, detached: c.detached,
    args: c.args, guards: c.guards, once: c.once, dispatched: c.dispatched };
  return out;
}

export function uniformFunction(f: FunctionDef): FunctionDef {
  const out: Uniform<FunctionDef> = { name: f.name, owner: f.owner, range: f.range, nameRange: f.nameRange, params: f.params };
  return out;
}

/** A loop's info (made once per loop: sites and calls in it share the object, which N+1 detection relies on). */
export function loopInfo(kind: string, range: LoopInfo['range'], iterable: string | undefined): LoopInfo {
  // `from` and `retry` are filled in once the file's value flow is known (extract.ts).
  const out: Uniform<LoopInfo> = { kind, range, iterable, from: undefined, retry: undefined, endless: undefined, breaks: undefined, vars: undefined };
  return out;
}
