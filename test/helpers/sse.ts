// A `presenceChanged` subscriber over Server-Sent Events (real HTTP: the stream must arrive while
// the request is open), for the tests that watch presence fan out.
const SUBSCRIPTION = `subscription Watch($locationId: ID!) {
  presenceChanged(locationId: $locationId) { locationId macAddresses sessions { macAddress zone connected } }
}`;

export interface Subscriber {
  status: number;
  /** The next `data:` payload, or a timeout error. */
  next(timeoutMs: number): Promise<unknown>;
  close(): void;
}

export async function subscribe(
  base: string,
  token: string | undefined,
  locationId: string,
): Promise<Subscriber> {
  const controller = new AbortController();
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query: SUBSCRIPTION, variables: { locationId } }),
    signal: controller.signal,
  });
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const queue: unknown[] = [];
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
        for (const line of event.split('\n')) {
          if (line.startsWith('data:')) queue.push(JSON.parse(line.slice(5).trim() || 'null'));
        }
        end = buffer.indexOf('\n\n');
      }
    }
  };
  const pump = read().catch(() => {});
  return {
    status: res.status,
    async next(timeoutMs) {
      const until = Date.now() + timeoutMs;
      while (queue.length === 0) {
        if (Date.now() > until) throw new Error('no event in time');
        await new Promise((r) => setTimeout(r, 25));
      }
      return queue.shift();
    },
    close() {
      controller.abort();
      void pump;
    },
  };
}
