/**
 * The agent tools' host over the file system, for any Node front end: the source scanned with the
 * CLI's scanner (one facts cache for the server's life, so a call after the first re-parses only what
 * changed), the schema files found as `explain` finds them, and file:line links relative to the root.
 */
import { readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import type { FileFacts } from '../core/model';
import { ParserSet, type GrammarSource } from '../core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../core/workspace';
import type { ExplainService } from '../db/explainService';
import { scanProject } from '../node/scanDir';
import { findSchemaFiles } from '../node/schemaFiles';
import type { AgentHost } from './agentTools';
import { mdText } from './markdown';

export interface FsHostOptions {
  root: string;
  grammars: GrammarSource;
  explainService: () => Promise<ExplainService | undefined>;
  connectHint: string;
  /**
   * The facts of the root's files when the front end already keeps them (the editor's index, current
   * with unsaved edits); default: the root is scanned as any other folder.
   */
  indexed?: () => Promise<FileFacts[]>;
  /** A link to a file at a line (absolute path); default: the path relative to the root, `path#Lline`. */
  link?: (absPath: string, line: number) => string;
}

/** A link whose text is `file:line` relative to `root` and whose target is the same path with `#Lline`. */
export function relativeLink(root: string, absPath: string, line: number): string {
  const rel = relative(root, absPath).split(sep).join('/');
  return `[${mdText(`${rel}:${line}`)}](${encodeURI(rel).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}#L${line})`;
}

export function fsAgentHost(opts: FsHostOptions): AgentHost {
  const cache = new FactsCache(new ParserSet(opts.grammars));
  const link = opts.link ?? ((abs: string, line: number) => relativeLink(opts.root, abs, line));
  return {
    root: opts.root,
    connectHint: opts.connectHint,
    scan: async (dir) => {
      if (!opts.indexed || dir !== opts.root) return scanProject(dir, cache);
      const facts = await opts.indexed();
      return { facts, skipped: new Map(), ignoredDirs: [], git: false, files: facts.length, bytes: 0 };
    },
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
