// `npm run --silent admin -- <command>`: the operator interface of decisions "Operator interface".
// With --json a command prints exactly one JSON object on stdout; progress goes to stderr.
import { statSync } from 'node:fs';
import path from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { tokenScopeNames } from '../auth/permissions.js';
import { ConfigError, databaseOptions, loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { DatabaseLockedError } from '../db/pglite-lock.js';
import { plainReason } from '../db/plain-reason.js';
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
      (the earlier ones stay valid; token revoke ends one). A deactivated tenant is refused
      (exit 1, nothing issued: its users' tokens answer 401); tenant activate brings it back.
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
  tenant activate TENANT_ID [--user-status 0|1|2] [--json]
      Reactivate a deactivated tenant (PUT /api/v1/tenants/:id/activate): its active users'
      tokens work again from their next request. Without --user-status its users' statuses stay
      as they are; with it, every user of the tenant but support users takes that status
      (0 Passive, 1 Active, 2 Banned), the tenant active or not: --user-status 1 brings back
      users a deactivation with user_status made passive. An active tenant without --user-status
      stays as it is. An id starting with "-" goes after "--".
  seed --tenant TENANT_ID [--guests N] [--seed S] [--json]
      Add demo data to a tenant (see src/cli/seeders.ts); --guests N sets how many guests (1 to
      10000, default 200).
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
      leaving) every M ms (default 2000, at most 3600000) with N devices (default 200, at most
      100000) until Ctrl-C. With --tenant
      it writes to the database (PostgreSQL: beside the server; with REDIS_URL its changes reach
      GraphQL subscribers). With --url and a tenant user's token it drives a running server through
      its REST API (GET hierarchy and devices, POST /api/v1/ingest/…): any database, the embedded
      one included, and the server's subscribers see every change.
  retention run --tenant TENANT_ID [--dry-run] [--json]
      Apply the tenant's retention settings now (GET/PUT /api/v1/settings/retention), as the
      server's sweeper does: anonymise inactive guests, delete old presence records, location logs
      and guest sessions, with a progress bar on stderr; print how many of each went. --dry-run
      counts what would go and changes nothing.

Options of another command are refused. Ctrl-C (SIGINT) or SIGTERM stops seed and import guests
with nothing stored, and retention run after its current batch, saying so (exit 130, 143); a
second one stops at once.

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

/** A result's text without --json, when `key: value` lines would not do (a table); never in the JSON. */
const HUMAN = Symbol('human');
type Result = object & { [HUMAN]?: string };

/** `value`, printed as `text` without --json. */
const withText = <T extends object>(value: T, text: string): T & Result => ({ ...value, [HUMAN]: text });

/** The commands that take one operand after their words, and what it is. */
const OPERAND_OF: Readonly<Record<string, string>> = {
  'token revoke': 'TOKEN_ID',
  'tenant activate': 'TENANT_ID',
  'import guests': 'FILE',
};

/**
 * The command its first words name (two, `token list`, or one, `seed`), and the operands after it
 * (one for the commands of OPERAND_OF, none for the others: `token list -- x` has one too many, not
 * an unknown command "token list x"; probe O). Words that name no command are an unknown command.
 */
function commandOf(positionals: readonly string[]): { command: string; operands: string[] } {
  for (const n of [2, 1]) {
    const words = positionals.slice(0, n).join(' ');
    if (positionals.length >= n && Object.hasOwn(COMMAND_OPTIONS, words))
      return { command: words, operands: positionals.slice(n) };
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
  'user-status': { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];
type OptionName = keyof typeof options;

/**
 * The commands and the options each takes besides --json and --help (which every command takes): an
 * option of another command is a usage error, never silently ignored (`import guests --dry-run`
 * would otherwise import for real).
 */
const COMMAND_OPTIONS: Readonly<Record<string, readonly OptionName[]>> = {
  bootstrap: ['tenant', 'group'],
  'token issue': ['user', 'scope'],
  'token list': ['tenant'],
  'token revoke': [],
  'tenant activate': ['user-status'],
  seed: ['tenant', 'guests', 'seed'],
  simulate: ['tenant', 'url', 'token', 'devices', 'interval-ms', 'seed'],
  'import guests': ['tenant', 'mode', 'upsert-by', 'format'],
  'retention run': ['tenant', 'dry-run'],
};

/** The usage error for an option `command` does not take; none when it takes it. */
function foreignOption(command: string, name: string): string | undefined {
  const takes = COMMAND_OPTIONS[command] ?? [];
  if (name === 'json' || name === 'help' || takes.some((o) => o === name)) return undefined;
  const its = [...takes, 'json'].map((o) => `--${o}`).join(', ');
  return `--${name} does not apply to "${command}" (it takes ${its}).`;
}

/** The exit code of a command a signal stopped: 128 + the signal's number, as a shell reports it. */
const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
type StopSignal = keyof typeof SIGNAL_EXIT_CODES;

/**
 * The commands that may run long: they stop cleanly on Ctrl-C (SIGINT) or SIGTERM, and keep the
 * embedded database's optimised code. The others run a few statements and end as Node ends them.
 */
const LONG_RUNNING: readonly string[] = ['simulate', 'seed', 'import guests', 'retention run'];

/** A command stopped by SIGINT or SIGTERM (exit 130 or 143); the message says what it left. */
class Interrupted extends Error {
  constructor(
    readonly by: StopSignal,
    message: string,
    readonly details: object = {},
  ) {
    super(`Interrupted by ${by}: ${message}`);
  }
}

/**
 * Ctrl-C (SIGINT) or SIGTERM while a stoppable command runs. The first asks it to stop where it
 * safely can: `signal` aborts (simulate ends its run; retention run ends after the current batch),
 * and `check` throws Interrupted (seed and import guests, whose transaction then rolls back). A
 * second signal ends the process at once (`force`).
 */
interface Interruption {
  readonly signal: AbortSignal;
  /** The signal received, if one was. */
  by(): StopSignal | undefined;
  /** Throws Interrupted saying `left` (what the command leaves) once a signal came. */
  check(left: string): void;
  /** What a command that commits as it goes has committed so far (said by a second signal). */
  committed?: () => { said: string; details: object } | undefined;
  dispose(): void;
}

function interruption(listen: boolean, force: (by: StopSignal) => void): Interruption {
  const stop = new AbortController();
  let by: StopSignal | undefined;
  const names = listen ? (Object.keys(SIGNAL_EXIT_CODES) as StopSignal[]) : [];
  const handlers = names.map((name) => {
    const handler = (): void => {
      if (by) {
        force(name);
        return;
      }
      by = name;
      stop.abort();
    };
    process.on(name, handler);
    return { name, handler };
  });
  return {
    signal: stop.signal,
    by: () => by,
    check(left) {
      if (by) throw new Interrupted(by, left);
    },
    dispose() {
      for (const { name, handler } of handlers) process.off(name, handler);
    },
  };
}

/** What an interrupted seed or import leaves: their writes are one transaction. */
const NOTHING_SEEDED = 'nothing was stored (the seed writes all or nothing).';
const NOTHING_IMPORTED = 'nothing was stored (the import writes all or nothing).';

function required(values: Values, name: 'tenant' | 'user'): string {
  const v = values[name];
  if (v === undefined) throw new UsageError(`--${name} is required.`);
  // Given empty is given blank, as `--tenant "  "` is (it was called missing; probe F).
  if (v.trim() === '') throw new UsageError(`--${name} must not be blank.`);
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

function nonNegativeInt(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number, 0 or more; got "${raw}".`);
  return Number(raw);
}

/** A whole number from 1 to `max`: `--devices must be between 1 and 100000; got "0".` */
function boundedInt(raw: string | undefined, name: string, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= max)) throw new UsageError(`--${name} must be between 1 and ${max}; got "${raw}".`);
  return n;
}

/** The users' statuses (`--user-status`), by number, as `user_status` takes them. */
const USER_STATUSES: Readonly<Record<string, string>> = { '0': 'Passive', '1': 'Active', '2': 'Banned' };

function userStatusOption(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!Object.hasOwn(USER_STATUSES, raw)) {
    throw new UsageError(`--user-status must be 0 (Passive), 1 (Active) or 2 (Banned); got "${raw}".`);
  }
  return Number(raw);
}

/** `simulate --devices`: each is held in memory and reported every tick. */
const MAX_DEVICES = 100_000;
/** `seed --guests`: demo data, written in one transaction held in memory until it commits. */
const MAX_SEED_GUESTS = 10_000;
/** `simulate --interval-ms`: one hour (a longer wait is past what a timer holds: it fired at once). */
const MAX_INTERVAL_MS = 3_600_000;

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

/** Refuses an unknown tenant id as a usage error (exit 2). */
async function requireTenant(database: Database, tenantId: string): Promise<void> {
  const tenant = await database.prisma.tenant.findUnique({ where: { id: tenantId }, select: { id: true } });
  if (!tenant) throw new UsageError(`No tenant with id "${tenantId}".`);
}

async function run(
  command: string,
  operands: readonly string[],
  values: Values,
  /** Opens the database: each command calls it once its options are checked. */
  open: () => Promise<Database>,
  progress: (s: string) => void,
  stopping: Interruption,
): Promise<Result> {
  switch (command) {
    case 'bootstrap': {
      const { bootstrapTenant, TenantDeactivatedError } = await import(
        '../modules/tenants/bootstrap.service.js'
      );
      const tenant = nameOption(required(values, 'tenant'), 'tenant');
      const group = values.group === undefined ? undefined : nameOption(values.group, 'group');
      // A deactivated tenant: a token it cannot use is never printed (exit 1, nothing issued).
      return await failingPlainly(
        async () => bootstrapTenant((await open()).prisma, { tenant, group, events: true }),
        (err) => err instanceof TenantDeactivatedError && {},
      );
    }
    case 'token issue': {
      const scope = values.scope;
      if (scope !== undefined && !TOKEN_SCOPES.includes(scope)) {
        throw new UsageError(`--scope must be one of: ${TOKEN_SCOPES.join(', ')}; got "${scope}".`);
      }
      const user = required(values, 'user');
      const { issueToken, UnknownUserError } = await import('../modules/tenants/bootstrap.service.js');
      try {
        return await issueToken((await open()).prisma, user, scope ? [scope] : []);
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
      const rows = await tenantTokens((await open()).prisma, tenantId);
      if (!rows) throw new UsageError(`No tenant with id "${tenantId}".`);
      const tokens = rows.map(apiTokenItem);
      return withText({ tenant_id: tenantId, tokens }, tokenTable(tokens));
    }
    case 'token revoke': {
      const id = operands[0] ?? '';
      const { revokeToken } = await import('../modules/api-tokens/api-tokens.service.js');
      const { apiTokenItem } = await import('../modules/api-tokens/api-tokens.serializer.js');
      const revoked = await revokeToken((await open()).prisma, id);
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
    case 'tenant activate': {
      const id = operands[0] ?? '';
      const userStatus = userStatusOption(values['user-status']);
      const { prisma } = await open();
      const { setTenantTrashed } = await import('../modules/tenants/tenants.service.js');
      const { tenantDetail } = await import('../modules/tenants/tenants.serializer.js');
      const { systemActor } = await import('../events/outbox.js');
      const found = await prisma.tenant.findUnique({ where: { id } });
      if (!found) throw new UsageError(`No tenant with id "${id}".`);
      const what = `tenant "${found.name}" (${found.id})`;
      if (!found.isTrashed && userStatus === undefined) {
        return withText(tenantDetail(found), `The ${what} is already active; nothing changed.`);
      }
      // The users whose status changes (support users never do), counted for the message.
      const changing =
        userStatus === undefined
          ? 0
          : await prisma.user.count({
              where: { tenantId: found.id, role: { not: 'support' }, status: { not: userStatus } },
            });
      // The API's activation (its events and audit entries) by the service itself, in the tenant's
      // log; without --user-status the users' statuses stay, as an operator may have set them on purpose.
      const source = { prisma, tenantId: found.id, actor: systemActor };
      const activated = await setTenantTrashed(source, found.id, false, userStatus);
      if (!activated) throw new UsageError(`No tenant with id "${id}".`);
      const users =
        userStatus === undefined
          ? ''
          : `; ${changing} ${changing === 1 ? 'user' : 'users'} (support users excepted) set to ${USER_STATUSES[String(userStatus)]}`;
      return withText(
        tenantDetail(activated),
        found.isTrashed
          ? `Activated the ${what}${users}: its active users' tokens work again from their next request.`
          : `The ${what} is already active${users}.`,
      );
    }
    case 'simulate': {
      // Which simulation first (over HTTP the token names the tenant, on the database --tenant does),
      // then its numbers: the messages' order of old (probe X).
      const http = overHttp(values);
      const devices = boundedInt(values.devices, 'devices', 200, MAX_DEVICES);
      const intervalMs = boundedInt(values['interval-ms'], 'interval-ms', 2000, MAX_INTERVAL_MS);
      const rand = nonNegativeInt(values.seed, 'seed', 1);
      const tenantId = http ? '' : required(values, 'tenant');
      const { seededRandom } = await import('../modules/locations/locations.seed.js');
      const { databaseSink, SimulationError, simulateVenue, venueFromDatabase } = await import(
        '../modules/ingest/ingest.simulate.js'
      );
      const { httpSink, venueOverHttp } = await import('./simulate-http.js');
      // Ctrl-C is how a simulation ends: it stops after the current tick and prints its summary.
      const options = {
        devices,
        intervalMs,
        rand: seededRandom(rand),
        signal: stopping.signal,
        progress,
      };
      const simulate = async () => {
        if (values.url !== undefined) {
          const client = {
            base: serverUrl(values.url),
            token: values.token ?? '',
            signal: stopping.signal,
            progress,
          };
          const venue = await venueOverHttp(client, devices);
          progress(
            `simulating ${devices} devices at location ${venue.locationId} every ${intervalMs} ms; Ctrl-C stops`,
          );
          return await simulateVenue(venue, httpSink(client), options);
        }
        const database = await open();
        await requireTenant(database, tenantId);
        const venue = await venueFromDatabase(database.prisma, tenantId, devices);
        const sink = await databaseSink(database.prisma, loadConfig(), tenantId);
        progress(
          `simulating ${devices} devices at location ${venue.locationId} every ${intervalMs} ms; Ctrl-C stops`,
        );
        return await simulateVenue(venue, sink, options);
      };
      return await failingPlainly(simulate, (err) => err instanceof SimulationError && {});
    }
    case 'seed': {
      const { seededRandom } = await import('../modules/locations/locations.seed.js');
      const { newSeedRun, seedTurn, seeders } = await import('./seeders.js');
      const tenantId = required(values, 'tenant');
      const guests = boundedInt(values.guests, 'guests', 200, MAX_SEED_GUESTS);
      const seed = nonNegativeInt(values.seed, 'seed', 1);
      const database = await open();
      await requireTenant(database, tenantId);
      const opts = {
        tenantId,
        rand: seededRandom(seed),
        guests,
        // The seeders report as they go: a Ctrl-C stops the seed at the next report.
        progress: (s: string) => {
          stopping.check(NOTHING_SEEDED);
          progress(s);
        },
        waiting: () => stopping.check(NOTHING_SEEDED),
      };
      const counts: Record<string, number | string> = { tenant_id: tenantId };
      // One transaction: a seed that fails or is interrupted leaves nothing half-written.
      await database.prisma.$transaction(
        async (tx) => {
          await seedTurn(tx, opts);
          const made = newSeedRun();
          for (const seeder of seeders) {
            // A turn of the event loop, so a signal is heard: PGlite answers without one.
            await setImmediate();
            opts.progress(`seeding ${seeder.name}…`);
            Object.assign(counts, await seeder.run(tx, opts, made));
          }
          await setImmediate();
          stopping.check(NOTHING_SEEDED);
        },
        // About 3 s for 200 guests: a generous bound, each statement without a timeout.
        { maxWait: 30_000, timeout: 600_000 + guests * 200 },
      );
      return counts;
    }
    case 'import guests': {
      const { mode, upsertBy, format } = await importOptions(values);
      const tenantId = required(values, 'tenant');
      const { ImportFailed, importGuestsFile, importProgress, readGuestFile } = await import(
        './import-guests.js'
      );
      const config = loadConfig();
      // Relative to where the command was typed: `npm run` starts it in the package's folder and
      // keeps the caller's in INIT_CWD.
      const file = path.resolve(process.env.INIT_CWD ?? process.cwd(), operands[0] ?? '');
      const cmd = { file, tenantId, mode, upsertBy, format };
      // Refused rows (or an unreadable file): each named plainly; nothing was stored.
      const plainly = <T>(f: () => Promise<T>) =>
        failingPlainly(f, (err) => err instanceof ImportFailed && { errors: err.errors });
      // The file first: one that cannot be read, or is no guest file, is said without the database.
      const read = await plainly(() => readGuestFile(cmd, config));
      // A Ctrl-C while the file was read stops here, before the database is opened (probe X).
      await setImmediate();
      stopping.check(NOTHING_IMPORTED);
      const database = await open();
      await requireTenant(database, tenantId);
      const bars = importProgress(process.stderr);
      const { text, ...result } = await plainly(() =>
        importGuestsFile(
          database.prisma,
          cmd,
          read,
          // Reported between chunks of rows, checked or stored in its transaction: a Ctrl-C stops
          // the import there, and the transaction rolls back.
          (p) => {
            stopping.check(NOTHING_IMPORTED);
            bars(p);
          },
          config,
        ),
      );
      return withText(result, text);
    }
    case 'retention run': {
      const tenantId = required(values, 'tenant');
      const { RetentionBusyError, runRetention } = await import('./retention.js');
      const run = await failingPlainly(
        async () =>
          runRetention(await open(), loadConfig(), {
            tenantId,
            dryRun: values['dry-run'],
            stderr: process.stderr,
            signal: stopping.signal,
            onRemoved: ({ result, said }) => {
              stopping.committed = () => ({ said, details: result });
            },
          }),
        (err) => err instanceof RetentionBusyError && {},
      );
      if (!run) throw new UsageError(`No tenant with id "${tenantId}".`);
      const by = stopping.by();
      if (by && run.stopped !== undefined) {
        // As the server's sweeper stops: after the current batch, with what went so far.
        throw new Interrupted(by, run.stopped, run.result);
      }
      stopping.check('nothing was changed.');
      return withText(run.result, run.text);
    }
    default:
      throw new UsageError(`Unknown command "${command}".`);
  }
}

/** The arguments before `--`: after it, every argument is an operand (`token revoke -- -Ab3…`). */
function beforeOperands(args: readonly string[]): readonly string[] {
  const end = args.indexOf('--');
  return end < 0 ? args : args.slice(0, end);
}

/**
 * The arguments as parseArgs is given them. A value starting with `-` is still a value: `--tenant
 * -Ab3…` goes as `--tenant=-Ab3…` (ids and tokens are base64url, one in 64 starts with `-`, which
 * parseArgs would refuse as ambiguous). A missing value (`--tenant` last, or followed by another of
 * the options or by `--`) is said plainly: `--tenant needs a value.`
 */
function valuesJoined(args: readonly string[]): string[] {
  const known = (name: string): name is OptionName => Object.hasOwn(options, name);
  const isOption = (a: string): boolean =>
    a === '-h' || (a.startsWith('--') && known(a.slice(2).split('=')[0] ?? ''));
  const flags = beforeOperands(args);
  const out: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    const arg = flags[i] as string;
    const [name = '', value] = arg.startsWith('--') ? arg.slice(2).split(/=(.*)/s) : [''];
    if (!known(name) || options[name].type !== 'string') {
      out.push(arg);
      continue;
    }
    if (value !== undefined) {
      if (value === '') throw new UsageError(`--${name} needs a value.`);
      out.push(arg);
      continue;
    }
    const next = flags[i + 1];
    if (next === undefined || isOption(next)) throw new UsageError(`--${name} needs a value.`);
    out.push(`${arg}=${next}`);
    i++;
  }
  return [...out, ...args.slice(flags.length)];
}

