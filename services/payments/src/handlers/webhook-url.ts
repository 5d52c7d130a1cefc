import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from '@mmp/platform';
import { appError } from '@mmp/protocol';

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
