// V8 settings for a long-running server, applied when the app's code is first imported.
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
