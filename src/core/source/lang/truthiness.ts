/**
 * What each language counts as false in a condition (`if flag`, `unless flag`, `if not flag`), read by the caller
 * context (src/core/analysis/callContext.ts) when a caller passes a literal: Ruby holds only `nil` and `false` false
 * (`0` and `""` are true); Python and JavaScript hold `0` and `""` false but the string `"0"` true; PHP and Perl hold
 * the string `"0"` false as well; an empty list is false in Python and PHP, an object (true) in JavaScript and Ruby,
 * and a reference (true) in Perl. Go and Rust take only booleans in a condition: a number or a string settles nothing.
 */
import type { Language } from '../../model';

export interface Truthiness {
  /** Numbers in a condition: zero is false and every other number true (`'zero'`), all are true (`'all'`), or none is a condition. */
  numbers: 'zero' | 'all' | 'none';
  /** Strings in a condition: the texts that are false (every other string true), or undefined when a string is no condition. */
  falseStrings?: readonly string[];
  /** An empty list or map literal in a condition (`[]`, `{}`, `array()`): false, true, or no condition. */
  empty?: boolean;
}

const RUBY: Truthiness = { numbers: 'all', falseStrings: [], empty: true };
const PYTHON: Truthiness = { numbers: 'zero', falseStrings: [''], empty: false };
const JAVASCRIPT: Truthiness = { numbers: 'zero', falseStrings: [''], empty: true };
const PHP: Truthiness = { numbers: 'zero', falseStrings: ['', '0'], empty: false };
const PERL: Truthiness = { numbers: 'zero', falseStrings: ['', '0'], empty: true };
const BOOLEANS_ONLY: Truthiness = { numbers: 'none' };

export const TRUTHINESS: Readonly<Record<Language, Truthiness>> = {
  go: BOOLEANS_ONLY, rust: BOOLEANS_ONLY, ruby: RUBY, python: PYTHON, php: PHP, javascript: JAVASCRIPT, typescript: JAVASCRIPT, perl: PERL,
};
