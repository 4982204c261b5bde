// Server-side request forgery: a webhook URL is the tenant's to choose, so it could name the
// service's own network (a database, a cloud metadata endpoint at 169.254.169.254, an admin port on
// loopback). Its host is resolved and every address it resolves to must be public unicast; the
// request then connects to those checked addresses (no second look-up between the check and the
// connection, which DNS rebinding could answer differently). WEBHOOKS_ALLOW_PRIVATE=1 lifts the
// rule (tests, and networks whose receivers are private on purpose).
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** What a refused address is, in words for the attempt's error. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a carrier-grade NAT',
  private: 'a private',
  uniqueLocal: 'a private (unique local)',
  ipv4Mapped: 'an IPv4-mapped',
  reserved: 'a reserved',
};

/** What kind of address `address` is when it may not be a webhook target (null: public unicast, allowed). */
export function refusedAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  const range = parsed.range();
  // ::/8 is reserved (RFC 4291), IPv4-compatible addresses (`::127.0.0.1`) among them; ipaddr.js
  // names only its loopback, unspecified and IPv4-mapped parts.
  if (range === 'unicast' && parsed.kind() === 'ipv6' && ((parsed as ipaddr.IPv6).parts[0] ?? 0) < 0x100)
    return `${RANGE_WORDS.reserved} address`;
  // Only public unicast passes: every special range (NAT64, 6to4, Teredo, benchmarking, …) is refused.
  if (range === 'unicast') return null;
  return `${RANGE_WORDS[range] ?? `a special-purpose (${range})`} address`;
}

/** The URL's host could not be resolved (or not in time). */
export class TargetUnresolvable extends Error {}

/** The URL's host resolves to an address webhooks may not reach. */
export class TargetRefused extends Error {}

const DNS_TIMEOUT_MS = 5_000;

/** How a host name becomes addresses (the system's resolver; tests give their own). */
export type Resolver = (host: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/** The URL's host name as a resolver takes it (an IPv6 literal without its brackets). */
export function hostOf(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Resolves the host (an IP literal is its own address) and checks every address; throws
 * TargetUnresolvable or TargetRefused. With `allowPrivate` every address passes.
 */
export async function resolveTarget(
  host: string,
  opts: { allowPrivate: boolean; timeoutMs?: number; resolver?: Resolver | undefined },
): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  const family = isIP(host);
  if (family !== 0) {
    addresses = [{ address: host, family }];
  } else {
    let timer: NodeJS.Timeout | undefined;
    try {
      addresses = await Promise.race([
        (opts.resolver ?? systemResolver)(host),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out')), opts.timeoutMs ?? DNS_TIMEOUT_MS);
        }),
      ]);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new TargetUnresolvable(`the host ${host} could not be resolved (${code})`);
    } finally {
      clearTimeout(timer);
    }
    if (addresses.length === 0) throw new TargetUnresolvable(`the host ${host} has no address`);
  }
  if (!opts.allowPrivate) {
    for (const a of addresses) {
      const kind = refusedAddress(a.address);
      if (kind === null) continue;
      throw new TargetRefused(
        host === a.address
          ? `refused: ${host} is ${kind}`
          : `refused: ${host} resolves to ${a.address}, ${kind}`,
      );
    }
  }
  return addresses;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request that answers the addresses already checked, whatever it is asked:
 * the connection goes where the check looked.
 */
export function pinnedLookup(addresses: readonly LookupAddress[]) {
  return (
    _hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ) => {
    const wanted =
      options.family === 4 || options.family === 'IPv4'
        ? 4
        : options.family === 6 || options.family === 'IPv6'
          ? 6
          : 0;
    const usable = wanted === 0 ? addresses : addresses.filter((a) => a.family === wanted);
    const first = usable[0];
    if (!first) {
      const err: NodeJS.ErrnoException = new Error(`no IPv${wanted} address among the checked ones`);
      err.code = 'ENOTFOUND';
      callback(err, '', 0);
      return;
    }
    if (options.all) callback(null, [...usable]);
    else callback(null, first.address, first.family);
  };
}
