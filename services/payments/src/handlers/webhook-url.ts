import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { appError } from '@mmp/protocol';

/** Addresses a merchant endpoint must never point the service at (SSRF). */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return blocked.check(address, 'ipv4');
}

const invalidUrl = (message: string) =>
  appError('validation_error', `Invalid field: url.`, [{ field: 'url', message }]);

/**
 * Live endpoints must be https and resolve only to public addresses, so a merchant key can
 * never make the service call into its own network. Test endpoints may use http and any
 * address, so a developer can receive sandbox events on their machine.
 */
export async function checkWebhookUrl(
  url: string,
  options: { livemode: boolean; allowPrivate: boolean },
): Promise<void> {
  const parsed = new URL(url);
  if (parsed.username || parsed.password) throw invalidUrl('must not contain credentials');
  if (!options.livemode) return;
  if (parsed.protocol !== 'https:') throw invalidUrl('must use https in live mode');
  if (options.allowPrivate) return;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      throw invalidUrl('host name does not resolve');
    }
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw invalidUrl('must not resolve to a private, loopback or link-local address');
  }
}
