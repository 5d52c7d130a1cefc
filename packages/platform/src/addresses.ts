import { BlockList, isIP } from 'node:net';

/**
 * Where an address given by a merchant (webhook endpoint, logo) must never lead the service
 * (SSRF): private, loopback, link-local, carrier-grade NAT, benchmarking, multicast, reserved.
 */
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

/** True for an address the service must not call on a merchant's behalf, and for a non-address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  // BlockList judges an IPv4-mapped IPv6 address (::ffff:10.0.0.1, ::ffff:a00:1) by the
  // IPv4 rules, so one check per family covers both forms.
  return family === 0 || blocked.check(address, family === 6 ? 'ipv6' : 'ipv4');
}
