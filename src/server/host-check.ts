/**
 * The Host check of a loopback server (docs/spec.md §13.1a): a page on any web site can make the
 * browser of the person who runs `serve` send requests to 127.0.0.1 — by rebinding its own DNS name to
 * that address — and read the answers, because to the browser they come from the page's own origin.
 * What such a request cannot hide is the name it was sent to: its `Host` header carries the page's
 * name, never a loopback one. So a server bound to a loopback address answers only a `Host` that is a
 * loopback name or address (`localhost`, `127.0.0.0/8`, `[::1]`, with or without a port) or a name the
 * configuration lists in `http.allowedHosts`.
 */
import { isLoopbackHost } from './settings.ts';

/** The name of a Host header value: lower-cased, without the port and without a trailing dot. */
export function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end === -1 ? value : value.slice(0, end + 1);
  }
  const colon = value.indexOf(':');
  const name = colon === -1 ? value : value.slice(0, colon);
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

export class HostCheck {
  private readonly allowed: ReadonlySet<string>;

  constructor(allowedHosts: readonly string[]) {
    this.allowed = new Set(allowedHosts.map(hostName));
  }

  /** Whether a request with this Host header (undefined: none) is answered. */
  admits(header: string | undefined): boolean {
    if (header === undefined || header === '') return false;
    const name = hostName(header);
    return isLoopbackHost(name) || this.allowed.has(name);
  }
}
