// V8 settings, applied when the app's code (or the embedded database's, for the CLI) is first imported.
//
// Allocation-site pretenuring: V8 allocates the objects of a code site straight in its old space
// once most of them were seen to survive a young collection. During start-up the database
// driver's row objects do survive (the start allocates a great deal while a few queries are
// pending), so their site is marked long-lived for good, and from then on every row of every
// query is born old: garbage that only a full collection frees. A 1 000 000-row export then grew
// the process by ~200 MB (old space 73 → 315 MB); without pretenuring by 24 MB. Rows, pages and
// answers of a request are short-lived, so the young generation is where they belong.
import v8 from 'node:v8';

v8.setFlagsFromString('--no-allocation-site-pretenuring');

// WebAssembly tier-up: V8 compiles a hot wasm function again with its optimising compiler once it
// has run about 1.8 MB of code (its default budget). Starting the embedded database (PGlite, a
// PostgreSQL compiled to wasm) runs enough of it to pass that budget in a great many functions, and
// the recompilation cost more CPU than the start itself: an admin command on an existing DATA_DIR
// took 5.6 s of CPU (3.7 s wall), 3.9 s (2.8 s) with ten times the budget. Functions hot in a
// long run still reach the optimised tier, a little later (a PGlite query loop ran as fast after
// its first second).
v8.setFlagsFromString('--wasm-tiering-budget=18000000');

/**
 * For a process that runs a few statements on the embedded database and exits (an admin command such
 * as `token list`): WebAssembly compiled by its baseline compiler only. The optimising one still
 * compiled functions in the background past the raised budget, and the exit waited for it: 3.3 s of
 * CPU for `token list`, 2.1 s with this (measured on an existing DATA_DIR, three runs each). Before
 * the embedded database is opened; a long run (seed, import) keeps the optimised tier.
 */
export function baselineWasmOnly(): void {
  v8.setFlagsFromString('--liftoff-only');
}
