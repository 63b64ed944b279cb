/**
 * The typed table of every `queryInsight.*` setting: type, default, scope and whether an untrusted
 * workspace may set it. Pure (no vscode import) so a unit test can hold it against package.json's
 * contributes.configuration; config.ts reads the live values through it.
 *
 * To add a setting: one entry here, one property in package.json (the test fails until both agree).
 */

export type SettingScope = 'application' | 'machine' | 'window' | 'resource' | 'machine-overridable';

interface Spec<T> {
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  default: T;
  scope: SettingScope;
  /** Connection settings and user regexes: ignored in an untrusted workspace (capabilities.untrustedWorkspaces). */
  restricted?: boolean;
  minimum?: number;
  maximum?: number;
  /** The only values a string setting takes (package.json lists them with an enumDescription each). */
  enum?: readonly string[];
  /** What an array holds (default strings); objects are checked by the feature that reads them. */
  items?: 'string' | 'object';
}

/** Section prefix of every setting. */
export const SECTION = 'queryInsight';

export const SETTINGS = {
  'scan.exclude': {
    type: 'array',
    default: ['**/node_modules/**', '**/vendor/**', '**/.git/**', '**/dist/**', '**/build/**', '**/target/**'],
    scope: 'resource',
  } as Spec<string[]>,
  'scan.maxFileSizeKb': { type: 'integer', default: 1024, scope: 'resource', minimum: 1 } as Spec<number>,
  'scan.debounceMs': { type: 'integer', default: 300, scope: 'window', minimum: 0, maximum: 10_000 } as Spec<number>,
  'scan.fileTimeBudgetMs': { type: 'integer', default: 10_000, scope: 'window', minimum: 100, maximum: 600_000 } as Spec<number>,
  'connection.host': { type: 'string', default: '127.0.0.1', scope: 'window', restricted: true } as Spec<string>,
  'connection.port': { type: 'integer', default: 3306, scope: 'window', restricted: true, minimum: 1, maximum: 65535 } as Spec<number>,
  'connection.socket': { type: 'string', default: '', scope: 'window', restricted: true } as Spec<string>,
  'connection.user': { type: 'string', default: '', scope: 'window', restricted: true } as Spec<string>,
  'connection.database': { type: 'string', default: '', scope: 'window', restricted: true } as Spec<string>,
  'connection.sslMode': { type: 'string', default: 'DISABLED', scope: 'window', restricted: true, enum: ['DISABLED', 'PREFERRED', 'REQUIRED', 'VERIFY_CA', 'VERIFY_IDENTITY'] } as Spec<string>,
  'connection.sslCa': { type: 'string', default: '', scope: 'window', restricted: true } as Spec<string>,
  'connection.ssh.host': { type: 'string', default: '', scope: 'window', restricted: true } as Spec<string>,
  'connection.ssh.port': { type: 'integer', default: 22, scope: 'window', restricted: true, minimum: 1, maximum: 65535 } as Spec<number>,
  'connection.ssh.user': { type: 'string', default: '', scope: 'window', restricted: true } as Spec<string>,
  'connection.ssh.privateKeyPath': { type: 'string', default: '', scope: 'window', restricted: true } as Spec<string>,
  'connection.ssh.useAgent': { type: 'boolean', default: true, scope: 'window', restricted: true } as Spec<boolean>,
  'endpoints.logFormat': { type: 'string', default: 'auto', scope: 'window', enum: ['auto', 'ltsv', 'json', 'combined', 'combined-alp', 'nginx'] } as Spec<string>,
  'endpoints.nginxLogFormat': { type: 'string', default: '', scope: 'window' } as Spec<string>,
  // why: regular expressions that run on every request path: a repository could ship a catastrophic one.
  'endpoints.matchingGroups': { type: 'array', default: [], scope: 'resource', restricted: true } as Spec<string[]>,
  'endpoints.fieldMapping': { type: 'array', default: [], scope: 'window' } as Spec<string[]>,
  'endpoints.watchDebounceMs': { type: 'integer', default: 1000, scope: 'window', minimum: 0, maximum: 60_000 } as Spec<number>,
  'slowLog.watchDebounceMs': { type: 'integer', default: 1000, scope: 'window', minimum: 0, maximum: 60_000 } as Spec<number>,
  // why: SSH targets the editor logs in to and reads files from; a repository must not choose them.
  boxes: { type: 'array', items: 'object', default: [], scope: 'window', restricted: true } as Spec<unknown[]>,
  // why: a place the editor writes files to; a repository must not point it outside the workspace's own folder.
  'runs.store': { type: 'string', default: '.query-insight/runs', scope: 'window', restricted: true } as Spec<string>,
} as const;

export type SettingKey = keyof typeof SETTINGS;
type ValueOf<K extends SettingKey> = (typeof SETTINGS)[K] extends Spec<infer T> ? T : never;

/** The typed view of every setting, grouped by area. */
export interface QueryInsightConfig {
  scan: { exclude: string[]; maxFileSizeKb: number; debounceMs: number; fileTimeBudgetMs: number };
  /** `sslMode` and `sslCa` as the mysql client's --ssl-mode and --ssl-ca (src/db/tls.ts). */
  connection: { host: string; port: number; socket: string; user: string; database: string; sslMode: string; sslCa: string };
  /** The `connection.ssh.*` settings: a tunnel to the box when `host` is set (see src/db/sshTunnel.ts). */
  ssh: { host: string; port: number; user: string; privateKeyPath: string; useAgent: boolean };
  /** `logFormat` is the effective layout: a format name, `auto`, or the nginx log_format string itself. */
  endpoints: { logFormat: string; matchingGroups: string[]; fieldMapping: string[]; watchDebounceMs: number };
  slowLog: { watchDebounceMs: number };
  /** Where recorded runs are kept, relative to the workspace folder. */
  runs: { store: string };
}

