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
  // IPv6 forms that embed an IPv4 address, any of which may lead to an internal one:
  // IPv4-compatible, NAT64 and 6to4.
  ['::', 96],
  ['64:ff9b::', 96],
  ['2002::', 16],
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

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** True for 127.0.0.0/8 and ::1 (also written IPv4-mapped): what the development switch opens. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && loopback.check(address, family === 6 ? 'ipv6' : 'ipv4');
}
