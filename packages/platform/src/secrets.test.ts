import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSecretBox, keyedHasher, hashesEqual, rollSealedSecret, secretHint } from './secrets.js';
import { openEmbeddedStore } from './store/embedded.js';
import { createLogger } from './logger.js';
import { captureLogs } from './testing/index.js';

describe('secret box', () => {
  const box = createSecretBox('server-key-0123456789abcdef0123456789');

  it('seals and opens, never storing the plain text', () => {
    const sealed = box.seal('whsec_abcdef123456');
    expect(sealed).not.toContain('abcdef123456');
    expect(box.open(sealed)).toBe('whsec_abcdef123456');
  });

  it('refuses a tampered or foreign value', () => {
    const sealed = box.seal('whsec_abcdef123456');
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    expect(() => box.open(tampered)).toThrow();
    expect(() => createSecretBox('another-key-0123456789abcdef012345').open(sealed)).toThrow();
  });
});

describe('keyed hashes and hints', () => {
  it('compares hashes in constant time and by value', () => {
    const hash = keyedHasher('k');
    const a = hash('svc_test_sk_abc');
    expect(hashesEqual(a, hash('svc_test_sk_abc'))).toBe(true);
    expect(hashesEqual(a, hash('svc_test_sk_abd'))).toBe(false);
    expect(hashesEqual(a, keyedHasher('other')('svc_test_sk_abc'))).toBe(false);
    expect(hashesEqual(a, 'abcd')).toBe(false);
  });

  it('hashes as HMAC-SHA256 of the key text, so the hashes of keys already stored still match', () => {
    expect(keyedHasher('sérver key')('svc_test_sk_abc')).toBe(
      createHmac('sha256', 'sérver key').update('svc_test_sk_abc').digest('hex'),
    );
  });

  it('shows only the prefix and the last four characters', () => {
    expect(secretHint('svc_test_sk_0123456789abcdefWXYZ')).toBe('svc_test_sk_…WXYZ');
  });
});

describe('logger redaction', () => {
  it('never writes keys or secrets, whether in fields or in messages', () => {
    const logs = captureLogs();
    const log = createLogger({ service: 'test', level: 'info', destination: logs.stream });
    log.info(
      { headers: { authorization: 'Bearer svc_live_sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } },
      'request',
    );
    log.info({ provider: { secret: 'whsec_BBBBBBBBBBBBBBBBBBBB' } }, 'rail');
    log.info(
      'presented sk_CCCCCCCCCCCCCCCCCCCCCCCC and svc_test_pk_DDDDDDDDDDDDDDDDDDDD, signed ssec_EEEEEEEEEEEEEEEEEEEE',
    );
    expect(logs.text()).not.toMatch(/AAAAAAAA|BBBBBBBB|CCCCCCCC|DDDDDDDD|EEEEEEEE/);
    expect(logs.text()).toContain('[REDACTED]');
  });

  // The redaction library is patched to parse its paths once (patches/): every later line,
  // whatever its shape, is redacted as the first was.
  it('redacts every line alike, nested and bracketed paths included', () => {
    const logs = captureLogs();
    const log = createLogger({ service: 'test', level: 'info', destination: logs.stream });
    for (let line = 0; line < 3; line += 1) {
      log.info(
        {
          req: { headers: { authorization: `Bearer svc_live_sk_${line}AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA` } },
          call: { headers: { 'x-service-signature': `v1=FFFFFFFF${line}` } },
          rail: { provider: { secret: `whsec_${line}BBBBBBBBBBBBBBBBBBB` } },
          apiKey: `opaque-GGGGGGGG${line}`,
          attempt: line,
        },
        'call out',
      );
    }
    const lines = logs
      .text()
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text));
    expect(lines).toHaveLength(3);
    expect(logs.text()).not.toMatch(/AAAAAAAA|BBBBBBBB|FFFFFFFF|GGGGGGGG/);
    for (const [line, entry] of lines.entries()) {
      expect(entry).toMatchObject({
        req: { headers: { authorization: '[REDACTED]' } },
        call: { headers: { 'x-service-signature': '[REDACTED]' } },
        rail: { provider: { secret: '[REDACTED]' } },
        apiKey: '[REDACTED]',
        attempt: line,
      });
    }
  });
});

describe('rollSealedSecret', () => {
  it('stores the first of two rolls made from the same read, and gives the other null', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mmp-roll-'));
    const store = await openEmbeddedStore({ dir });
    try {
      type Endpoint = { _id: string; sealed: string; hint: string; updatedAt: string };
      const endpoints = store.collection<Endpoint>('endpoints');
      const box = createSecretBox(randomBytes(32).toString('hex'));
      const read: Endpoint = {
        _id: 'we_1',
        sealed: box.seal('whsec_first'),
        hint: 'whsec_…irst',
        updatedAt: '',
      };
      await endpoints.insertOne(read);
      const fields = { sealed: 'sealed', hint: 'hint' } as const;
      const at = new Date().toISOString();
      const won = await rollSealedSecret(endpoints, read, fields, { secret: 'whsec_second', box, at });
      const lost = await rollSealedSecret(endpoints, read, fields, { secret: 'whsec_third', box, at });
      expect(won && box.open(won.sealed)).toBe('whsec_second');
      expect(lost).toBeNull();
      const stored = await endpoints.findOne({ _id: 'we_1' });
      expect(stored?.hint).toBe(secretHint('whsec_second'));
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
