/** What one user's sessions sent, read from a private MariaDB's general log (Connect lines name the user). */
import { readFileSync } from 'node:fs';
import type { MariaDbServer } from './mariadb';

/** `Query …`, `Prepare …`, `Init DB …` lines of the sessions `user` opened, in order. */
export function sentBy(server: MariaDbServer, user: string): string[] {
  const ours = new Set<string>();
  const sent: string[] = [];
  for (const line of readFileSync(server.generalLog, 'utf8').split('\n')) {
    const m = /^(?:\S+\s+\S+)?\s+(\d+)\s+(Connect|Query|Init DB|Quit|Prepare|Execute)\t?(.*)$/.exec(line);
    if (!m) continue;
    if (m[2] === 'Connect' && m[3].startsWith(`${user}@`)) ours.add(m[1]);
    else if (ours.has(m[1]) && m[2] !== 'Quit' && m[2] !== 'Connect') sent.push(`${m[2]} ${m[3]}`);
  }
  return sent;
}
