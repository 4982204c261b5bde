// The one way the project opens an embedded PGlite: with the extensions the migrations create
// (`CREATE EXTENSION pg_trgm` fails on a PGlite that was not given it).
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
// Before any wasm is compiled (the CLI does not import the app).
import '../v8-tuning.js';

/** An embedded database in `dataDir`, or in memory without one; `load`: a dump to start from (dumpDataDir). */
export function newPglite(dataDir?: string, load?: Blob): PGlite {
  return new PGlite({
    ...(dataDir ? { dataDir } : {}),
    ...(load ? { loadDataDir: load } : {}),
    extensions: { pg_trgm },
  });
}
