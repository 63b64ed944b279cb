/**
 * Checks a tool call's arguments against the tool's schema (toolTable.ts) before anything runs: a
 * wrong argument is a tool error that says which and why, never a crash nor a guess.
 */
import type { ArgSchema, PropSchema } from './toolTable';

/** A call the tool cannot carry out as asked: returned to the agent as a tool error, with this message. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

export type ToolArgs = Record<string, string | number | boolean | string[] | undefined>;

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  return typeof v === 'string' ? `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}` : `${typeof v} ${JSON.stringify(v)}`;
}

function checkProp(name: string, p: PropSchema, v: unknown): string | undefined {
  switch (p.type) {
    case 'string':
      if (typeof v !== 'string') return `\`${name}\` must be a string, not ${describe(v)}`;
      if (p.enum && !p.enum.includes(v)) return `\`${name}\` must be one of ${p.enum.join(', ')}, not ${describe(v)}`;
      return undefined;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `\`${name}\` must be true or false, not ${describe(v)}`;
    case 'integer':
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v) || (p.type === 'integer' && !Number.isInteger(v))) return `\`${name}\` must be ${p.type === 'integer' ? 'a whole number' : 'a number'}, not ${describe(v)}`;
      if (p.minimum !== undefined && v < p.minimum) return `\`${name}\` must be at least ${p.minimum} (got ${v})`;
      if (p.maximum !== undefined && v > p.maximum) return `\`${name}\` must be at most ${p.maximum} (got ${v})`;
      return undefined;
    case 'array':
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return `\`${name}\` must be an array of strings, not ${describe(v)}`;
      if (p.minItems !== undefined && v.length < p.minItems) return `\`${name}\` needs at least ${p.minItems} item${p.minItems === 1 ? '' : 's'}`;
      return undefined;
  }
}

/** The arguments, checked; throws ToolError naming the first argument that is wrong. */
export function checkArgs(tool: string, schema: ArgSchema, args: unknown): ToolArgs {
  const given = args ?? {};
  if (typeof given !== 'object' || Array.isArray(given)) throw new ToolError(`${tool}: the arguments must be an object, not ${describe(given)}`);
  const out: ToolArgs = {};
  for (const [name, v] of Object.entries(given as Record<string, unknown>)) {
    const p = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
    if (!p) throw new ToolError(`${tool}: unknown argument \`${name}\` (arguments: ${Object.keys(schema.properties).join(', ')})`);
    if (v === undefined || v === null) continue;
    const wrong = checkProp(name, p, v);
    if (wrong) throw new ToolError(`${tool}: ${wrong}`);
    out[name] = v as ToolArgs[string];
  }
  for (const name of schema.required ?? []) if (out[name] === undefined) throw new ToolError(`${tool}: \`${name}\` is required`);
  return out;
}
