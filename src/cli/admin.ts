// `npm run --silent admin -- <command>`: the operator interface of decisions "Operator interface".
// With --json a command prints exactly one JSON object on stdout; progress goes to stderr.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { tokenScopeNames } from '../auth/permissions.js';
import { ConfigError, databaseOptions, loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { DatabaseLockedError } from '../db/pglite-lock.js';
import type { apiTokenItem } from '../modules/api-tokens/api-tokens.serializer.js';

// Each command imports what it needs when it runs (a command never loads another's modules, nor the
// server's): `token issue` starts in about half the time it took when every command was imported.
// The database's modules (Prisma's client, the drivers) load once the arguments are checked, so a
// usage error answers at once.

const USAGE = `Usage: npm run --silent admin -- <command> [options]

Commands:
  bootstrap --tenant NAME [--group NAME] [--json]
      Create (or reuse) a tenant group and a tenant with its default location and service
      profile, and its API user (role tenant, guests.manage-global); print a new token for that
      user. Run again for the same tenant, it reuses all of them and only issues another token
      (the earlier ones stay valid; token revoke ends one).
  token issue --user ID_OR_EMAIL [--scope read|ingest|full] [--json]
      Issue another token for an existing user (without --scope: the user's full rights);
      --scope read makes a token that may only read (GET, GraphQL queries), --scope ingest one
      that may only call the ingest endpoints (POST /api/v1/ingest/presence and /sessions) and
      redeem access codes (POST /api/v1/access-codes/redeem).
  token list --tenant TENANT_ID [--json]
      List the API tokens of the tenant's users, newest first: id, name, user, scopes, created,
      last used (a running server writes it at most once a minute), expires, revoked.
  token revoke TOKEN_ID [--json]
      Revoke a token: it answers 401 from its next request (a revoked token stays revoked; its
      first revocation time is kept). An id starting with "-" goes after "--":
      token revoke -- -Ab3xYz.
  seed --tenant TENANT_ID [--guests N] [--seed S] [--json]
      Add demo data to a tenant (see src/cli/seeders.ts); --guests N sets how many guests.
  import guests FILE --tenant TENANT_ID [--mode all_or_nothing|skip_invalid]
                [--upsert-by email|partner_id] [--format csv|ndjson|json] [--json]
      Import guests from a CSV (header row of field names), NDJSON or JSON-array file, checked
      by the rules of POST /api/v1/guests/import (as the tenant's admin, every location). The
      format is --format, else the extension, else the first character. all_or_nothing (default)
      stores nothing when a row is refused; skip_invalid stores the others. --upsert-by updates
      the guest of the same e-mail or partner id. Progress on stderr; each refused row is printed
      with its line; exit 1 when nothing was stored because of refused rows.
  simulate --tenant TENANT_ID [--devices N] [--interval-ms M] [--seed S] [--json]
  simulate --url URL --token TOKEN [--devices N] [--interval-ms M] [--seed S] [--json]
      Drive a live venue through the ingest (devices arriving, moving between zones, connecting,
      leaving) every M ms (default 2000) with N devices (default 200) until Ctrl-C. With --tenant
      it writes to the database (PostgreSQL: beside the server; with REDIS_URL its changes reach
      GraphQL subscribers). With --url and a tenant user's token it drives a running server through
      its REST API (GET hierarchy and devices, POST /api/v1/ingest/…): any database, the embedded
      one included, and the server's subscribers see every change.
  retention run --tenant TENANT_ID [--dry-run] [--json]
      Apply the tenant's retention settings now (GET/PUT /api/v1/settings/retention), as the
      server's sweeper does: anonymise inactive guests, delete old presence records, location logs
      and guest sessions, with a progress bar on stderr; print how many of each went. --dry-run
      counts what would go and changes nothing.

The embedded database (no DATABASE_URL) can only be used while the server is stopped.`;

class UsageError extends Error {}

/** A command that could not do its work, said plainly (exit 1); `details` go into the --json answer. */
class CommandFailed extends Error {
  constructor(
    message: string,
    readonly details: object = {},
  ) {
    super(message);
  }
}

/** Runs `work`, turning the failures `known` recognises into CommandFailed (their own message). */
async function failingPlainly<T>(
  work: () => Promise<T>,
  known: (err: unknown) => object | false,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const details = known(err);
    if (details) throw new CommandFailed((err as Error).message, details);
    throw err;
  }
}

