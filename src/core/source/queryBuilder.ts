/**
 * Query builders that grow a statement by pushes (Rust sqlx's `QueryBuilder`): which variables hold a builder
 * or a `separated(…)` view of one, and what each chain of pushes adds to the builder's text.
 *
 * why: `QueryBuilder::new("SELECT … WHERE id IN (")` is the start of a statement, not one; the pushes that
 * follow (text, a bound value, a separated list) make the rest. Read as text alone it came out cut short.
 */
import type { SyntaxNode as Node } from './syntaxTree';
import type { Variant } from './valueFlow';

/** What a push adds: its argument's text, a placeholder, rows of tuples, or something not known here. */
export type PushKind = 'text' | 'bind' | 'values' | 'tuples' | 'unknown';

/** One push onto a builder, in program order. */
export interface Push {
  adds: PushKind;
  /** The text pushed (for 'text'). */
  value: Node | null;
  /** The separator of the `separated` view pushed on, when this push writes it after an earlier push of the view. */
  sep: Node | undefined;
  /** The view pushed on (0: the builder itself). */
  view: number;
}

/** The pushes a builder's method makes, and whether a separated view writes its separator before it. */
const PUSHES: ReadonlyMap<string, { adds: PushKind; separated: boolean }> = new Map([
  ['push', { adds: 'text', separated: true }],
  ['push_unseparated', { adds: 'text', separated: false }],
  ['push_bind', { adds: 'bind', separated: true }],
  ['push_bind_unseparated', { adds: 'bind', separated: false }],
  // `push_values(rows, |b, r| …)`: `VALUES (…), (…)`, a tuple per row; `push_tuples`: `(…), (…)`.
  ['push_values', { adds: 'values', separated: false }],
  ['push_tuples', { adds: 'tuples', separated: false }],
]);

/** Calls that make the statement of the builder they are called on (`qb.build_query_as()`). */
export const BUILDS: ReadonlySet<string> = new Set(['build', 'build_query_as', 'build_query_scalar']);

/** `QueryBuilder::new(text)` (with or without a path or type arguments): a builder that starts with that text. */
export function startsBuilder(callee: string): boolean {
  return callee.endsWith('::new') && /(?:^|::)QueryBuilder(?:::<[^>]*>)?::new$/.test(callee);
}

/** A variable holding a builder or a view of one, where it lives. */
interface Holder { builder: string; scope: Node; sep: Node | undefined; view: number }

/** The builders of one file, filed as their variables are assigned (in program order). */
export class Builders {
  private readonly held = new Map<string, Holder[]>();
  private views = 0;

  constructor(private readonly keyOf: (n: Node) => string | undefined) {}

  get size(): number {
    return this.held.size;
  }

  /** Files the variable `key` (living in `scope`) when `value` makes a builder or a `separated` view of one. */
  note(key: string, value: Node, scope: Node): void {
    const fn = value.childForFieldName('function');
    if (!fn) return;
    if (fn.type === 'field_expression') {
      const view = this.viewOf(value);
      if (view) this.file(key, { ...view, scope });
    } else if (startsBuilder(fn.text)) this.file(key, { builder: key, scope, sep: undefined, view: 0 });
  }

  /**
   * The builder a chain of pushes ending in the call `n` adds to, and its pushes in order
   * (`qb.push("a = ").push_bind(a)`: each push returns the builder or view it was called on).
   * Undefined for a call inside a chain (the chain's last call stands for it) or not on a known builder.
   */
  pushes(n: Node): { builder: string; pushes: Push[] } | undefined {
    const up = n.parent;
    if (up?.type === 'field_expression' && up.parent?.type === 'call_expression' && PUSHES.has(up.childForFieldName('field')?.text ?? '')) return undefined;
    const chain: Node[] = [];
    let recv: Node | null = n;
    for (; recv?.type === 'call_expression'; recv = recv.childForFieldName('function')!.childForFieldName('value')) {
      const f = recv.childForFieldName('function');
      if (f?.type !== 'field_expression' || !PUSHES.has(f.childForFieldName('field')?.text ?? '')) break;
      chain.push(recv);
    }
    if (!recv || !chain.length) return undefined;
    // `qb.separated(", ").push_bind(a)`: a view made for this chain.
    const h = recv.type === 'call_expression' ? this.viewOf(recv) : this.holder(recv);
    if (!h) return undefined;
    const pushes: Push[] = [];
    for (let i = chain.length - 1; i >= 0; i--) {
      const call = chain[i];
      const p = PUSHES.get(call.childForFieldName('function')!.childForFieldName('field')!.text)!;
      pushes.push({
        adds: p.adds,
        value: p.adds === 'text' ? call.childForFieldName('arguments')?.firstNamedChild ?? null : null,
        sep: p.separated ? h.sep : undefined,
        view: h.view,
      });
    }
    return { builder: h.builder, pushes };
  }

