/**
 * What a language must provide: the one interface the shared engine reads a language through.
 * Each language is one adapter: the tree-sitter languages share one adapter driven by data tables
 * (lang/treeSitter/), Perl has its own (lang/perl/). Every difference between languages that the
 * engine knows of is a member here; nothing outside lang/ asks which language a file is in
 * (test/unit/source/languageChecks.test.ts holds that line).
 *
 * An adapter has two halves, listed apart so that code which only judges (the editor's host, N+1,
 * profiles) does not carry the readers and the parser runtime: its traits (lang/languages.ts, small
 * tables) and its reader (lang/readers.ts, what parses a file).
 */
import type { FileError, FileFacts, Language, Route } from '../../model';
import type { SyntaxTree } from '../syntaxTree';
import type { ProfileFrameRules } from './profileFrames';
import type { Truthiness } from './truthiness';
import type { GrammarName, ParserSet } from './treeSitter/treeSitter';

export interface ExtractOptions {
  /** Discover the file's routes (default true). */
  routes?: boolean;
}

/** How a call of this language reaches the definition it runs (read by the call resolution of nPlusOne.ts). */
export interface CallRules {
  /** Languages whose definitions reach each other's calls share a family (JavaScript and TypeScript). */
  family: string;
  /** A plain lower-case receiver stands for the caller's own type (Go: `h.b()` inside `func (h *H) a()`). */
  plainReceiverIsSelf: boolean;
  /** A call without a receiver may reach a function defined inside a class or package (Ruby's implicit self, Perl's subs). */
  bareCallReachesMethods: boolean;
  /** A prepared statement runs later through the handle its prepare returned (Perl DBI: `$sth->execute` in the loop). */
  preparedHandleRunsLater: boolean;
}

/** What the engine knows of a language without reading its files. */
export interface LanguageTraits {
  readonly language: Language;
  /** The reader of its files (lang/readers.ts maps each kind to one). */
  readonly reader: ReaderKind;
  /** File name extensions (lower case, without the dot) of this language's source files. */
  readonly extensions: readonly string[];
  /** Grammars to load before this language's files are read (none for a language with its own reader). */
  readonly grammars: readonly GrammarName[];
  /** The grammar that parses the file at `path`, or undefined when the language is read without tree-sitter. */
  grammarFor(path: string): GrammarName | undefined;
  /** How calls reach definitions. */
  readonly calls: CallRules;
  /** What counts as false in a condition (a caller's literal argument settles a branch by it). */
  readonly truthiness: Truthiness;
  /** The line-comment opener, for suggested code. */
  readonly lineComment: string;
  /** How this language's functions appear in CPU profilers' frames. */
  readonly profileFrames: ProfileFrameRules;
}

/** The readers there are: one walker for every tree-sitter grammar, and Perl's own lexer. */
export type ReaderKind = 'treeSitter' | 'perl';

/** How a language's files are read. */
export interface LanguageReader {
  /**
   * Reads one file into the facts every analysis works from: SQL sites, functions with their
   * parameters, calls with their arguments, loops, and (unless `options.routes` is false) routes.
   * Never throws: a failure is a FileError in the facts.
   */
  extract(file: string, text: string, parsers: ParserSet, options: ExtractOptions): FileFacts;
  /** The routes one file defines; `tree` is the file's parse when it was parsed already. May throw (the caller records it). */
  routes(file: string, text: string, parsers: ParserSet, tree?: SyntaxTree, errors?: FileError[]): Route[];
}

/** Everything a language provides. */
export type LanguageAdapter = LanguageTraits & LanguageReader;
