/**
 * The agent tools' host over the file system, for any Node front end: the source scanned with the
 * CLI's scanner (one facts cache for the server's life, so a call after the first re-parses only what
 * changed), the schema files found as `explain` finds them, and file:line links relative to the root.
 */
import { readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import type { ExplainService } from '../db/explainService';
import type { ProjectScan } from '../node/scanDir';
import { findSchemaFiles } from '../node/schemaFiles';
import type { AgentHost } from './agentTools';
import { mdText } from './markdown';

export interface FsHostOptions {
  root: string;
  explainService: () => Promise<ExplainService | undefined>;
  connectHint: string;
  /**
   * The facts of a folder's files: read from disk (diskScan.ts: the MCP server), or those the front end
   * keeps already (the editor's index, current with unsaved edits).
   */
  scan(dir: string): Promise<ProjectScan>;
  /** A link to a file at a line (absolute path); default: the path relative to the root, `path#Lline`. */
  link?: (absPath: string, line: number) => string;
}

/** A link whose text is `file:line` relative to `root` and whose target is the same path with `#Lline`. */
export function relativeLink(root: string, absPath: string, line: number): string {
  const rel = relative(root, absPath).split(sep).join('/');
  return `[${mdText(`${rel}:${line}`)}](${encodeURI(rel).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}#L${line})`;
}

export function fsAgentHost(opts: FsHostOptions): AgentHost {
  const link = opts.link ?? ((abs: string, line: number) => relativeLink(opts.root, abs, line));
  return {
    root: opts.root,
    connectHint: opts.connectHint,
    scan: opts.scan,
    explainService: opts.explainService,
    async schemaTexts() {
      // why: as `advise` reads them offline: the .sql files with CREATE TABLE under the root.
      const files = await findSchemaFiles(opts.root);
      const out: { file: string; text: string }[] = [];
      for (const f of files) {
        const text = await readFile(f, 'utf8').catch(() => undefined);
        if (text !== undefined) out.push({ file: relative(opts.root, f).split(sep).join('/'), text });
      }
      return out;
    },
    link: (base, file, line) => link(`${base}${sep}${file.split('/').join(sep)}`, line),
  };
}
