// GraphQL subscriptions over Server-Sent Events (real HTTP: the stream must arrive while the request
// is open), for the tests that watch presence and the event log fan out.
const SUBSCRIPTION = `subscription Watch($locationId: ID!) {
  presenceChanged(locationId: $locationId) { locationId macAddresses sessions { macAddress zone connected } }
}`;

/** One SSE frame: its `data:` payload (parsed) and its `id:` line, if any. */
export interface Frame {
  id: string | null;
  data: unknown;
}

export interface Subscriber {
  status: number;
  /** The next `data:` payload, or a timeout error. */
  next(timeoutMs: number): Promise<unknown>;
  /** The next frame with its `id:`, or a timeout error. */
  nextFrame(timeoutMs: number): Promise<Frame>;
  /** Whether the server ended the stream within `timeoutMs`. */
  ended(timeoutMs: number): Promise<boolean>;
  close(): void;
}

export function subscribe(base: string, token: string | undefined, locationId: string): Promise<Subscriber> {
  return subscribeTo(base, token, SUBSCRIPTION, { locationId });
}

/**
 * Any subscription: POST by default, GET with the query in the URL (as a browser's EventSource
 * sends it) when `get` is set; `headers` add to the request (`Last-Event-ID`).
 */
export async function subscribeTo(
  base: string,
  token: string | undefined,
  query: string,
  variables: Record<string, unknown>,
  opts: { get?: boolean; headers?: Record<string, string> } = {},
): Promise<Subscriber> {
  const controller = new AbortController();
  const headers = {
    accept: 'text/event-stream',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...opts.headers,
  };
  const res = opts.get
    ? await fetch(`${base}/graphql?${new URLSearchParams({ query, variables: JSON.stringify(variables) })}`, {
        headers,
        signal: controller.signal,
      })
    : await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
        signal: controller.signal,
      });
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const queue: Frame[] = [];
  let arrived: (() => void) | null = null;
  const read = async (): Promise<void> => {
    if (!reader) return;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let data: string | null = null;
        let id: string | null = null;
        for (const line of event.split('\n')) {
          if (line.startsWith('data:')) data = line.slice(5).trim();
          if (line.startsWith('id:')) id = line.slice(3).trim();
        }
        if (data !== null) {
          queue.push({ id, data: JSON.parse(data || 'null') });
          arrived?.();
        }
        end = buffer.indexOf('\n\n');
      }
    }
  };
  const pump = read().catch(() => {});
  const nextFrame = async (timeoutMs: number): Promise<Frame> => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const frame = queue.shift();
      if (frame) return frame;
      const left = until - Date.now();
      if (left <= 0) throw new Error('no event in time');
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        arrived = resolve;
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
      arrived = null;
    }
  };
  let over = false;
  void pump.then(() => {
    over = true;
  });
  return {
    status: res.status,
    nextFrame,
    next: async (timeoutMs) => (await nextFrame(timeoutMs)).data,
    async ended(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([pump, late]);
      clearTimeout(timer);
      return over;
    },
    close() {
      controller.abort();
      void pump;
    },
  };
}
