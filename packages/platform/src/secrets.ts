import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { updateIfUnchanged } from './store/collections.js';
import type { Collection, Doc } from './store/port.js';

/**
 * Secrets we must use again later (signing secrets, rail webhook secrets) are stored
 * encrypted with AES-256-GCM under a server key from config; secrets we only need to
 * recognise (API keys) are stored as a keyed hash. Neither form can be reversed from
 * the store alone.
 */
export type SecretBox = {
  seal(plain: string): string;
  open(sealed: string): string;
};

/** `serverKey` is any string of at least 32 characters; it is stretched to 32 bytes. */
export function createSecretBox(serverKey: string): SecretBox {
  const key = createHash('sha256').update(serverKey).digest();
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        body.toString('base64url'),
      ].join('.');
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || !body) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

/**
 * Keyed hash for lookups of presented credentials (HMAC-SHA256, hex) under one server key.
 * The key is made a KeyObject once: the gateway hashes every request's credential, and a
 * key given as a string is imported again by each HMAC (a fifth of its cost).
 */
export function keyedHasher(serverKey: string): (value: string) => string {
  const key = createSecretKey(Buffer.from(serverKey, 'utf8'));
  return (value) => createHmac('sha256', key).update(value).digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What a list shows instead of a secret: its prefix and last four characters. */
export function secretHint(secret: string): string {
  const cut = secret.lastIndexOf('_') + 1;
  return `${secret.slice(0, cut)}…${secret.slice(-4)}`;
}

/**
 * Seals a new secret into `doc`'s two secret fields, guarded on the sealed secret read: of
 * two rolls at once, the one whose secret would not be stored gets null.
 */
export function rollSealedSecret<T extends Doc>(
  collection: Collection<T>,
  doc: T,
  fields: { sealed: keyof T & string; hint: keyof T & string },
  roll: { secret: string; box: SecretBox; at: string },
): Promise<T | null> {
  return updateIfUnchanged(collection, doc, [fields.sealed], {
    $set: {
      [fields.sealed]: roll.box.seal(roll.secret),
      [fields.hint]: secretHint(roll.secret),
      updatedAt: roll.at,
    },
  });
}
