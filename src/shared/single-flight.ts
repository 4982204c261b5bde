// Identical reads that arrive while one is running share its answer instead of repeating it. For
// reads too large to cache per request (every active session of a stadium: tens of MB of JSON) and
// polled by many dashboards at once. Nothing outlives the flight: the next request reads afresh.

export class SingleFlight<T> {
  private readonly flights = new Map<string, Promise<T>>();

  /** The running flight's promise for `key`, or a new flight of `run`. A failure is shared too. */
  run(key: string, run: () => Promise<T>): Promise<T> {
    const running = this.flights.get(key);
    if (running) return running;
    const flight = run().finally(() => this.flights.delete(key));
    this.flights.set(key, flight);
    return flight;
  }

  /** How many flights are in the air (tests). */
  get size(): number {
    return this.flights.size;
  }
}
