/**
 * Packaging the extension for tests: `vsce package` over the current dist/ (built by scripts/build.mjs)
 * into a temp file, and the list of files inside a .vsix (a zip: read from its central directory).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './paths';

/**
 * Runs vsce like `npm run package` does (without the production rebuild) in `cwd` (the repository, or a
 * staging copy of what vsce reads) and returns the .vsix path.
 */
export function packageVsix(outDir = mkdtempSync(join(tmpdir(), 'qi-vsix-')), cwd = REPO_ROOT): string {
  const out = join(outDir, 'query-insight.vsix');
  const vsce = join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '-o', out], { cwd, stdio: 'pipe' });
  return out;
}

/** Names of the entries of a zip file, from its central directory. */
export function zipEntries(path: string): string[] {
  const buf = readFileSync(path);
  // End of central directory record: signature 0x06054b50, at most 64 KiB of comment after it.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) throw new Error(`${path} is not a zip file (no end of central directory)`);
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`${path}: bad central directory entry ${n}`);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    names.push(buf.toString('utf8', p + 46, p + 46 + nameLen));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return names;
}
