/** Which language a source file is in, by its name. */
import type { Language } from '../model';
import { LANGUAGES } from './lang/languages';

const BY_EXTENSION: Record<string, Language> = Object.fromEntries(
  Object.values(LANGUAGES).flatMap((a) => a.extensions.map((ext) => [ext, a.language] as const)),
);

/** Every file extension read as source (the editor's watcher and scan glob is built from it). */
export const SOURCE_EXTENSIONS: readonly string[] = Object.keys(BY_EXTENSION);

/** A glob of every source file, for file watchers and workspace searches. */
export const SOURCE_GLOB = `**/*.{${SOURCE_EXTENSIONS.join(',')}}`;

/**
 * The language of a file by its extension, or undefined for files we do not read
 * (TypeScript declaration files `.d.ts` are left out: no statements run there; a minified `.min.js` is
 * listed, to be skipped by its path and named with the reason, see generatedText.ts).
 */
export function languageForPath(path: string): Language | undefined {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (/\.d\.[mc]?ts$/.test(base)) return undefined;
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return BY_EXTENSION[base.slice(dot + 1)];
}