/** Set by an unexpected failure: the process exits without closing the database (see main). */
let abandoned = false;

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  // --json as asked, even when the command line does not parse: its one JSON object still comes.
  // After `--` it is an operand like any other.
  const json = beforeOperands(args).includes('--json');
  /** A failure: `{"error"}` on stdout with --json; the message (and for usage errors, the usage) on stderr. */
  const fail = (message: string, code: number, details: object = {}) => {
    if (json) console.log(JSON.stringify({ error: message, ...details }));
    // An interrupted progress bar on a terminal ends its line first.
    const lead = code > 128 && process.stderr.isTTY ? '\n' : '';
    console.error(`${lead}error: ${message}${code === 2 ? `\n\n${USAGE}` : ''}`);
    return code;
  };
  let parsed: { values: Values; positionals: string[] };
  const given = new Set<string>();
  try {
    const read = parseArgs({ args: valuesJoined(args), options, allowPositionals: true, tokens: true });
    // parseArgs keeps the last of an option given twice: `--scope read --scope ingest` would issue
    // an ingest token without a word.
    for (const token of read.tokens) {
      if (token.kind !== 'option') continue;
      if (given.has(token.name)) return fail(`--${token.name} is given more than once.`, 2);
      given.add(token.name);
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
  if (!Object.hasOwn(COMMAND_OPTIONS, command)) return fail(`Unknown command "${command}".`, 2);
  for (const name of given) {
    const foreign = foreignOption(command, name);
    if (foreign) return fail(foreign, 2);
  }
  const operand = OPERAND_OF[command];
  const got = operands.length === 0 ? 'none' : `${operands.length}: ${operands.join(' ')}`;
  if (operand !== undefined && operands.length !== 1)
    return fail(`${command} takes one ${operand}; got ${got}.`, 2);
  if (operand === undefined && operands.length > 0)
    return fail(`${command} takes no operand; got ${got}.`, 2);
  let db: Database | undefined;
  let live: { close(): Promise<void> } | undefined;
  /**
   * The database, opened when the command asks for it: after its options are checked, so a usage
   * mistake is answered at once (it waited seconds for the embedded database to open, or was "in
   * use" while the server held it). `simulate --url` talks to a running server and never asks.
   */
  const open = async (): Promise<Database> => {
    if (db) return db;
    const config = loadConfig();
    if (config.redisUrl) {
      // The servers' live readers hear of this command's events at once, as of their own writes.
      const { publishEventsThroughRedis } = await import('./live-events.js');
      live = publishEventsThroughRedis(config.redisUrl);
    }
    // Only bootstrap starts an embedded database: for any other command, a DATA_DIR without one
    // is a mistyped path, said so at once rather than made into an empty database.
    if (!config.databaseUrl && command !== 'bootstrap' && noDatabaseIn(config.dataDir)) {
      throw new CommandFailed(
        `DATA_DIR ${config.dataDir}: no database there; \`bootstrap\` starts one (is it the server's DATA_DIR?)`,
      );
    }
    if (!config.databaseUrl && !LONG_RUNNING.includes(command))
      (await import('../v8-tuning.js')).baselineWasmOnly();
    const { openDatabase, openFailure } = await import('../db/database.js');
    // Maintenance commands (seeding) may run long statements: no statement timeout here.
    db = await openDatabase({ ...databaseOptions(config), statementTimeoutMs: 0 }).catch((err: unknown) => {
      if (err instanceof DatabaseLockedError) throw err;
      throw new CommandFailed(openFailure(config, err));
    });
    return db;
  };
  // From here on a stoppable command hears Ctrl-C: a first stops it cleanly, a second at once.
  const stopping = interruption(LONG_RUNNING.includes(command), (by) => {
    // retention run commits batch by batch: what the batches before this one removed stays removed.
    const before = stopping.committed?.();
    const code = before
      ? fail(
          `Interrupted again by ${by}: stopped at once, the batch under way rolled back; before it: ${before.said}; the rest goes at the next run.`,
          SIGNAL_EXIT_CODES[by],
          before.details,
        )
      : fail(
          `Interrupted again by ${by}: stopped at once (what its open transaction wrote is rolled back).`,
          SIGNAL_EXIT_CODES[by],
        );
    process.exit(code);
  });
  try {
    const result = await run(command, operands, values, open, (s) => console.error(s), stopping);
    try {
      await writeStdout(values.json ? JSON.stringify(result) : formatHuman(result));
    } catch (err) {
      // Done, but not said: a token issued this way was never shown (probe F: exit 0 on /dev/full).
      return fail(
        `${command} ran, but its result could not be written to stdout (${plainReason(err)}): a token it issued is not shown again; revoke it (token revoke) and issue another.`,
        1,
      );
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return fail(err.message, 2);
    if (err instanceof Interrupted) return fail(err.message, SIGNAL_EXIT_CODES[err.by], err.details);
    if (err instanceof CommandFailed) return fail(err.message, 1, err.details);
    if (err instanceof ConfigError || err instanceof DatabaseLockedError) return fail(err.message, 1);
    // Not one of the failures above: its reason; the stack only when LOG_LEVEL=debug asks for it.
    if (process.env.LOG_LEVEL === 'debug') console.error((err as Error).stack);
    abandoned = true;
    return fail(`unexpected failure: ${plainReason(err)}`, 1);
  } finally {
    // After an unexpected failure the database is left as a killed process leaves it (the next open
    // of an embedded one recovers from its log): a clean close of PGlite writes a shutdown
    // checkpoint, even after a write of its log failed (probe P: a full disk mid-seed, then no start
    // could open the folder). The process then exits at once.
    if (!abandoned) await db?.close();
    await live?.close();
    stopping.dispose();
  }
}

/** Writes a line to stdout, failing when stdout cannot take it (a full disk, a closed pipe). */
function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // The stream also emits the error, after this callback: heard here, not as an uncaught crash.
    if (process.stdout.listenerCount('error') === 0) process.stdout.on('error', () => {});
    process.stdout.write(`${text}\n`, (err) => (err ? reject(err) : resolve()));
  });
}

function formatHuman(result: Result): string {
  if (result[HUMAN] !== undefined) return result[HUMAN];
  return Object.entries(result)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join('\n');
}

// A failure nothing awaited (PGlite's rollback after a write it could not make): one plain line, as
// for any unexpected failure, and out without closing the database.
process.on('unhandledRejection', (err) => {
  if (process.env.LOG_LEVEL === 'debug') console.error((err as Error)?.stack);
  if (!abandoned) console.error(`error: unexpected failure: ${plainReason(err)}`);
  process.exit(1);
});
process.exitCode = await main();
if (abandoned) process.exit(process.exitCode);

/**
 * Whether DATA_DIR holds no database: its marker file is absent. A folder this process may not read,
 * or a file where the folder goes, is not that (probe Z4): opening it says what it is.
 */
function noDatabaseIn(dataDir: string): boolean {
  try {
    statSync(path.join(dataDir, 'PG_VERSION'));
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
