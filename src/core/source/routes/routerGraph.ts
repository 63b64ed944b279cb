/**
 * Prefixes of routers and groups within one file. A router is known by an id (`var:g`, `fn:api`,
 * `node:123`, `param:45:0`); each may hang below a parent with a prefix (`g := e.Group("/api")`,
 * `app.use('/api', router)`, `r.Mount("/x", sub())`). Routes remember the router they were
 * registered on, and their full pattern is computed once the whole file has been read, so a mount
 * written after the routes still applies.
 */

export type RouterId = string;

interface Link { parent?: RouterId; prefix: string }

/** Joins a prefix and a route pattern as routers do: `/api` + `/` is `/api`; `api` + `x` is `/api/x`. */
export function joinPath(prefix: string, path: string): string {
  if (!prefix) return path === '' ? '/' : path;
  const p = prefix.startsWith('/') ? prefix : `/${prefix}`;
  if (path === '' || path === '/') return p === '/' ? '/' : p.replace(/\/$/, '') || '/';
  return p.replace(/\/$/, '') + (path.startsWith('/') ? path : `/${path}`);
}

export class RouterGraph {
  /** Links as written; resolved through aliases only when prefixes are asked for (aliases may come later). */
  private readonly links: { child: RouterId; parent?: RouterId; prefix: string; replaces: boolean }[] = [];
  private readonly aliases = new Map<RouterId, RouterId>();
  private byChild: Map<RouterId, Link> | undefined;

  /**
   * `child` lives below `parent` (or at the top when none) with `prefix` added. The first link of a
   * router wins; with `replaces`, `prefix` stands instead of the router's own one (Flask's register_blueprint).
   */
  link(child: RouterId, parent: RouterId | undefined, prefix: string, replaces = false): void {
    this.links.push({ child, parent, prefix, replaces });
    this.byChild = undefined;
  }

  /** `name` (a variable or function) stands for `target`; the first alias of a name wins. */
  alias(name: RouterId, target: RouterId): void {
    if (name === target || this.aliases.has(name)) return;
    this.aliases.set(name, target);
    this.byChild = undefined;
  }

  /** The router an id stands for, following aliases. */
  resolve(id: RouterId): RouterId {
    let cur = id;
    for (let i = 0; i < 32; i++) {
      const next = this.aliases.get(cur);
      if (next === undefined || next === cur) return cur;
      cur = next;
    }
    return cur;
  }

  /** The full prefix of a router: its parents' prefixes and its own, joined. */
  prefixOf(id: RouterId | undefined): string {
    if (!this.byChild) {
      this.byChild = new Map();
      const replaced = new Set<RouterId>();
      for (const l of this.links) {
        const c = this.resolve(l.child);
        if (l.parent !== undefined && this.resolve(l.parent) === c) continue;
        const own = this.byChild.get(c);
        if (l.replaces && !replaced.has(c)) {
          // the parent comes from this link, the router's own prefix is dropped
          replaced.add(c);
          this.byChild.set(c, { parent: l.parent, prefix: l.prefix });
        } else if (!own) this.byChild.set(c, { parent: l.parent, prefix: l.prefix });
        else if (own.parent === undefined && l.parent !== undefined && !replaced.has(c)) {
          // a router made with its own prefix (APIRouter(prefix=…)) and mounted later: both apply
          this.byChild.set(c, { parent: `${c}#mount`, prefix: own.prefix });
          this.byChild.set(`${c}#mount`, { parent: l.parent, prefix: l.prefix });
        }
      }
    }
    const parts: string[] = [];
    const seen = new Set<RouterId>();
    let cur = id === undefined ? undefined : this.resolve(id);
    while (cur !== undefined && !seen.has(cur)) {
      seen.add(cur);
      const l = this.byChild.get(cur);
      if (!l) break;
      parts.unshift(l.prefix);
      cur = l.parent === undefined ? undefined : this.resolve(l.parent);
    }
    return parts.reduce((acc, p) => (p ? joinPath(acc, p) : acc), '');
  }
}
