/**
 * Route discovery over a tree-sitter syntax tree, one walker for every grammar (the differences
 * live in routeSyntax.ts). It recognises the registration calls of the common web frameworks —
 * verbs (`e.GET`, `app.get`, `r.Get`, `Route::get`, `get '/x' do`), net/http-style `HandleFunc`
 * with Go 1.22 method patterns and gorilla's `.Methods(…)`, decorators (Flask, FastAPI, Bottle) and
 * attributes (actix-web), method routers (axum `get(h).post(h2)`, actix `web::get().to(h)`), route
 * objects (Fastify) — and follows groups and prefixes: variables holding a group, closures that
 * receive one (chi `Route`, Slim `group`, Laravel `prefix()->group`, Sinatra `namespace`), mounts
 * (`Mount`, `use`, `include_router`, `register_blueprint`, `nest`, `route`, `register`, `service`)
 * and helper functions handed a group as an argument.
 */
import type { GrammarTables, SyntaxNode as Node, SyntaxTree } from '../../syntaxTree';
import type { Range, Route } from '../../../model';
import { SPECS } from './languageSpecs';
import type { GrammarName } from './treeSitter';
import { ROUTE_SYNTAX, type RCall, type RouteSyntax } from './routeSyntax';
import { RouterGraph, type RouterId } from '../../routes/routerGraph';

const VERBS: Record<string, string> = {
  get: 'GET', post: 'POST', put: 'PUT', delete: 'DELETE', patch: 'PATCH', head: 'HEAD', options: 'OPTIONS', any: 'ANY', all: 'ANY',
};

/** Calls that make a sub-router with a prefix from their first argument. */
const GROUPS = new Set(['Group', 'group', 'PathPrefix', 'scope', 'resource', 'basePath', 'prefix', 'namespace', 'Route', 'route', 'under']);
/** Calls that start a new router (their receiver is a package or type, not a router). */
const CONSTRUCTORS = /^(?:New\w*|new|Default|Router|App|Hono|express|fastify|Fastify|createApp|APIRouter|Blueprint|Flask|FastAPI|Bottle|AppFactory|create|Echo|Mux|ServeMux)$/;
/** Calls that hand a router (their last or only router argument) a place below the receiver. */
const MOUNTS = new Set(['Mount', 'use', 'nest', 'nest_service', 'include_router', 'register_blueprint', 'mount', 'service']);

export interface HandlerRef { name: string; owner?: string; anonymous?: Range }

interface Pending { router: RouterId; method: string; local: string; framework: string; range: Range; handler?: HandlerRef }

interface Scope { start: number; end: number; bindings: Map<string, RouterId>; implicit?: RouterId; fnName?: string }

interface FnDef { name: string; owner?: string; start: number; params: string[]; range: Range }

