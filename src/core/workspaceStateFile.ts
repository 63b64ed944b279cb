/**
 * The text of the workspace's state file (`state.json` under the extension's workspace storage):
 * a format tag, a version and the values by key. The extension reads and writes the file
 * (src/extension/durableState.ts); what the text holds, and what makes it unreadable, is decided here.
 */

export const STATE_FILE_FORMAT = 'query-insight-state';
export const STATE_FILE_VERSION = 1;

interface StateFile {
  format: typeof STATE_FILE_FORMAT;
  version: typeof STATE_FILE_VERSION;
  values: Record<string, unknown>;
}

/** The values of a state file's text; throws with what is wrong (not JSON, another format or version, no values). */
export function parseStateFile(text: string): Map<string, unknown> {
  const v: unknown = JSON.parse(text);
  const o = v as Partial<StateFile> | null;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error('not a JSON object');
  if (o.format !== STATE_FILE_FORMAT) throw new Error(`"format" is not "${STATE_FILE_FORMAT}"`);
  if (o.version !== STATE_FILE_VERSION) throw new Error(`version ${String(o.version)} is not supported (expected ${STATE_FILE_VERSION})`);
  if (typeof o.values !== 'object' || o.values === null || Array.isArray(o.values)) throw new Error('"values" is not an object');
  return new Map(Object.entries(o.values));
}

/** The text of a state file holding `values` (what parseStateFile reads back). */
export function stateFileText(values: ReadonlyMap<string, unknown>): string {
  const body: StateFile = { format: STATE_FILE_FORMAT, version: STATE_FILE_VERSION, values: Object.fromEntries(values) };
  return JSON.stringify(body);
}
