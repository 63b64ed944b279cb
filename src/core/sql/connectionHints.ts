/**
 * Connection settings an app already declares in its workspace: env.sh / .env (KEY=value,
 * `export KEY=value`), docker-compose.yml (`environment:` as a map or a list). Pure: text in,
 * candidates out; the extension offers them for one-click confirmation.
 */

export type HintField = 'host' | 'port' | 'user' | 'password' | 'database' | 'socket';

export interface ConnectionHint {
  field: HintField;
  value: string;
  /** The variable it came from (`ISUCON_DB_HOST`). */
  key: string;
  file: string;
  /** 0-based line. */
  line: number;
}

/** Variable name → field, most specific first. */
const KEYS: [RegExp, HintField][] = [
  [/^(?:ISUCON\d*_)?(?:DB|MYSQL|MARIADB|DATABASE)_(?:HOST|HOSTNAME|ADDR|ADDRESS)$/, 'host'],
  [/^MYSQL_HOST$/, 'host'],
  [/^(?:ISUCON\d*_)?(?:DB|MYSQL|MARIADB|DATABASE)_PORT$/, 'port'],
  [/^(?:ISUCON\d*_)?(?:DB|MYSQL|MARIADB|DATABASE)_(?:USER|USERNAME)$/, 'user'],
  [/^(?:ISUCON\d*_)?(?:DB|MYSQL|MARIADB|DATABASE)_(?:PASS|PASSWORD|PASSWD)$/, 'password'],
  [/^MYSQL_ROOT_PASSWORD$/, 'password'],
  [/^(?:ISUCON\d*_)?(?:DB|MYSQL|MARIADB)_(?:NAME|DATABASE|DBNAME|SCHEMA)$/, 'database'],
  [/^(?:ISUCON\d*_)?(?:DB|MYSQL|MARIADB)_(?:SOCKET|SOCK|UNIX_SOCKET)$/, 'socket'],
];

/** Which connection field a variable name declares, if any. */
export function fieldOf(key: string): HintField | undefined {
  const k = key.toUpperCase();
  return KEYS.find(([re]) => re.test(k))?.[1];
}

function unquote(v: string): string {
  const t = v.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return t.slice(1, -1);
  return t.replace(/\s+#.*$/, '');
}

/** Reads KEY=value lines of a shell env file or a .env file. */
export function hintsFromEnvText(text: string, file: string): ConnectionHint[] {
  const out: ConnectionHint[] = [];
  text.split(/\r?\n/).forEach((raw, line) => {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(raw);
    if (!m) return;
    const field = fieldOf(m[1]);
    const value = unquote(m[2]);
    // why: `${OTHER}` / `$(cmd)` are evaluated by the shell; we cannot know their value.
    if (field && value && !/\$[({]/.test(value)) out.push({ field, value, key: m[1], file, line });
  });
  return out;
}

/** Reads `environment:` entries of docker-compose.yml services (map form `KEY: v` and list form `- KEY=v`). */
export function hintsFromComposeText(text: string, file: string): ConnectionHint[] {
  const out: ConnectionHint[] = [];
  let envIndent = -1;
  text.split(/\r?\n/).forEach((raw, line) => {
    if (/^\s*(#.*)?$/.test(raw)) return;
    const indent = raw.length - raw.trimStart().length;
    if (/^\s*environment\s*:\s*$/.test(raw)) { envIndent = indent; return; }
    if (envIndent >= 0 && indent <= envIndent) envIndent = -1;
    if (envIndent < 0) return;
    const item = /^\s*-\s*["']?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)["']?\s*$/.exec(raw) ?? /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$/.exec(raw);
    if (!item) return;
    const field = fieldOf(item[1]);
    const value = unquote(item[2]);
    if (field && value && !/\$[({]/.test(value)) out.push({ field, value, key: item[1], file, line });
  });
  return out;
}

/** Dispatches on the file name: docker-compose*.yml / compose*.yaml, or an env file. */
export function connectionHints(text: string, file: string): ConnectionHint[] {
  const base = file.split('/').pop() ?? file;
  return /^(?:docker-)?compose.*\.ya?ml$/i.test(base) ? hintsFromComposeText(text, file) : hintsFromEnvText(text, file);
}
