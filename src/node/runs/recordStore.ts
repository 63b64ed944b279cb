/**
 * Run records on disk: one pretty JSON file per round in a directory (`.query-insight/runs` of the
 * workspace by default), and the workspace's run settings in `.query-insight/config.json`, which the
 * CLI reads and the editor writes, so the next round is one command with no arguments.
 */
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseRecord, recordInfo, serializeRecord, type RecordInfo, type RunRecord } from '../../core/runs/record';

/** The store's place inside a workspace, relative to its root. */
export const DEFAULT_STORE = join('.query-insight', 'runs');
export const CONFIG_FILE = join('.query-insight', 'config.json');

/** The workspace's run settings. Log sources are written as the CLI takes them (a path, HOST:/PATH, ssh://…). */
export interface RunsConfig {
  access?: string[];
  slow?: string[];
  /** The store directory (relative to the workspace). */
  store?: string;
  /** Access-log layout (ltsv, json, combined …) when it should not be guessed. */
  logFormat?: string;
  /** Where the app's routes are found (a directory, relative to the workspace); default the workspace. */
  routes?: string;
  /** Seconds a benchmark usually takes, for the short-window warning (default: from the previous rounds). */
  benchSeconds?: number;
}

/** Reads `.query-insight/config.json` under `root`; `{}` when there is none. Throws with the file named when it is not valid. */
export async function readRunsConfig(root: string): Promise<RunsConfig> {
  let text: string;
  try { text = await readFile(join(root, CONFIG_FILE), 'utf8'); } catch { return {}; }
  let v: unknown;
  try { v = JSON.parse(text); } catch (err) { throw new Error(`${CONFIG_FILE}: not valid JSON (${(err as Error).message})`); }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${CONFIG_FILE}: not a JSON object`);
  const o = v as Record<string, unknown>;
  const list = (k: string): string[] | undefined => {
    if (o[k] === undefined) return undefined;
    if (!Array.isArray(o[k]) || !(o[k] as unknown[]).every((x) => typeof x === 'string')) throw new Error(`${CONFIG_FILE}: "${k}" is not a list of log paths`);
    return o[k] as string[];
  };
  const str = (k: string): string | undefined => {
    if (o[k] === undefined) return undefined;
    if (typeof o[k] !== 'string') throw new Error(`${CONFIG_FILE}: "${k}" is not a string`);
    return o[k] as string;
  };
  const bench = o.benchSeconds;
  if (bench !== undefined && (typeof bench !== 'number' || !(bench > 0))) throw new Error(`${CONFIG_FILE}: "benchSeconds" is not a positive number`);
  return { access: list('access'), slow: list('slow'), store: str('store'), logFormat: str('logFormat'), routes: str('routes'), ...(bench !== undefined ? { benchSeconds: bench as number } : {}) };
}

/** Writes the settings (merged over what is there), keeping the file readable. */
export async function writeRunsConfig(root: string, patch: RunsConfig): Promise<void> {
  const current = await readRunsConfig(root).catch(() => ({}));
  await mkdir(join(root, '.query-insight'), { recursive: true });
  const merged = { ...current, ...patch };
  for (const k of Object.keys(merged) as (keyof RunsConfig)[]) if (merged[k] === undefined) delete merged[k];
  await writeFile(join(root, CONFIG_FILE), JSON.stringify(merged, null, 2) + '\n');
}

/** A file in the store that is not a record, and why. */
export interface StoreProblem { file: string; message: string }

export class RecordStore {
  constructor(readonly dir: string) {}

  /** Every record, oldest first, and the files that could not be read (never fatal). */
  async all(): Promise<{ records: RunRecord[]; problems: StoreProblem[] }> {
    let names: string[];
    try { names = await readdir(this.dir); } catch { return { records: [], problems: [] }; }
    const records: RunRecord[] = [];
    const problems: StoreProblem[] = [];
    for (const n of names.filter((x) => x.endsWith('.json')).sort()) {
      try {
        records.push(parseRecord(await readFile(join(this.dir, n), 'utf8')));
      } catch (err) {
        problems.push({ file: n, message: (err as Error).message });
      }
    }
    records.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
    return { records, problems };
  }

  async infos(): Promise<RecordInfo[]> {
    return (await this.all()).records.map(recordInfo);
  }

  /** The newest record, or undefined. */
  async latest(): Promise<RunRecord | undefined> {
    const { records } = await this.all();
    return records[records.length - 1];
  }

  /**
   * A record by reference: its id, a unique prefix of its id or commit, or `last` / `last~N` (N rounds
   * before the newest). Throws with what was asked when none or several match.
   */
  async find(ref: string): Promise<RunRecord> {
    const { records } = await this.all();
    const back = /^last(?:~(\d+))?$/.exec(ref);
    if (back) {
      const r = records[records.length - 1 - Number(back[1] ?? 0)];
      if (!r) throw new Error(`no run ${ref}: ${records.length} recorded`);
      return r;
    }
    const exact = records.find((r) => r.id === ref);
    if (exact) return exact;
    const prefixed = records.filter((r) => r.id.startsWith(ref) || r.git?.commit.startsWith(ref));
    if (prefixed.length === 1) return prefixed[0];
    throw new Error(prefixed.length ? `"${ref}" matches ${prefixed.length} runs: ${prefixed.map((r) => r.id).join(', ')}` : `no run "${ref}" in ${this.dir}`);
  }

  /** Writes a record (atomically: a temporary file renamed into place). */
  async save(r: RunRecord): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, `${r.id}.json`);
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, serializeRecord(r));
    await rename(tmp, file);
    return file;
  }

  /** True when a record with this id exists. */
  async has(id: string): Promise<boolean> {
    return (await this.all()).records.some((r) => r.id === id);
  }
}
