/**
 * Handlers named in one file and defined in another (`e.GET("/x", h.getItem)` in main.go,
 * `func (h *Handler) getItem` in items.go; `[ItemController::class, 'show']` in routes/web.php):
 * resolved against every file's function definitions.
 */
import type { FileFacts, FunctionDef, Route } from '../../model';

function key(name: string): string {
  return name.replace(/^.*(?:\.|::)/, '');
}

function ownerOf(name: string): string | undefined {
  const m = /^(.*)(?:\.|::)[^.:]+$/.exec(name);
  return m ? m[1].replace(/^.*(?:\.|::)/, '') : undefined;
}

/**
 * Every route of `facts`, with handlers that name a function defined elsewhere given that
 * function's file and range. A name defined in several files prefers the same owner (class or
 * Perl package), then the route's own directory, then the first file in path order.
 */
export function resolveHandlers(facts: readonly FileFacts[]): Route[] {
  const defs = new Map<string, { file: string; def: FunctionDef }[]>();
  for (const f of facts) {
    for (const d of f.functions) {
      let list = defs.get(d.name);
      if (!list) { list = []; defs.set(d.name, list); }
      list.push({ file: f.file, def: d });
    }
  }
  const dirOf = (p: string) => p.slice(0, p.lastIndexOf('/') + 1);
  const out: Route[] = [];
  for (const f of facts) {
    for (const r of f.routes) {
      const h = r.handler;
      if (!h || h.range || !h.name) { out.push(r); continue; }
      const cands = defs.get(key(h.name)) ?? [];
      const owner = ownerOf(h.name);
      const best = (owner ? cands.find((c) => c.def.owner !== undefined && key(c.def.owner) === owner) : undefined)
        ?? (owner ? undefined : cands.find((c) => dirOf(c.file) === dirOf(r.file)) ?? cands[0])
        ?? cands.find((c) => dirOf(c.file) === dirOf(r.file) && !c.def.owner);
      out.push(best ? { ...r, handler: { name: h.name, file: best.file, range: best.def.range } } : r);
    }
  }
  return out;
}