  /**
   * The builders the call `n` is handed to change (`add_filters(&mut qb, …)`): what that function pushes is
   * not read here, so the statement gets a dynamic part there instead of silently missing it.
   */
  handedOn(n: Node): string[] {
    const args = n.childForFieldName('arguments');
    if (!args) return [];
    const out: string[] = [];
    for (const a of args.namedChildren) {
      if (a.type !== 'reference_expression' || !a.children.some((c) => c.type === 'mutable_specifier')) continue;
      const v = a.childForFieldName('value');
      const h = v ? this.holder(v) : undefined;
      if (h && !out.includes(h.builder)) out.push(h.builder);
    }
    return out;
  }

  /** The view a `b.separated(sep)` call makes, when `b` holds a builder. */
  private viewOf(call: Node): Holder | undefined {
    const fn = call.childForFieldName('function');
    if (fn?.type !== 'field_expression' || fn.childForFieldName('field')?.text !== 'separated') return undefined;
    const recv = fn.childForFieldName('value');
    const b = recv ? this.holder(recv) : undefined;
    if (!b) return undefined;
    return { builder: b.builder, scope: b.scope, sep: call.childForFieldName('arguments')?.firstNamedChild ?? undefined, view: ++this.views };
  }

  /** What the variable `n` names holds where it is used: the last builder or view filed under its name whose scope holds it. */
  private holder(n: Node): Holder | undefined {
    const key = this.keyOf(n);
    const hs = key === undefined ? undefined : this.held.get(key);
    if (!hs) return undefined;
    for (let i = hs.length - 1; i >= 0; i--) {
      const h = hs[i];
      if (h.scope.startIndex <= n.startIndex && h.scope.endIndex >= n.endIndex) return h;
    }
    return undefined;
  }

  private file(key: string, h: Holder): void {
    const hs = this.held.get(key);
    if (hs) hs.push(h); else this.held.set(key, [h]);
  }
}

export const NO_VIEWS: ReadonlySet<number> = new Set();
const DYNAMIC: Variant[] = [{ parts: [{ dynamic: true }], literals: [], helper: undefined }];
/** What a push adds when it is not text: a placeholder, rows of tuples (how many is not known), or an unknown part. */
const PUSHED: Readonly<Record<Exclude<PushKind, 'text'>, Variant[]>> = {
  bind: [{ parts: [{ text: '?' }], literals: [], helper: undefined }],
  values: [{ parts: [{ text: 'VALUES ' }, { dynamic: true }], literals: [], helper: undefined }],
  tuples: [{ parts: [{ text: '(' }, { dynamic: true }, { text: ')' }], literals: [], helper: undefined }],
  unknown: DYNAMIC,
};

/**
 * The pieces a chain of pushes adds, in order: each one's text (by `evalText`) or placeholder, after its view's
 * separator once the view has pushed (in `before`, the views pushed on the way here, or earlier in the chain).
 */
export function pushedPieces(pushes: readonly Push[], before: ReadonlySet<number>, evalText: (n: Node) => Variant[]): Variant[][] {
  const pieces: Variant[][] = [];
  let own: number[] | undefined;
  for (const p of pushes) {
    if (p.sep) {
      if (before.has(p.view) || own?.includes(p.view)) pieces.push(evalText(p.sep));
      else (own ??= []).push(p.view);
    }
    pieces.push(p.adds === 'text' ? (p.value ? evalText(p.value) : DYNAMIC) : PUSHED[p.adds]);
  }
  return pieces;
}

/** An assignment as viewsPushed reads it. */
interface PushDef { kind: 'set' | 'append'; pushes: readonly Push[] | undefined }

/**
 * The separated views that have written a separated push on some path through the assignment `d` (the
 * next push of such a view writes its separator first), kept in `memo`; `reaching` gives the assignments before one.
 */
export function viewsPushed<D extends PushDef>(d: D, memo: Map<D, ReadonlySet<number>>, reaching: (d: D) => D[]): ReadonlySet<number> {
  const kept = memo.get(d);
  if (kept) return kept;
  const out = new Set<number>();
  // Kept before the walk: a cycle of assignments reads what is known so far.
  memo.set(d, out);
  if (d.kind === 'append') {
    for (const p of reaching(d)) for (const v of viewsPushed(p, memo, reaching)) out.add(v);
    for (const p of d.pushes ?? []) if (p.sep) out.add(p.view);
  }
  return out;
}
