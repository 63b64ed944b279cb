/**
 * What a language must provide: the one interface the shared engine reads a language through.
 * Each language is one adapter (lang/languages.ts lists them): the tree-sitter languages share one
 * adapter driven by data tables (lang/treeSitter/), Perl has its own (lang/perl/). Every difference
 * between languages that the engine knows of is a member here; nothing outside lang/ asks which
 * language a file is in (test/unit/source/languageChecks.test.ts holds that line).
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

export interface LanguageAdapter {
  readonly language: Language;
  /** File name extensions (lower case, without the dot) of this language's source files. */
  readonly extensions: readonly string[];
  /** Grammars to load before this language's files are read (none for a language with its own reader). */
  readonly grammars: readonly GrammarName[];
  /** The grammar that parses the file at `path`, or undefined when the language is read without tree-sitter. */
  grammarFor(path: string): GrammarName | undefined;
  /**
   * Reads one file into the facts every analysis works from: SQL sites, functions with their
   * parameters, calls with their arguments, loops, and (unless `options.routes` is false) routes.
   * Never throws: a failure is a FileError in the facts.
   */
  extract(file: string, text: string, parsers: ParserSet, options: ExtractOptions): FileFacts;
  /** The routes one file defines; `tree` is the file's parse when it was parsed already. May throw (the caller records it). */
  routes(file: string, text: string, parsers: ParserSet, tree?: SyntaxTree, errors?: FileError[]): Route[];
  /** How calls reach definitions. */
  readonly calls: CallRules;
  /** What counts as false in a condition (a caller's literal argument settles a branch by it). */
  readonly truthiness: Truthiness;
  /** The line-comment opener, for suggested code. */
  readonly lineComment: string;
  /** How this language's functions appear in CPU profilers' frames. */
  readonly profileFrames: ProfileFrameRules;
}
