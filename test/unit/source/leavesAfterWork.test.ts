/**
 * leavesAfter reads a long statement list once, not once per statement in it: asked about every call of a loop body
 * of N blocks, it asks `isExit` about O(N) statements in all. Counted, not timed: twice the blocks may cost at most
 * 2.5 times the questions (reading the rest of the list per call, it was 4 times).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSyntax, ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { leavesAfter, type LeavingMemo } from '../../../src/core/source/statementContext';
import { fsGrammarSource } from '../../../src/node/grammars';

const parsers = new ParserSet(fsGrammarSource());

/** One loop of `n` blocks: a query, an error check, a loop over its rows with an update, a formatted statement. */
function goLoop(n: number): string {
  const block = (i: number) => '\t\trows, err := db.Query("SELECT * FROM items WHERE owner_id = ?", id)\n\t\tif err != nil { return }\n'
    + '\t\tfor rows.Next() {\n\t\t\tdb.Exec("UPDATE items SET views = views + 1 WHERE id = ?", id)\n\t\t}\n'
    + `\t\ts := fmt.Sprintf("SELECT COUNT(*) FROM %s", "t${i}")\n\t\t_ = s\n`;
  return `package main\nfunc h(db *DB, ids []int) {\n\tfor _, id := range ids {\n${Array.from({ length: n }, (_, i) => block(i)).join('')}\t}\n}\n`;
}

/** How many statements leavesAfter asks `isExit` about, asked once per call of the outer loop's body; and what it found. */
async function questions(n: number): Promise<{ asked: number; leaves: number }> {
  const tree = parseSyntax(await parsers.load('go'), goLoop(n));
  const outer = tree.nodes.find((x) => x.type === 'for_statement')!;
  const body = outer.childForFieldName('body')!;
  let asked = 0;
  const isExit = () => { asked++; return false; };
  const memo: LeavingMemo = new Map();
  let leaves = 0;
  for (const x of tree.nodes) {
    if (x.type !== 'call_expression' || x.startIndex < body.startIndex || x.endIndex > body.endIndex) continue;
    if (leavesAfter(x, body, isExit, () => false, memo)) leaves++;
  }
  return { asked, leaves };
}

void test('leavesAfter over every call of a long loop body asks about each statement a bounded number of times', async () => {
  const small = await questions(400);
  const big = await questions(800);
  // `return` sits only inside the `if` of each block, never in the body's own list: no call leaves the loop.
  assert.equal(small.leaves, 0);
  assert.equal(big.leaves, 0);
  assert.ok(small.asked > 0);
  assert.ok(big.asked <= 2.5 * small.asked, `400 blocks: ${small.asked} questions, 800 blocks: ${big.asked}`);
});