/**
 * Settings grouped as the Settings editor shows them (package.json's configuration sections, in
 * this order); every key belongs to exactly one section (a unit test holds package.json to it).
 */
export const SETTING_SECTIONS: readonly { title: string; prefix: string }[] = [
  { title: 'Scan', prefix: 'scan.' },
  { title: 'Connection', prefix: 'connection.' },
  { title: 'SSH', prefix: 'connection.ssh.' },
  { title: 'Endpoints', prefix: 'endpoints.' },
  { title: 'Slow log', prefix: 'slowLog.' },
  { title: 'Boxes', prefix: 'boxes' },
  { title: 'Runs', prefix: 'runs.' },
];

/** The title of the section a setting (short key) belongs to: the one with the longest matching prefix. */
export function sectionOf(key: string): string | undefined {
  let best: { title: string; prefix: string } | undefined;
  for (const s of SETTING_SECTIONS) if (key.startsWith(s.prefix) && (!best || s.prefix.length > best.prefix.length)) best = s;
  return best?.title;
}

/** A value that did not fit its setting's type; the default was used instead. */
export interface SettingProblem { key: string; message: string }

function valid(spec: Spec<unknown>, v: unknown): boolean {
  switch (spec.type) {
    case 'string': return typeof v === 'string' && (!spec.enum || spec.enum.includes(v));
    case 'boolean': return typeof v === 'boolean';
    case 'array': return Array.isArray(v) && v.every((x) => (spec.items === 'object' ? typeof x === 'object' && x !== null : typeof x === 'string'));
    case 'number':
    case 'integer':
      if (typeof v !== 'number' || !Number.isFinite(v)) return false;
      if (spec.type === 'integer' && !Number.isInteger(v)) return false;
      return (spec.minimum === undefined || v >= spec.minimum) && (spec.maximum === undefined || v <= spec.maximum);
  }
}

/**
 * Builds the typed configuration from a getter of raw values (`get('scan.exclude')`), falling back
 * to the default for a missing or ill-typed value and reporting each such value.
 */
export function readSettings(get: (key: SettingKey) => unknown): { config: QueryInsightConfig; problems: SettingProblem[] } {
  const problems: SettingProblem[] = [];
  const v = <K extends SettingKey>(key: K): ValueOf<K> => {
    const spec = SETTINGS[key] as Spec<unknown>;
    const raw = get(key);
    if (raw === undefined || raw === null) return spec.default as ValueOf<K>;
    if (valid(spec, raw)) return raw as ValueOf<K>;
    problems.push({ key: `${SECTION}.${key}`, message: `expected ${describe(spec)}, got ${JSON.stringify(raw)}; using ${JSON.stringify(spec.default)}` });
    return spec.default as ValueOf<K>;
  };
  const config: QueryInsightConfig = {
    scan: { exclude: v('scan.exclude'), maxFileSizeKb: v('scan.maxFileSizeKb'), debounceMs: v('scan.debounceMs'), fileTimeBudgetMs: v('scan.fileTimeBudgetMs') },
    connection: {
      host: v('connection.host'), port: v('connection.port'), socket: v('connection.socket'),
      user: v('connection.user'), database: v('connection.database'),
      sslMode: v('connection.sslMode'), sslCa: v('connection.sslCa'),
    },
    ssh: {
      host: v('connection.ssh.host'), port: v('connection.ssh.port'), user: v('connection.ssh.user'),
      privateKeyPath: v('connection.ssh.privateKeyPath'), useAgent: v('connection.ssh.useAgent'),
    },
    endpoints: {
      logFormat: logFormat(get, v, problems), matchingGroups: v('endpoints.matchingGroups'),
      fieldMapping: v('endpoints.fieldMapping'), watchDebounceMs: v('endpoints.watchDebounceMs'),
    },
    slowLog: { watchDebounceMs: v('slowLog.watchDebounceMs') },
    runs: { store: v('runs.store') },
  };
  return { config, problems };
}

/**
 * The effective access-log layout: `nginx` means the `nginxLogFormat` string. A log_format string
 * written straight into `logFormat` (as older versions took it) is still used as given, with a note.
 */
function logFormat(get: (key: SettingKey) => unknown, v: <K extends SettingKey>(key: K) => ValueOf<K>, problems: SettingProblem[]): string {
  const raw = get('endpoints.logFormat');
  if (typeof raw === 'string' && raw.includes('$')) {
    problems.push({ key: `${SECTION}.endpoints.logFormat`, message: `a log_format string belongs in ${SECTION}.endpoints.nginxLogFormat (with logFormat "nginx"); using it as given` });
    return raw;
  }
  const name = v('endpoints.logFormat');
  if (name !== 'nginx') return name;
  const custom = v('endpoints.nginxLogFormat').trim();
  if (custom) return custom;
  problems.push({ key: `${SECTION}.endpoints.nginxLogFormat`, message: 'logFormat is "nginx" but no log_format string is set; guessing the layout' });
  return 'auto';
}

function describe(spec: Spec<unknown>): string {
  if (spec.enum) return `one of ${spec.enum.join(', ')}`;
  const range = spec.minimum !== undefined || spec.maximum !== undefined
    ? ` in [${spec.minimum ?? '-∞'}, ${spec.maximum ?? '∞'}]` : '';
  return spec.type === 'array' ? 'a list of strings' : `${spec.type === 'integer' ? 'an integer' : `a ${spec.type}`}${range}`;
}

/** Full names of the settings an untrusted workspace may not set. */
export function restrictedSettings(): string[] {
  return Object.entries(SETTINGS).filter(([, s]) => (s as Spec<unknown>).restricted).map(([k]) => `${SECTION}.${k}`);
}
