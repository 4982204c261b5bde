// The per-address budgets' key: the client's address as one canonical text. A forwarded address is
// the proxy's text as sent (Fastify's trustProxy passes it through): `6.6.6.8:1001` from a balancer
// that appends the port, `[2001:db8::1]`, `2001:0DB8::1` and `::ffff:8.8.4.4` each counted as a new
// client, and a header holding no address at all (`garbage1`, `garbage2`) too: a budget per request,
// so guessed tokens went unthrottled behind such a proxy (probe S). IPv6 clients are counted by their
// /56, as express-rate-limit does by default: one subscriber is given a whole prefix, and could take
// a new address of it per request.
import ipaddr from 'ipaddr.js';

/** The prefix an IPv6 client is counted by. */
export const IPV6_BUDGET_PREFIX = 56;

const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED_IPV6 = /^\[([^\]]+)\](?::\d{1,5})?$/;

/** The address in `text` (a port or brackets around it dropped), or null when it holds none. */
function addressIn(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const trimmed = text.trim();
  const bare = IPV4_WITH_PORT.exec(trimmed)?.[1] ?? BRACKETED_IPV6.exec(trimmed)?.[1] ?? trimmed;
  // The four-part decimal form only for IPv4 (`010.1.1.1`, `0x7f.1` and `1` are no address a proxy writes).
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (ipaddr.IPv6.isValid(bare)) return ipaddr.process(bare);
  return null;
}

/**
 * The budget key of a caller at `ip` (Fastify's `request.ip`); `socket` (the connection's own
 * address) stands in when `ip` holds no address: callers behind a proxy that forwards none share
 * the proxy's budget.
 */
export function clientBudgetKey(ip: string, socket: string | undefined): string {
  const address = addressIn(ip) ?? (socket === undefined ? null : addressIn(socket));
  if (address === null) return 'ip:unknown';
  if (address.kind() === 'ipv4') return `ip:${address.toString()}`;
  const parts = [...(address as ipaddr.IPv6).parts];
  const keep = IPV6_BUDGET_PREFIX;
  for (let i = 0; i < 8; i++) {
    const bits = Math.max(0, Math.min(16, keep - i * 16));
    parts[i] = (parts[i] ?? 0) & (bits === 0 ? 0 : (0xffff << (16 - bits)) & 0xffff);
  }
  return `ip:${new ipaddr.IPv6(parts).toString()}/${keep}`;
}
