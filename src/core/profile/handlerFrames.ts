/**
 * Which profiler frames are the app's route handlers, and which are the runtime, the database driver
 * or idling. Handlers come from the route reader's output (name, file, range); each language's
 * spelling of a function in a frame comes from source/profileFrames.ts. A frame is a handler when
 * its name is the handler's name as that language qualifies and mangles it (and its file, when the
 * frame names one, is the handler's file), or when it names a file and line inside the handler's
 * body (anonymous handlers: a Sinatra block, an Express arrow function).
 */
import type { Language, Range, Route } from '../model';
import { languageForPath } from '../source/languageOf';
import type { ProfileFrameRules } from '../source/lang/profileFrames';
import { LANGUAGES, traitsOf } from '../source/lang/languages';

/** One frame as a profiler wrote it: the function's name, and its file and line when known. */
export interface ProfileFrame {
  name: string;
  file?: string;
  /** 1-based. */
  line?: number;
}

/** A handler function and the routes it serves. */
export interface ProfileHandler {
  name: string;
  /** As the route reader gives it: relative to the scanned root, `/`-separated. */
  file: string;
  range: Range;
  routes: { method: string; pattern: string }[];
}

/** What a frame is, for attribution. */
export interface FrameClass {
  /** Index into handlers(), or -1. */
  handler: number;
  driver: boolean;
  runtime: boolean;
  idle: boolean;
}

/** A path without a `file://` prefix, `/`-separated. */
export function framePath(file: string): string {
  const f = file.startsWith('file://') ? decodeURIComponentSafe(file.slice(7)) : file;
  return f.replace(/\\/g, '/');
}

function decodeURIComponentSafe(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}

/** True when two paths name the same file: equal, or one is the other's tail at a `/`. */
export function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  return a.length > b.length ? a.endsWith(`/${b}`) || (b.startsWith('./') && a.endsWith(b.slice(1)))
    : b.endsWith(`/${a}`) || (a.startsWith('./') && b.endsWith(a.slice(1)));
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** A frame's name as the language writes it, split into qualifiers, the function's own name last. */
export function nameSegments(rules: ProfileFrameRules, name: string): string[] {
  let n = name.trim();
  for (const [re, to] of rules.clean) n = n.replace(re, to);
  return n.split(rules.separator).filter((s) => s.length > 0);
}

/** True for the route reader's stand-in name of an anonymous handler (`GET /posts/:id`). */
function anonymous(name: string): boolean {
  return /[\s/]/.test(name);
}

/** The handlers of a set of routes, one per function (routes sharing a handler share it). */
export function handlersOf(routes: readonly Route[]): ProfileHandler[] {
  const byKey = new Map<string, ProfileHandler>();
  for (const r of routes) {
    const h = r.handler;
    if (!h) continue;
    const file = h.file ?? r.file;
    const range = h.range ?? r.range;
    const key = `${file}\0${range.start.line}\0${range.start.character}\0${h.name}`;
    let entry = byKey.get(key);
    if (!entry) { entry = { name: h.name, file, range, routes: [] }; byKey.set(key, entry); }
    if (!entry.routes.some((x) => x.method === r.method && x.pattern === r.pattern)) entry.routes.push({ method: r.method, pattern: r.pattern });
  }
  return [...byKey.values()];
}

const ALL_RULES: readonly ProfileFrameRules[] = [...new Set(Object.values(LANGUAGES).map((a) => a.profileFrames))];

/** Classifies frames against a fixed set of handlers. */
export class HandlerMatcher {
  /** Per language of the handlers: their own name (last segment) → handler indexes. */
  private readonly byName = new Map<Language, Map<string, number[]>>();
  /** Handler indexes by the base name of their file, for the place match. */
  private readonly byBase = new Map<string, number[]>();
  private readonly languages: Language[];

  constructor(private readonly list: readonly ProfileHandler[]) {
    list.forEach((h, i) => {
      const lang = languageForPath(h.file);
      if (!lang) return;
      const base = baseName(h.file);
      const atBase = this.byBase.get(base) ?? [];
      atBase.push(i);
      this.byBase.set(base, atBase);
      if (anonymous(h.name)) return;
      const own = nameSegments(traitsOf(lang).profileFrames, h.name).at(-1);
      if (!own) return;
      let names = this.byName.get(lang);
      if (!names) { names = new Map(); this.byName.set(lang, names); }
      const at = names.get(own) ?? [];
      at.push(i);
      names.set(own, at);
    });
    this.languages = [...this.byName.keys()];
  }

  handlers(): readonly ProfileHandler[] { return this.list; }

  /** What `frame` is. */
  classify(frame: ProfileFrame): FrameClass {
    const file = frame.file ? framePath(frame.file) : undefined;
    const test = (pick: (r: ProfileFrameRules) => RegExp | undefined): boolean => ALL_RULES.some((r) => {
      const re = pick(r);
      return !!re && (re.test(frame.name) || (!!file && re.test(file)));
    });
    return {
      handler: this.handlerOf(frame.name, file, frame.line),
      driver: test((r) => r.driver),
      runtime: test((r) => r.runtime),
      idle: test((r) => r.idle),
    };
  }

  private handlerOf(name: string, file: string | undefined, line: number | undefined): number {
    const fileLang = file ? languageForPath(file) : undefined;
    const langs = fileLang ? (this.byName.has(fileLang) ? [fileLang] : []) : this.languages;
    for (const lang of langs) {
      const segments = nameSegments(traitsOf(lang).profileFrames, name);
      const own = segments.at(-1);
      if (!own) continue;
      let found = this.byName.get(lang)?.get(own);
      if (!found) continue;
      if (file) found = found.filter((i) => samePath(file, this.list[i].file));
      if (found.length === 1) return found[0];
      if (found.length > 1) {
        // why: two handlers of one name in different files (app.get_item, admin.get_item): the qualifiers say which.
        const quals = new Set(segments.slice(0, -1).map((s) => s.toLowerCase()));
        const byQual = found.find((i) => {
          const f = this.list[i].file.toLowerCase();
          return quals.has(baseName(f).replace(/\.[^.]+$/, '')) || f.split('/').some((d) => quals.has(d));
        });
        return byQual ?? found[0];
      }
    }
    if (file && line !== undefined) {
      let best = -1;
      for (const i of this.byBase.get(baseName(file)) ?? []) {
        const h = this.list[i];
        if (!samePath(file, h.file)) continue;
        const l = line - 1;
        if (l < h.range.start.line || l > h.range.end.line) continue;
        // why: the innermost body wins when handlers nest (a closure returned by a handler factory).
        if (best < 0 || h.range.start.line >= this.list[best].range.start.line) best = i;
      }
      return best;
    }
    return -1;
  }
}
