/**
 * The `queryInsight.boxes` setting: the team's servers, each with a name, an SSH target and the
 * paths of its access log and slow log on that box. Read into remote log sources named after the
 * box (so reports split per box by name); every entry that cannot be used is reported with why, and
 * the usable ones are kept. Pure (no vscode import): unit-tested under plain Node.
 */
import type { LogSource } from '../../core/logs/logSource';

export type BoxSource = Extract<LogSource, { kind: 'ssh' }>;

/** One box of the setting, ready to read. */
export interface Box {
  name: string;
  /** The SSH target as written. */
  ssh: string;
  accessLog?: BoxSource;
  slowLog?: BoxSource;
}

export interface BoxesSetting {
  boxes: Box[];
  /** One sentence per entry (or field) that was left out, naming the entry. */
  problems: string[];
}

/**
 * Reads an SSH target as `ssh` takes it on its command line: `[user@]host[:port]` (`[v6addr]:port`
 * too), where host may be a `~/.ssh/config` Host alias. Returns undefined for anything else.
 */
export function parseSshTarget(text: string): { host: string; user?: string; port?: number } | undefined {
  const m = /^(?:([^@\s:/]+)@)?(?:\[([0-9A-Fa-f:.]+)\]|([^@\s:/[\]]+))(?::(\d{1,5}))?$/.exec(text.trim());
  if (!m) return undefined;
  const port = m[4] === undefined ? undefined : Number(m[4]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { host: m[2] ?? m[3], ...(m[1] ? { user: m[1] } : {}), ...(port !== undefined ? { port } : {}) };
}

const NAME = /^[^\s`*_[\]<>|\\]{1,40}$/;

/** Reads the raw setting value (whatever the settings file holds). */
export function parseBoxes(raw: unknown): BoxesSetting {
  const problems: string[] = [];
  const boxes: Box[] = [];
  if (raw === undefined || raw === null) return { boxes, problems };
  if (!Array.isArray(raw)) return { boxes, problems: ['queryInsight.boxes is not a list of boxes; nothing is read from it'] };
  const seen = new Set<string>();
  raw.forEach((entry: unknown, i) => {
    const at = `queryInsight.boxes[${i}]`;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) { problems.push(`${at} is not an object {"name", "ssh", "accessLog", "slowLog"}; left out`); return; }
    const e = entry as Record<string, unknown>;
    const name = typeof e.name === 'string' ? e.name.trim() : '';
    if (!NAME.test(name)) { problems.push(`${at}: "name" must be a short name without spaces (like isu1); left out`); return; }
    if (seen.has(name)) { problems.push(`${at}: the name ${name} is used twice; the second is left out`); return; }
    const ssh = typeof e.ssh === 'string' ? e.ssh.trim() : '';
    const target = parseSshTarget(ssh);
    if (!target) { problems.push(`${name}: "ssh" must be [user@]host[:port] or a ~/.ssh/config Host alias, not ${JSON.stringify(e.ssh ?? null)}; left out`); return; }
    const box: Box = { name, ssh };
    for (const field of ['accessLog', 'slowLog'] as const) {
      const v = e[field];
      if (v === undefined || v === null || v === '') continue;
      if (typeof v !== 'string' || !v.trim().startsWith('/')) {
        problems.push(`${name}: "${field}" must be an absolute path on the box (like /var/log/nginx/access.log), not ${JSON.stringify(v)}; not read`);
        continue;
      }
      box[field] = { kind: 'ssh', ...target, path: v.trim(), label: name };
    }
    if (!box.accessLog && !box.slowLog) { problems.push(`${name}: neither "accessLog" nor "slowLog" is set; nothing to read there`); return; }
    seen.add(name);
    boxes.push(box);
  });
  return { boxes, problems };
}
