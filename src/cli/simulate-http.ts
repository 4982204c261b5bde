// `admin simulate --url … --token …`: the venue read from, and the events sent to, a running server
// through its REST API, so a simulation runs beside a server that owns the embedded database.
import { type IngestSink, SimulationError, type Venue } from '../modules/ingest/ingest.simulate.js';
import { sleep } from '../shared/sleep.js';

interface Client {
  base: string;
  token: string;
  signal: AbortSignal;
  progress(line: string): void;
}

/** The message of an API error body (`message` or `error`), else the status line. */
async function failure(res: Response, what: string): Promise<SimulationError> {
  let detail = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as { message?: unknown; error?: unknown };
    const text = body.message ?? body.error;
    if (typeof text === 'string') detail = `${res.status} ${text}`;
  } catch {
    // Not JSON: the status line says enough.
  }
  return new SimulationError(`${what}: the server answered ${detail}`);
}

/**
 * One API call; a 429 (the token's budget is the server's RATE_LIMIT_PER_MINUTE) or a 503 (the
 * database busy or away; nothing was written) waits for its Retry-After and tries again, until the
 * signal aborts. Resolves null when aborted while waiting.
 */
async function call(c: Client, method: 'GET' | 'POST', path: string, what: string, body?: unknown) {
  for (;;) {
    let res: Response;
    try {
      res = await fetch(`${c.base}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${c.token}`,
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      throw new SimulationError(
        `${what}: cannot reach ${c.base} (${(err as Error).message}). Is the server running?`,
      );
    }
    if (res.status !== 429 && res.status !== 503) {
      if (!res.ok) throw await failure(res, what);
      return (await res.json()) as unknown;
    }
    const wait = Math.max(1, Number(res.headers.get('retry-after')) || 1);
    c.progress(
      res.status === 429
        ? `rate limited: waiting ${wait} s (the token's budget is the server's RATE_LIMIT_PER_MINUTE)`
        : `the server is busy or its database unavailable (503): waiting ${wait} s`,
    );
    await sleep(wait * 1000, c.signal);
    if (c.signal.aborted) return null;
  }
}

interface HierarchyZone {
  id: string;
}
interface HierarchyLocation {
  id: string;
  buildings?: { floors?: { zones?: HierarchyZone[] }[] }[];
}

/** The venue over HTTP: the first location of the hierarchy that has zones, and known devices. */
export async function venueOverHttp(c: Client, devices: number): Promise<Venue> {
  const hierarchy = (await call(c, 'GET', '/locations/hierarchy', 'reading the locations')) as {
    data: HierarchyLocation[];
  } | null;
  const locations = hierarchy?.data ?? [];
  const zonesOf = (l: HierarchyLocation) =>
    (l.buildings ?? []).flatMap((b) => (b.floors ?? []).flatMap((f) => (f.zones ?? []).map((z) => z.id)));
  const venue = locations.find((l) => zonesOf(l).length > 0);
  if (!venue) throw new SimulationError("The token's tenant has no zones: run `admin seed` first.");
  const perPage = Math.min(100, Math.max(1, Math.ceil(devices / 2)));
  const list = (await call(c, 'GET', `/guest-devices?per_page=${perPage}`, 'reading the guest devices')) as {
    data: { mac: string; guest_id: string | null }[];
  } | null;
  return {
    tenantId: null,
    locationId: venue.id,
    zoneIds: zonesOf(venue),
    known: (list?.data ?? []).map((d) => ({ mac: d.mac, guestId: d.guest_id })),
  };
}

/** Events POSTed to the server's ingest endpoints. */
export function httpSink(c: Client): IngestSink {
  return {
    presence: async (events) => {
      await call(c, 'POST', '/ingest/presence', 'sending presence events', { events });
    },
    sessions: async (events) => {
      await call(c, 'POST', '/ingest/sessions', 'sending session events', { events });
    },
    close: async () => {},
  };
}

export type { Client as SimulateClient };