const COMMANDS: readonly string[] = [
  'bootstrap',
  'token issue',
  'token list',
  'token revoke',
  'seed',
  'simulate',
  'import guests',
  'retention run',
];

/** A result's text without --json, when `key: value` lines would not do (a table); never in the JSON. */
const HUMAN = Symbol('human');
type Result = object & { [HUMAN]?: string };

/** `value`, printed as `text` without --json. */
const withText = <T extends object>(value: T, text: string): T & Result => ({ ...value, [HUMAN]: text });

/** `token revoke TOKEN_ID`, `import guests FILE`: operands follow; every other command is its words alone. */
function commandOf(positionals: readonly string[]): { command: string; operands: string[] } {
  if (positionals[0] === 'token' && positionals[1] === 'revoke') {
    return { command: 'token revoke', operands: positionals.slice(2) };
  }
  if (positionals[0] === 'import' && positionals[1] === 'guests') {
    return { command: 'import guests', operands: positionals.slice(2) };
  }
  return { command: positionals.join(' '), operands: [] };
}

/** A date-time of the token table: `2026-11-21 09:05` (UTC), `-` for none. */
const minute = (iso: string | null): string => (iso ? iso.slice(0, 16).replace('T', ' ') : '-');

function tokenTable(items: ReturnType<typeof apiTokenItem>[]): string {
  if (items.length === 0) return 'No tokens.';
  const header = ['ID', 'NAME', 'USER', 'SCOPES', 'CREATED', 'LAST USED', 'EXPIRES', 'REVOKED'];
  const rows = items.map((t) => [
    t.id,
    t.name ?? '-',
    t.user.email,
    t.scopes.join(','),
    minute(t.created_at),
    minute(t.last_used_at),
    minute(t.expires_at),
    minute(t.revoked_at),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const TOKEN_SCOPES: readonly string[] = tokenScopeNames;

const options = {
  tenant: { type: 'string' },
  group: { type: 'string' },
  user: { type: 'string' },
  seed: { type: 'string' },
  guests: { type: 'string' },
  scope: { type: 'string' },
  devices: { type: 'string' },
  'interval-ms': { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  mode: { type: 'string' },
  'upsert-by': { type: 'string' },
  format: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];

function required(values: Values, name: 'tenant' | 'user'): string {
  const v = values[name];
  if (!v) throw new UsageError(`--${name} is required.`);
  return v;
}

/** A tenant or group name as the API takes one: trimmed, not blank, at most 255 characters. */
function nameOption(raw: string, name: 'tenant' | 'group'): string {
  const value = raw.trim();
  if (value === '') throw new UsageError(`--${name} must not be blank.`);
  if ([...value].length > 255) throw new UsageError(`--${name} must be at most 255 characters.`);
  return value;
}

/** An option's value among `choices`, or the usage error naming them. */
function oneOf<T extends string>(
  raw: string | undefined,
  name: string,
  choices: readonly T[],
): T | undefined {
  if (raw === undefined) return undefined;
  const found = choices.find((c) => c === raw);
  if (!found) throw new UsageError(`--${name} must be one of: ${choices.join(', ')}; got "${raw}".`);
  return found;
}

/** `import guests`' options, checked before the database is opened. */
async function importOptions(values: Values) {
  const { IMPORT_MODES, UPSERT_KEYS } = await import('../modules/guests/guests.import.js');
  const { IMPORT_FORMATS } = await import('../modules/guests/guests.import.source.js');
  return {
    mode: oneOf(values.mode, 'mode', IMPORT_MODES) ?? 'all_or_nothing',
    upsertBy: oneOf(values['upsert-by'], 'upsert-by', UPSERT_KEYS) ?? null,
    format: oneOf(values.format, 'format', IMPORT_FORMATS),
  };
}

function positiveInt(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number; got "${raw}".`);
  return Number(raw);
}

/** `simulate --url`: checked before anything runs (the token with it, the tenant not). */
function overHttp(values: Values): boolean {
  if (values.url === undefined) {
    if (values.token !== undefined) throw new UsageError('--token goes with --url.');
    return false;
  }
  if (!values.token)
    throw new UsageError('--url needs --token: a token of a tenant user of the tenant to simulate.');
  if (values.tenant !== undefined) {
    throw new UsageError("--tenant is not used with --url: the token's tenant is simulated.");
  }
  serverUrl(values.url);
  return true;
}

function serverUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--url must be the server's address, like http://127.0.0.1:4000; got "${raw}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--url must be an http:// or https:// address; got "${raw}".`);
  }
  return url.origin;
}

function opened(db: Database | undefined): Database {
  if (!db) throw new Error('no database opened');
  return db;
}

/** Refuses an unknown tenant id as a usage error (exit 2). */
async function requireTenant(database: Database, tenantId: string): Promise<void> {
  const tenant = await database.prisma.tenant.findUnique({ where: { id: tenantId }, select: { id: true } });
  if (!tenant) throw new UsageError(`No tenant with id "${tenantId}".`);
}

async function run(
  command: string,
  operands: readonly string[],
  values: Values,
  db: Database | undefined,
  progress: (s: string) => void,
): Promise<Result> {
  switch (command) {
    case 'bootstrap': {
      const { bootstrapTenant } = await import('../modules/tenants/bootstrap.service.js');
      return bootstrapTenant(opened(db).prisma, {
        tenant: nameOption(required(values, 'tenant'), 'tenant'),
        group: values.group === undefined ? undefined : nameOption(values.group, 'group'),
        events: true,
      });
    }
    case 'token issue': {
      const scope = values.scope;
      if (scope !== undefined && !TOKEN_SCOPES.includes(scope)) {
        throw new UsageError(`--scope must be one of: ${TOKEN_SCOPES.join(', ')}; got "${scope}".`);
      }
      const { issueToken, UnknownUserError } = await import('../modules/tenants/bootstrap.service.js');
      try {
        return await issueToken(opened(db).prisma, required(values, 'user'), scope ? [scope] : []);
      } catch (err) {
        // An unknown user is a wrong operand (exit 2), as an unknown tenant or token id is.
        if (err instanceof UnknownUserError) throw new UsageError(err.message);
        throw err;
      }
    }
    case 'token list': {
      const tenantId = required(values, 'tenant');
      const { tenantTokens } = await import('../modules/api-tokens/api-tokens.service.js');
      const { apiTokenItem } = await import('../modules/api-tokens/api-tokens.serializer.js');
      const rows = await tenantTokens(opened(db).prisma, tenantId);
      if (!rows) throw new UsageError(`No tenant with id "${tenantId}".`);
      const tokens = rows.map(apiTokenItem);
      return withText({ tenant_id: tenantId, tokens }, tokenTable(tokens));
    }
    case 'token revoke': {
      const id = operands[0] ?? '';
      const { revokeToken } = await import('../modules/api-tokens/api-tokens.service.js');
      const { apiTokenItem } = await import('../modules/api-tokens/api-tokens.serializer.js');
      const revoked = await revokeToken(opened(db).prisma, id);
      if (!revoked) throw new UsageError(`No token with id "${id}".`);
      const item = apiTokenItem(revoked.row);
      const what = `token ${item.id} (${item.name ?? 'no name'}, ${item.user.email})`;
      return withText(
        item,
        revoked.wasRevoked
          ? `The ${what} was already revoked on ${minute(item.revoked_at)} UTC; nothing changed.`
          : `Revoked the ${what}: it answers 401 from its next request.`,
      );
    }
    case 'simulate': {
      const devices = positiveInt(values.devices, 'devices', 200);
      const intervalMs = positiveInt(values['interval-ms'], 'interval-ms', 2000);
      if (devices < 1 || intervalMs < 1)
        throw new UsageError('--devices and --interval-ms must be at least 1.');
      const { seededRandom } = await import('../modules/locations/locations.seed.js');
      const { databaseSink, SimulationError, simulateVenue, venueFromDatabase } = await import(
        '../modules/ingest/ingest.simulate.js'
      );
      const { httpSink, venueOverHttp } = await import('./simulate-http.js');
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const options = {
        devices,
        intervalMs,
        rand: seededRandom(positiveInt(values.seed, 'seed', 1)),
        signal: stop.signal,
        progress,
      };
      const simulate = async () => {
        if (values.url !== undefined) {
          const client = {
            base: serverUrl(values.url),
            token: values.token ?? '',
            signal: stop.signal,
            progress,
          };
          const venue = await venueOverHttp(client, devices);
          progress(
            `simulating ${devices} devices at location ${venue.locationId} every ${intervalMs} ms; Ctrl-C stops`,
          );
          return await simulateVenue(venue, httpSink(client), options);
        }
        const database = opened(db);
        const tenantId = required(values, 'tenant');
        await requireTenant(database, tenantId);
        const venue = await venueFromDatabase(database.prisma, tenantId, devices);
        const sink = await databaseSink(database.prisma, loadConfig(), tenantId);
        progress(
          `simulating ${devices} devices at location ${venue.locationId} every ${intervalMs} ms; Ctrl-C stops`,
        );
        return await simulateVenue(venue, sink, options);
      };
      try {
        return await failingPlainly(simulate, (err) => err instanceof SimulationError && {});
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    }
    case 'seed': {
      const { seededRandom } = await import('../modules/locations/locations.seed.js');
      const { seeders } = await import('./seeders.js');
      const database = opened(db);
      const tenantId = required(values, 'tenant');
      await requireTenant(database, tenantId);
      const opts = {
        tenantId,
        rand: seededRandom(positiveInt(values.seed, 'seed', 1)),
        guests: positiveInt(values.guests, 'guests', 200),
        progress,
      };
      const counts: Record<string, number | string> = { tenant_id: tenantId };
      for (const seeder of seeders) {
        progress(`seeding ${seeder.name}…`);
        Object.assign(counts, await seeder.run(database.prisma, opts));
      }
      return counts;
    }
    case 'import guests': {
      const { mode, upsertBy, format } = await importOptions(values);
      const { ImportFailed, importGuestsFile, importProgress } = await import('./import-guests.js');
      const database = opened(db);
      const tenantId = required(values, 'tenant');
      await requireTenant(database, tenantId);
      // Relative to where the command was typed: `npm run` starts it in the package's folder and
      // keeps the caller's in INIT_CWD.
      const file = path.resolve(process.env.INIT_CWD ?? process.cwd(), operands[0] ?? '');
      // Refused rows (or an unreadable file): each named plainly; nothing was stored.
      const { text, ...result } = await failingPlainly(
        () =>
          importGuestsFile(
            database.prisma,
            { file, tenantId, mode, upsertBy, format },
            importProgress(process.stderr),
            loadConfig(),
          ),
        (err) => err instanceof ImportFailed && { errors: err.errors },
      );
      return withText(result, text);
    }
    case 'retention run': {
      const tenantId = required(values, 'tenant');
      const { RetentionBusyError, runRetention } = await import('./retention.js');
      const run = await failingPlainly(
        () =>
          runRetention(opened(db), loadConfig(), {
            tenantId,
            dryRun: values['dry-run'],
            stderr: process.stderr,
          }),
        (err) => err instanceof RetentionBusyError && {},
      );
      if (!run) throw new UsageError(`No tenant with id "${tenantId}".`);
      return withText(run.result, run.text);
    }
    default:
      throw new UsageError(`Unknown command "${command}".`);
  }
}

/**
 * `--tenant -Ab3…` as `--tenant=-Ab3…`: ids and tokens are base64url and one in 64 starts with `-`,
 * which parseArgs would refuse as an ambiguous option. A value that is itself an option name
 * (`--tenant --json`) is left alone, so a forgotten value is still named.
 */
function valuesJoined(args: readonly string[]): string[] {
  const isOption = (a: string): boolean =>
    a === '-h' || (a.startsWith('--') && (a.slice(2).split('=')[0] ?? '') in options);
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : '';
    const takesValue = name in options && options[name as keyof typeof options].type === 'string';
    if (takesValue && next?.startsWith('-') && !isOption(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  // --json as asked, even when the command line does not parse: its one JSON object still comes.
  const json = args.includes('--json');
  /** A failure: `{"error"}` on stdout with --json; the message (and for usage errors, the usage) on stderr. */
  const fail = (message: string, code: number, details: object = {}) => {
    if (json) console.log(JSON.stringify({ error: message, ...details }));
    console.error(`error: ${message}${code === 2 ? `\n\n${USAGE}` : ''}`);
    return code;
  };
  let parsed: { values: Values; positionals: string[] };
  try {
    const read = parseArgs({ args: valuesJoined(args), options, allowPositionals: true, tokens: true });
    // parseArgs keeps the last of an option given twice: `--scope read --scope ingest` would issue
    // an ingest token without a word.
    const seen = new Set<string>();
    for (const token of read.tokens) {
      if (token.kind !== 'option') continue;
      if (seen.has(token.name)) return fail(`--${token.name} is given more than once.`, 2);
      seen.add(token.name);
    }
    parsed = read;
  } catch (err) {
    return fail((err as Error).message, 2);
  }
  const { values, positionals } = parsed;
  const { command, operands } = commandOf(positionals);
  if (values.help) {
    // --json's promise holds here too: one object on stdout.
    console.log(values.json ? JSON.stringify({ usage: USAGE }) : USAGE);
    return 0;
  }
  if (!command) return fail('No command given.', 2);
  // A usage mistake is answered at once: without opening (or waiting for) the database.
  if (!COMMANDS.includes(command)) return fail(`Unknown command "${command}".`, 2);
  if (command === 'token revoke' && operands.length !== 1) {
    const got = operands.length === 0 ? 'none' : `${operands.length}: ${operands.join(' ')}`;
    return fail(`token revoke takes one TOKEN_ID; got ${got}.`, 2);
  }
  if (command === 'import guests' && operands.length !== 1) {
    const got = operands.length === 0 ? 'none' : `${operands.length}: ${operands.join(' ')}`;
    return fail(`import guests takes one FILE; got ${got}.`, 2);
  }
  let db: Database | undefined;
  let live: { close(): Promise<void> } | undefined;
  try {
    // `simulate --url` talks to a running server: the database (maybe its embedded one) is not opened.
    if (command === 'import guests') await importOptions(values);
    if (!(command === 'simulate' && overHttp(values))) {
      const config = loadConfig();
      if (config.redisUrl) {
        // The servers' live readers hear of this command's events at once, as of their own writes.
        const { publishEventsThroughRedis } = await import('./live-events.js');
        live = publishEventsThroughRedis(config.redisUrl);
      }
      // Only bootstrap starts an embedded database: for any other command, a DATA_DIR without one
      // is a mistyped path, said so at once rather than made into an empty database.
      if (
        !config.databaseUrl &&
        command !== 'bootstrap' &&
        !existsSync(path.join(config.dataDir, 'PG_VERSION'))
      ) {
        throw new CommandFailed(
          `DATA_DIR ${config.dataDir}: no database there; \`bootstrap\` starts one (is it the server's DATA_DIR?)`,
        );
      }
      const { openDatabase, openFailure } = await import('../db/database.js');
      // Maintenance commands (seeding) may run long statements: no statement timeout here.
      db = await openDatabase({ ...databaseOptions(config), statementTimeoutMs: 0 }).catch((err: unknown) => {
        if (err instanceof DatabaseLockedError) throw err;
        throw new CommandFailed(openFailure(config, err));
      });
    }
    const result = await run(command, operands, values, db, (s) => console.error(s));
    console.log(values.json ? JSON.stringify(result) : formatHuman(result));
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return fail(err.message, 2);
    if (err instanceof CommandFailed) return fail(err.message, 1, err.details);
    if (err instanceof ConfigError || err instanceof DatabaseLockedError) return fail(err.message, 1);
    // Not one of the failures above: its message; the stack only when LOG_LEVEL=debug asks for it.
    if (process.env.LOG_LEVEL === 'debug') console.error((err as Error).stack);
    return fail(`unexpected failure: ${(err as Error)?.message ?? String(err)}`, 1);
  } finally {
    await db?.close();
    await live?.close();
  }
}

function formatHuman(result: Result): string {
  if (result[HUMAN] !== undefined) return result[HUMAN];
  return Object.entries(result)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join('\n');
}

process.exitCode = await main();
