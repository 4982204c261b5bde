// GraphQL over Server-Sent Events with event ids. Yoga writes each payload of a subscription as an
// `event: next` frame with its `data:` line and no `id:`; a stream of log events (the `events`
// subscription, `presenceChanged` with its position) adds `id: <event id>` to the frame of each
// payload that names one, so an SSE client (a browser's EventSource among them) resends the last as
// `Last-Event-ID` when it reconnects, and the subscription resumes after it.
//
// The payload's resolver names its id (`StreamPosition.sending`); graphql-js executes a stream's
// payloads one at a time, so the result that follows is that payload's. The line goes in through
// Yoga's per-result serializer (`stringify`): the frame reads `data: {…}\nid: 7`, which SSE allows
// (a frame's fields come in any order).
import type { Plugin } from 'graphql-yoga';
import { isAsyncIterable, mapAsyncIterator } from 'graphql-yoga';

/** What a subscription's resolvers know of the SSE stream they write to. */
export interface StreamPosition {
  /** The `Last-Event-ID` the client resent (a reconnection), else null. */
  readonly lastEventId: string | null;
  /** The payload being executed is the event with this id: its frame carries `id: <id>`. */
  sending(id: string): void;
}

interface Slot extends StreamPosition {
  /** The id named since the last result, cleared. */
  take(): string | null;
}

const slots = new WeakMap<Request, Slot>();

/** Only the event id's own characters: nothing a client sends can add a line to the stream. */
const EVENT_ID = /^\d{1,20}$/;

/** The stream position of one GraphQL request (built with its context; `request` is Yoga's). */
export function streamPositionOf(request: Request): StreamPosition {
  const header = request.headers.get('last-event-id');
  let pending: string | null = null;
  const slot: Slot = {
    lastEventId: header === null || header.trim() === '' ? null : header.trim(),
    sending(id) {
      pending = EVENT_ID.test(id) ? id : null;
    },
    take() {
      const id = pending;
      pending = null;
      return id;
    },
  };
  slots.set(request, slot);
  return slot;
}

/** Adds the `id:` lines to the SSE frames of subscriptions whose payloads name their event. */
export function sseEventIds(): Plugin {
  return {
    onExecutionResult({ request, result, setResult }) {
      const slot = slots.get(request);
      if (!slot || !isAsyncIterable(result)) return;
      // Yoga streams a subscription over SSE only; an incremental answer (multipart) keeps its parts.
      const accept = request.headers.get('accept') ?? '';
      if (accept.includes('multipart/mixed') && !accept.includes('text/event-stream')) return;
      setResult(
        mapAsyncIterator(result, (value) => {
          const id = slot.take();
          return id === null
            ? value
            : { ...value, stringify: (r: unknown) => `${JSON.stringify(r)}\nid: ${id}` };
        }),
      );
    },
  };
}
