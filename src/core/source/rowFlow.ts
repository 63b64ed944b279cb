/**
 * Where a loop's elements come from: the variables a loop's iterable is derived from, followed back
 * through the assignments and appended elements that reach the loop in its function — a list built
 * from a query's rows (`models = [M(**r) for r in rows]`, `$models[] = M::fromRow($row)` in a fetch
 * loop, `list.push(...rows)`, `xs = if … q.fetch_all() else … end`) walks those rows as much as the
 * rows themselves. N+1 detection links the loop to the query whose result lands in one of them.
 */
import type { SyntaxNode as Node } from './syntaxTree';
import type { ValueFlow } from './valueFlow';

/** What a loop's elements are derived from: variable names (sigils dropped) and the nodes of the values given to them. */
export interface RowSources { names: string[]; values: Node[] }

/** How far back assignments are followed (rows → models → page is two). */
const MAX_DEPTH = 4;
/** Bounds on what one loop collects (a long function reusing a few names stays cheap). */
const MAX_NAMES = 24;
const MAX_VALUES = 16;

/**
 * The sources of the loop at `at` over `iterable`: each variable it uses, the values assigned to
 * it before the loop, the elements appended to it (`appended(key, at)`), the iterables of the loops
 * those are written in (`around(value)`), and in turn their names.
 */
export function loopSources(flow: ValueFlow, at: Node, iterable: Node, appended: (key: string, at: Node) => Node[], around: (value: Node) => Node[]): RowSources | undefined {
  const names: string[] = [];
  const values: Node[] = [];
  const seen = new Set<string>();
  let frontier: { key: string; at: Node }[] = [];
  for (const key of flow.namesIn(iterable)) frontier.push({ key, at });
  for (let depth = 0; depth < MAX_DEPTH && frontier.length; depth++) {
    const next: typeof frontier = [];
    for (const { key, at: use } of frontier) {
      if (seen.has(key) || names.length >= MAX_NAMES) continue;
      seen.add(key);
      const given: Node[] = [];
      for (const d of flow.reaching(key, use)) if (d.value) given.push(d.value);
      for (const d of flow.addedBefore(key, use)) if (d.value) given.push(d.value);
      given.push(...appended(key, use));
      if (!given.length) continue;
      // An element added inside another loop (`rows.each do |r| list << r end`) comes from what that loop walks.
      for (const v of [...given]) for (const it of around(v)) if (!given.includes(it)) given.push(it);
      // A member (`self.rows`, `@rows`) is no local a statement's result is assigned to by name.
      if (!key.startsWith('.') && !names.includes(key)) names.push(key);
      for (const v of given) {
        if (values.length < MAX_VALUES && !values.includes(v)) values.push(v);
        for (const k of flow.namesIn(v)) if (!seen.has(k)) next.push({ key: k, at: v });
      }
    }
    frontier = next;
  }
  return names.length || values.length ? { names, values } : undefined;
}