/** The framework a file uses, from its imports; decides a few framework-specific argument orders. */
export function detectFramework(grammar: GrammarName, text: string): string {
  const has = (re: RegExp) => re.test(text);
  switch (grammar) {
    case 'go':
      if (has(/labstack\/echo/)) return 'echo';
      if (has(/gin-gonic\/gin/)) return 'gin';
      if (has(/go-chi\/chi/)) return 'chi';
      if (has(/gorilla\/mux/)) return 'gorilla/mux';
      if (has(/goji\.io|zenazn\/goji/)) return 'goji';
      return 'net/http';
    case 'python':
      if (has(/\bfastapi\b/)) return 'fastapi';
      if (has(/\bbottle\b/)) return 'bottle';
      return 'flask';
    case 'ruby': return 'sinatra';
    case 'php':
      if (has(/Slim\\|AppFactory|RouteCollectorProxy/)) return 'slim';
      return 'laravel';
    case 'rust':
      if (has(/\bactix_web\b/)) return 'actix-web';
      return 'axum';
    default:
      if (has(/['"]hono(?:\/[\w-]+)?['"]/)) return 'hono';
      if (has(/['"]fastify['"]/)) return 'fastify';
      return 'express';
  }
}

/** Function literals (handlers and group bodies) per grammar. */
const FUNC_LITERALS: Record<GrammarName, string[]> = {
  go: ['func_literal'], python: ['lambda'], javascript: ['arrow_function', 'function_expression', 'function'],
  typescript: ['arrow_function', 'function_expression', 'function'], tsx: ['arrow_function', 'function_expression', 'function'],
  php: ['anonymous_function', 'arrow_function', 'anonymous_function_creation_expression'], ruby: ['do_block', 'block', 'lambda'], rust: ['closure_expression'],
};
const OTHERS = ['decorated_definition', 'class_declaration', 'class_definition', 'class', 'impl_item', 'return_statement', 'return_expression', 'return'];

/** Per grammar, the node type ids the walker looks at (1) or not (0). */
const VISITED = new WeakMap<GrammarTables, Uint8Array>();

function visitedTypes(grammar: GrammarName, syn: RouteSyntax, tables: GrammarTables): Uint8Array {
  let v = VISITED.get(tables);
  if (!v) {
    const names = new Set([...syn.calls, ...syn.funcDefs, ...FUNC_LITERALS[grammar], ...OTHERS]);
    v = Uint8Array.from(tables.types, (name, id) => (tables.named[id] && names.has(name) ? 1 : 0));
    VISITED.set(tables, v);
  }
  return v;
}

export class RouteWalker {
  private readonly syn: RouteSyntax;
  private readonly graph = new RouterGraph();
  private readonly pending: Pending[] = [];
  private readonly fns: FnDef[] = [];
  private readonly fnByName = new Map<string, FnDef>();
  private readonly scopes: Scope[] = [];
  private readonly closureScopes = new Map<number, { bindings: Map<string, RouterId>; implicit?: RouterId }>();
  private readonly memo = new Map<string, RouterId>();
  private readonly helperCalls: { name: string; args: (RouterId | undefined)[] }[] = [];
  private readonly fnMounts: { fn: string; parent: RouterId; prefix: string }[] = [];
  private readonly classes: { end: number; name: string }[] = [];

  constructor(private readonly file: string, private readonly grammar: GrammarName,
    private readonly framework: string) {
    this.syn = ROUTE_SYNTAX[grammar];
  }

  /** Walks `tree`, the parse of this text. */
  run(tree: SyntaxTree): Route[] {
    this.walk(tree);
    return this.finish();
  }

  /** Visits the named nodes of interest in pre-order (outer nodes before the nodes they contain). */
  private walk(tree: SyntaxTree): void {
    const visited = visitedTypes(this.grammar, this.syn, tree.tables);
    this.scopes.push({ start: 0, end: Infinity, bindings: new Map<string, RouterId>(), implicit: 'root' });
    for (const node of tree.nodes) {
      if (!visited[node.typeId]) continue;
      const start = node.startIndex;
      while (this.scopes.length > 1 && this.scopes[this.scopes.length - 1].end <= start) this.scopes.pop();
      while (this.classes.length && this.classes[this.classes.length - 1].end <= start) this.classes.pop();
      this.visit(node);
    }
  }

  private visit(node: Node): void {
    const syn = this.syn;
    const t = node.type;
    if (syn.calls.has(t)) { const c = syn.call(node); if (c) this.onCall(c); return; }
    if (t === 'decorated_definition') { this.onDecorated(node); return; }
    if (t === 'return_statement' || t === 'return_expression' || t === 'return') { this.onReturn(node); return; }
    if (/^class|impl_item$/.test(t)) {
      const name = SPECS[this.grammar].className(node) ?? node.childForFieldName('name')?.text ?? node.childForFieldName('type')?.text;
      if (name) this.classes.push({ end: node.endIndex, name });
      return;
    }
    if (syn.funcDefs.has(t)) { this.onFunctionDef(node); return; }
    if (syn.isFunc(node)) {
      const pre = this.closureScopes.get(node.startIndex);
      const bindings = new Map<string, RouterId>();
      syn.params(node).forEach((p, i) => bindings.set(p, `param:${node.startIndex}:${i}`));
      if (pre) for (const [k, v] of pre.bindings) bindings.set(k, v);
      const name = syn.assignedTo(node);
      if (name) this.fnByName.set(name, { name, start: node.startIndex, params: syn.params(node), range: this.range(node) });
      this.scopes.push({ start: node.startIndex, end: node.endIndex, bindings, implicit: pre?.implicit, fnName: name });
    }
  }

  /** `return r` in a helper that builds a router: calls of the helper stand for that router. */
  private onReturn(node: Node): void {
    let e = node.firstNamedChild;
    if (e?.type === 'expression_list' || e?.type === 'argument_list') e = e.firstNamedChild;
    if (!e || this.syn.calls.has(e.type)) return;
    const ref = this.syn.ref(e);
    if (!ref) return;
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const fn = this.scopes[i].fnName;
      if (fn) { this.graph.alias(`fn:${fn}`, this.lookup(ref)); return; }
    }
  }

  private onFunctionDef(node: Node): void {
    const def = SPECS[this.grammar].functionDef(node);
    const params = this.syn.params(node);
    const bindings = new Map<string, RouterId>();
    params.forEach((p, i) => bindings.set(p, `param:${node.startIndex}:${i}`));
    this.scopes.push({ start: node.startIndex, end: node.endIndex, bindings, fnName: def?.name });
    if (!def) return;
    const owner = def.owner ?? this.classes[this.classes.length - 1]?.name;
    const fn: FnDef = { name: def.name, start: node.startIndex, params, range: this.range(node) };
    if (owner) fn.owner = owner;
    this.fns.push(fn);
    if (!this.fnByName.has(def.name)) this.fnByName.set(def.name, fn);
    if (this.grammar === 'rust') this.rustAttributes(node, def.name);
  }

  // ---------------------------------------------------------------- routers

  private implicit(): RouterId {
    for (let i = this.scopes.length - 1; i >= 0; i--) { const s = this.scopes[i]; if (s.implicit) return s.implicit; }
    return 'root';
  }

  private lookup(name: string): RouterId {
    for (let i = this.scopes.length - 1; i >= 0; i--) { const b = this.scopes[i].bindings.get(name); if (b) return b; }
    return `var:${name}`;
  }

  /**
   * A variable assigned in the innermost function (or the file): its id, so that `r` in one
   * function and `r` in another stay apart. Undefined for a parameter being reassigned.
   */
  private declare(name: string): RouterId | undefined {
    const scope = this.scopes[this.scopes.length - 1];
    const had = scope.bindings.get(name);
    if (had) return had.startsWith('param:') ? undefined : had;
    const id = `var:${scope.start}:${name}`;
    scope.bindings.set(name, id);
    return id;
  }

  /** The router an expression stands for. */
  private routerOf(node: Node | null | undefined): RouterId {
    if (!node) return this.implicit();
    const syn = this.syn;
    if (!syn.calls.has(node.type)) {
      const ref = syn.ref(node);
      if (ref === 'Route' || ref === 'self' || ref === 'this') return this.implicit();
      return ref ? this.lookup(ref) : nid(node);
    }
    const memo = this.memo.get(nid(node));
    if (memo) return memo;
    const c = syn.call(node);
    let id: RouterId = nid(node);
    if (c) {
      const prefix = syn.str(c.args[0]);
      if (GROUPS.has(c.name) && prefix !== undefined && (c.name !== 'route' || c.args.length === 1) && (c.name !== 'Route' || c.args.length === 1)) {
        // why: actix's web::scope / web::resource are free functions of a module; they hang where they are mounted.
        const free = this.grammar === 'rust' && node.childForFieldName('function')?.type === 'scoped_identifier';
        this.graph.link(id, free ? undefined : c.recv ? this.routerOf(c.recv) : this.implicit(), prefix);
      } else if (CONSTRUCTORS.test(c.name)) {
        const kw = syn.str(c.kwargs.get('prefix') ?? c.kwargs.get('url_prefix') ?? c.kwargs.get('root_path'));
        if (kw) this.graph.link(id, undefined, kw);
      } else if (c.recv) {
        id = this.routerOf(c.recv);
      }
    }
    this.memo.set(nid(node), id);
    return id;
  }

  /** A router handed to a mount: a variable, a call of a helper that returns one, or an expression. */
  private childRouter(node: Node): RouterId {
    const c = this.syn.calls.has(node.type) ? this.syn.call(node) : undefined;
    if (c && !c.recv && !CONSTRUCTORS.test(c.name) && !GROUPS.has(c.name)) return `fn:${c.name}`;
    return this.routerOf(node);
  }

  // ---------------------------------------------------------------- calls

  private onCall(c: RCall): void {
    const syn = this.syn;
    const top = !this.isReceiver(c.node);
    if (top) {
      const v = syn.assignedTo(c.node);
      if (v) {
        const target = this.routerOf(c.node);
        const id = this.declare(v);
        if (id) this.graph.alias(id, target);
      }
      const fn = this.returnedFrom(c.node);
      if (fn) this.graph.alias(`fn:${fn}`, this.routerOf(c.node));
    }
    if (c.node.parent?.type === 'decorator') return;
    const name = c.name;
    const lower = name.toLowerCase();
    const a0 = syn.str(c.args[0]);

    // closures that receive a group: chi Route/Group, Slim group, Laravel group, Sinatra namespace, Fastify register
    const closure = [...c.args].reverse().find((a) => syn.isFunc(a)) ?? c.block;
    if (closure && (GROUPS.has(name) || name === 'register')) {
      let child: RouterId;
      if (name === 'register') {
        const opts = c.args[1] ? syn.entries(c.args[1]) : undefined;
        child = nid(closure);
        this.graph.link(child, this.routerOf(c.recv), syn.str(opts?.get('prefix')) ?? '');
      } else if (a0 !== undefined) {
        child = nid(closure);
        this.graph.link(child, this.routerOf(c.recv), a0);
      } else {
        const opts = c.args[0] ? syn.entries(c.args[0]) : undefined;
        const prefix = syn.str(opts?.get('prefix'));
        child = prefix !== undefined ? nid(closure) : this.routerOf(c.recv);
        if (prefix !== undefined) this.graph.link(child, c.recv ? this.routerOf(c.recv) : this.implicit(), prefix);
      }
      const params = syn.params(closure);
      const bindings = new Map<string, RouterId>();
      if (params[0]) bindings.set(params[0], child);
      this.closureScopes.set(closure.startIndex, { bindings, implicit: child });
      return;
    }
    if (name === 'register' && c.args[0]) {
      const ref = syn.ref(c.args[0]);
      const opts = c.args[1] ? syn.entries(c.args[1]) : undefined;
      if (ref) this.fnMounts.push({ fn: ref, parent: this.routerOf(c.recv), prefix: syn.str(opts?.get('prefix')) ?? '' });
      return;
    }
    if (name === 'configure' && c.args[0]) {
      const ref = syn.ref(c.args[0]);
      if (ref) this.fnMounts.push({ fn: ref, parent: this.routerOf(c.recv), prefix: '' });
      return;
    }

    // mounts
    if (MOUNTS.has(name) || (name === 'route' && c.args.length === 2 && !syn.isFunc(c.args[1]) && this.framework === 'hono')) {
      if (name === 'include_router' || name === 'register_blueprint') {
        const kw = syn.str(c.kwargs.get('prefix') ?? c.kwargs.get('url_prefix'));
        // why: Flask's url_prefix at registration replaces the blueprint's own; FastAPI's prefix adds to the router's.
        if (c.args[0]) this.graph.link(this.childRouter(c.args[0]), this.routerOf(c.recv), kw ?? '', name === 'register_blueprint' && kw !== undefined);
        return;
      }
      if (name === 'service') {
        const arg = c.args[0];
        if (!arg) return;
        const ref = syn.calls.has(arg.type) ? undefined : syn.ref(arg);
        this.graph.link(ref ? `fn:${ref}` : this.routerOf(arg), this.routerOf(c.recv), '');
        return;
      }
      const last = c.args[c.args.length - 1];
      if (last && !syn.isFunc(last) && (a0 !== undefined ? c.args.length >= 2 : c.args.length === 1)) {
        this.graph.link(this.childRouter(last), this.routerOf(c.recv), a0 ?? '');
      }
      return;
    }

    // net/http, gorilla/mux, goji/pat, chi HandleFunc/Method
    if (this.grammar === 'go' && /^(?:HandleFunc|Handle|Method|MethodFunc|Handler|HandlerFunc)$/.test(name)) { this.goHandle(c); return; }

    // axum .route("/x", get(h).post(h2)); actix .route("/x", web::get().to(h)) and resource .route(web::get().to(h))
    if (name === 'route' && (this.grammar === 'rust')) {
      const path = a0 ?? '';
      const mr = c.args[a0 !== undefined ? 1 : 0];
      if (!mr) return;
      const router = a0 !== undefined ? this.routerOf(c.recv) : this.routerOf(c.recv);
      for (const m of this.methodRouter(mr, path)) this.add(router, m.method, path, c.node, m.handler, this.framework);
      return;
    }
    if (name === 'to' && this.grammar === 'rust' && c.recv && syn.calls.has(c.recv.type)) {
      const rc = syn.call(c.recv);
      if (rc && rc.name === 'resource') {
        const h = c.args[0] ? this.handlerOf(c.args[0], 'ANY', '') : undefined;
        this.add(this.routerOf(c.recv), 'ANY', '', c.node, h, this.framework);
      }
      return;
    }
    // Fastify route({ method, url, handler }) / Hono app.on('GET', '/x', h)
    if (name === 'route' && c.args.length === 1) {
      const opts = syn.entries(c.args[0]);
      if (!opts) return;
      const url = syn.str(opts.get('url') ?? opts.get('path'));
      if (url === undefined) return;
      const methods = this.methodsOf(opts.get('method')) ?? ['ANY'];
      const h = opts.get('handler');
      for (const m of methods) this.add(this.routerOf(c.recv), m, url, c.node, h ? this.handlerOf(h, m, url) : undefined, this.framework);
      return;
    }
    // Flask add_url_rule('/x', view_func=h, methods=[…])
    if (name === 'add_url_rule' && a0 !== undefined) {
      const h = c.kwargs.get('view_func') ?? c.args[2];
      for (const m of this.methodsOf(c.kwargs.get('methods')) ?? ['GET']) this.add(this.routerOf(c.recv), m, a0, c.node, h ? this.handlerOf(h, m, a0) : undefined, this.framework);
      return;
    }
    // Slim / Laravel map(['GET','POST'], '/x', h), Laravel match([...], ...), echo Match
    if ((name === 'map' || name === 'match' || name === 'Match') && c.args.length >= 3) {
      const methods = this.methodsOf(c.args[0]);
      const path = syn.str(c.args[1]);
      if (!methods || path === undefined) return;
      const h = c.args[2];
      for (const m of methods) this.add(this.routerOf(c.recv), m, path, c.node, this.handlerOf(h, m, path), this.framework);
      return;
    }

    const method = VERBS[lower] ?? (name === 'del' ? 'DELETE' : undefined);
    if (!method) { if (c.args.length) this.noteHelperCall(c); return; }
    const laravel = c.recv?.text === 'Route';
    if (a0 !== undefined && (a0.startsWith('/') || a0 === '' || laravel || (a0 === '' && !!c.recv)) && !a0.includes('://')) {
      if (c.args.length < 2 && !c.block) return;
      const hNode = c.block ?? (this.framework === 'echo' ? c.args[1] : c.args[c.args.length - 1]);
      this.add(this.routerOf(c.recv), method, a0, c.node, this.handlerOf(hNode, method, a0), laravel ? 'laravel' : this.framework);
      return;
    }
    // Express router.route('/x').get(h).post(h2)
    if (a0 === undefined && c.args.length >= 1 && c.recv && syn.calls.has(c.recv.type)) {
      let r: Node | null = c.recv;
      while (r && syn.calls.has(r.type)) {
        const rc = syn.call(r);
        if (!rc) break;
        if (rc.name === 'route' && rc.args.length === 1) {
          const path = syn.str(rc.args[0]);
          if (path !== undefined) this.add(this.routerOf(rc.recv), method, path, c.node, this.handlerOf(c.args[c.args.length - 1], method, path), this.framework);
          return;
        }
        if (!VERBS[rc.name.toLowerCase()]) break;
        r = rc.recv;
      }
    }
  }

  private goHandle(c: RCall): void {
    const syn = this.syn;
    let path: string | undefined;
    let methods: string[] | undefined;
    let framework = this.framework;
    let handler: Node | undefined = c.args[c.args.length - 1];
    const first = c.args[0];
    if (!first) return;
    if ((c.name === 'Method' || c.name === 'MethodFunc' || (c.name === 'Handle' && c.args.length === 3))) {
      const m = this.goMethods([first])[0];
      path = syn.str(c.args[1]);
      if (!m || path === undefined) return;
      methods = [m.toUpperCase()];
    } else if (c.name === 'Handler' || c.name === 'HandlerFunc') {
      // gorilla r.Path("/x").HandlerFunc(h).Methods("GET") / r.Methods("GET").Path("/x").HandlerFunc(h)
      const chain = this.chain(c.node);
      const p = chain.find((x) => x.name === 'Path');
      path = p ? syn.str(p.args[0]) : undefined;
      if (path === undefined) return;
      const ms = chain.find((x) => x.name === 'Methods');
      methods = ms ? this.goMethods(ms.args) : undefined;
      const pathCall = chain.find((x) => x.name === 'Path');
      this.emitGo(pathCall?.recv ?? c.recv, methods ?? ['ANY'], path, c, handler, 'gorilla/mux');
      return;
    } else {
      const s = syn.str(first);
      if (s !== undefined) {
        const m = /^([A-Z]+)\s+(.*)$/.exec(s);
        if (m) { methods = [m[1]]; path = m[2]; } else path = s;
        if (c.recv?.text === 'http' || framework === 'goji') framework = 'net/http';
      } else if (syn.calls.has(first.type)) {
        // goji: mux.HandleFunc(pat.Get("/x"), h)
        const pc = syn.call(first);
        if (!pc) return;
        path = syn.str(pc.args[0]);
        if (path === undefined) return;
        methods = [VERBS[pc.name.toLowerCase()] ?? 'ANY'];
        framework = 'goji/pat';
      } else return;
      if (c.args.length < 2) return;
    }
    // gorilla: .Methods("GET", "POST") on the result
    const outer = c.node.parent?.parent;
    if (outer && syn.calls.has(outer.type) && this.isReceiver(c.node)) {
      const oc = syn.call(outer);
      if (oc?.name === 'Methods') { methods = this.goMethods(oc.args); framework = 'gorilla/mux'; }
    }
    if (framework === 'net/http' && this.framework !== 'net/http' && c.recv?.text !== 'http') framework = this.framework;
    this.emitGo(c.recv, methods ?? ['ANY'], path!, c, handler, framework);
    handler = undefined;
  }

  /** `"GET"` or `http.MethodGet` arguments of gorilla's Methods / chi's Method. */
  private goMethods(args: Node[]): string[] {
    return args.map((a) => this.syn.str(a) ?? /^http\.Method(\w+)$/.exec(a.text)?.[1]).filter((s): s is string => !!s).map((s) => s.toUpperCase());
  }

  private emitGo(recv: Node | null, methods: string[], path: string, c: RCall, h: Node | undefined, framework: string): void {
    for (const m of methods) this.add(this.routerOf(recv), m, path, c.node, h ? this.handlerOf(h, m, path) : undefined, framework);
  }

  /** Calls chained on and around a call (`r.Path("/x").Methods("GET").HandlerFunc(h)`), receivers first. */
  private chain(node: Node): RCall[] {
    const out: RCall[] = [];
    let top: Node = node;
    while (top.parent && top.parent.parent && this.isReceiver(top) && this.syn.calls.has(top.parent.parent.type)) top = top.parent.parent;
    let cur: Node | null = top;
    while (cur && this.syn.calls.has(cur.type)) {
      const c = this.syn.call(cur);
      if (!c) break;
      out.unshift(c);
      cur = c.recv;
    }
    return out;
  }

  /** axum `get(h).post(h2)` / actix `web::get().to(h)`: the methods and their handlers. */
  private methodRouter(node: Node, path: string): { method: string; handler?: HandlerRef }[] {
    const out: { method: string; handler?: HandlerRef }[] = [];
    let cur: Node | null = node;
    let pendingTo: Node | undefined;
    while (cur && this.syn.calls.has(cur.type)) {
      const c = this.syn.call(cur);
      if (!c) break;
      if (c.name === 'to') pendingTo = c.args[0];
      else {
        const m = VERBS[c.name.toLowerCase()] ?? (c.name === 'route' ? 'ANY' : undefined);
        if (m) {
          const h = c.args[0] ?? pendingTo;
          out.unshift({ method: m, handler: h ? this.handlerOf(h, m, path) : undefined });
          pendingTo = undefined;
        }
      }
      cur = c.recv && this.syn.calls.has(c.recv.type) ? c.recv : null;
    }
    return out;
  }

  private methodsOf(node: Node | undefined): string[] | undefined {
    if (!node) return undefined;
    const one = this.syn.str(node);
    if (one !== undefined) return [one.toUpperCase()];
    const items = this.syn.items(node);
    if (!items) return undefined;
    const ms = items.map((i) => this.syn.str(i)).filter((s): s is string => !!s).map((s) => s.toUpperCase());
    return ms.length ? ms : undefined;
  }

  // ---------------------------------------------------------------- decorators and attributes

  private onDecorated(node: Node): void {
    const def = node.childForFieldName('definition');
    if (!def || def.type !== 'function_definition') return;
    const fname = def.childForFieldName('name')?.text;
    if (!fname) return;
    for (const d of node.namedChildren) {
      if (!d || d.type !== 'decorator') continue;
      const call = d.firstNamedChild;
      if (!call || call.type !== 'call') continue;
      const c = this.syn.call(call);
      if (!c) continue;
      const path = this.syn.str(c.args[0]);
      if (path === undefined) continue;
      const verb = VERBS[c.name.toLowerCase()];
      let methods: string[] | undefined;
      if (verb) methods = [verb];
      else if (c.name === 'route') methods = this.methodsOf(c.kwargs.get('methods') ?? c.kwargs.get('method') ?? c.args[1]) ?? ['GET'];
      else if (c.name === 'api_route') methods = this.methodsOf(c.kwargs.get('methods')) ?? ['GET'];
      if (!methods) continue;
      for (const m of methods) this.add(this.routerOf(c.recv), m, path, call, { name: fname }, this.framework);
    }
  }

  private rustAttributes(fn: Node, name: string): void {
    for (let s = fn.previousNamedSibling; s && s.type === 'attribute_item'; s = s.previousNamedSibling) {
      const attr = s.firstNamedChild;
      const id = attr?.firstNamedChild;
      if (!attr || !id) continue;
      const macro = id.text.replace(/^.*::/, '');
      const tt = attr.childForFieldName('arguments');
      const strs = tt ? tt.namedChildren.filter((x): x is Node => !!x && x.type === 'string_literal') : [];
      const path = this.syn.str(strs[0]);
      if (path === undefined) continue;
      let methods: string[] = [];
      if (VERBS[macro] && macro !== 'all') methods = [VERBS[macro]];
      else if (macro === 'route') methods = [...(tt?.text ?? '').matchAll(/method\s*=\s*"(\w+)"/g)].map((m) => m[1].toUpperCase());
      else continue;
      for (const m of methods.length ? methods : ['ANY']) this.add(`fn:${name}`, m, path, s, { name }, 'actix-web');
    }
  }

  // ---------------------------------------------------------------- helpers

  private add(router: RouterId, method: string, local: string, at: Node, handler: HandlerRef | undefined, framework: string): void {
    const p: Pending = { router, method, local, framework, range: this.range(at) };
    if (handler) p.handler = handler;
    this.pending.push(p);
  }

  private handlerOf(node: Node | null | undefined, method: string, local: string): HandlerRef | undefined {
    if (!node) return undefined;
    const syn = this.syn;
    if (syn.isFunc(node)) return { name: `${method} ${local}`, anonymous: this.range(node) };
    const ref = syn.ref(node);
    if (ref) {
      const dot = ref.lastIndexOf('.');
      if (dot < 0) return { name: ref.replace(/^.*::/, '') };
      const head = ref.slice(0, dot).replace(/^.*[.:]/, '');
      const name = ref.slice(dot + 1);
      return /^[A-Z]/.test(head) && this.grammar !== 'go' ? { name, owner: head } : { name };
    }
    // wrappers: asyncHandler(fn), http.HandlerFunc(fn), web::get().to(h)
    if (syn.calls.has(node.type)) {
      const c = syn.call(node);
      if (c?.args.length === 1) return this.handlerOf(c.args[0], method, local);
    }
    return undefined;
  }

  /** True when `node` is the receiver of a method call (`node.foo(...)`). */
  private isReceiver(node: Node): boolean {
    const p = node.parent;
    if (!p) return false;
    return ['selector_expression', 'member_expression', 'attribute', 'field_expression', 'member_call_expression', 'call'].includes(p.type)
      && (p.childForFieldName('operand') ?? p.childForFieldName('object') ?? p.childForFieldName('value') ?? p.childForFieldName('receiver'))?.id === node.id;
  }

  /** Name of the function whose result `node` is (a `return` or Rust's tail expression). */
  private returnedFrom(node: Node): string | undefined {
    let p = node.parent;
    if (p?.type === 'expression_list') p = p.parent;
    const isReturn = p && ['return_statement', 'return_expression', 'return'].includes(p.type);
    const isTail = p?.type === 'block' && this.grammar === 'rust' && p.lastNamedChild?.id === node.id;
    const isArrowBody = p?.type === 'arrow_function';
    if (!isReturn && !isTail && !isArrowBody) return undefined;
    for (let i = this.scopes.length - 1; i >= 0; i--) if (this.scopes[i].fnName) return this.scopes[i].fnName;
    return undefined;
  }

  private range(node: Node): Range {
    const s = node.startPosition, e = node.endPosition;
    return { start: { line: s.row, character: s.column }, end: { line: e.row, character: e.column } };
  }

  private finish(): Route[] {
    this.linkHelpers();
    for (const h of this.fnMounts) {
      const fn = this.fnByName.get(h.fn.replace(/^.*[.:]/, ''));
      if (fn) this.graph.link(`param:${fn.start}:0`, h.parent, h.prefix);
    }
    const out: Route[] = [];
    const at = (r: Range) => r.start.line * 1e6 + r.start.character;
    this.pending.sort((a, b) => at(a.range) - at(b.range));
    for (const p of this.pending) {
      const pattern = joinPattern(this.graph.prefixOf(p.router), p.local);
      const r: Route = { method: p.method, pattern, framework: p.framework, file: this.file, range: p.range };
      if (p.handler) {
        const h = p.handler;
        if (h.anonymous) r.handler = { name: h.name, file: this.file, range: h.anonymous };
        else {
          const def = this.fns.find((f) => f.name === h.name && (!h.owner || f.owner === h.owner)) ?? (h.owner ? undefined : undefined);
          r.handler = { name: h.owner ? `${h.owner}.${h.name}` : h.name };
          if (def) { r.handler.file = this.file; r.handler.range = def.range; }
        }
      }
      out.push(r);
    }
    return out;
  }

  /** Records calls of same-file helpers with router arguments (`registerItems(e.Group("/api"))`). */
  private noteHelperCall(c: RCall): void {
    this.helperCalls.push({ name: c.name, args: c.args.map((a) => (this.syn.ref(a) || this.syn.calls.has(a.type) ? this.routerOf(a) : undefined)) });
  }

  private linkHelpers(): void {
    for (const h of this.helperCalls) {
      const fn = this.fnByName.get(h.name);
      if (!fn) continue;
      h.args.forEach((id, i) => { if (id && i < fn.params.length) this.graph.link(`param:${fn.start}:${i}`, id, ''); });
    }
  }
}

/** Id of the router an expression makes (a call and its receiver can start at the same offset). */
function nid(node: Node): RouterId {
  return `node:${node.startIndex}-${node.endIndex}`;
}

function joinPattern(prefix: string, local: string): string {
  const joined = !prefix ? local : prefix.replace(/\/$/, '') + (local === '' || local === '/' ? '' : local.startsWith('/') ? local : `/${local}`);
  if (joined === '') return '/';
  return joined.startsWith('/') ? joined : `/${joined}`;
}
