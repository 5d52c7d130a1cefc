import { describe, expect, it } from 'vitest';
import { MAX_LOGO_BYTES, judgeLogo, sniffLogoType } from './logo.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const WEBP = Buffer.from('RIFF\x00\x00\x00\x00WEBPVP8 ', 'latin1');

describe('merchant logo rules', () => {
  it('knows PNG, JPEG, GIF and WebP by their first bytes', () => {
    expect(sniffLogoType(PNG)).toBe('image/png');
    expect(sniffLogoType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffLogoType(Buffer.from('GIF89a', 'latin1'))).toBe('image/gif');
    expect(sniffLogoType(WEBP)).toBe('image/webp');
    expect(sniffLogoType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
  });

  it('takes only a small raster image whose bytes are what its header claims', () => {
    expect(judgeLogo('image/png', PNG)).toEqual({ ok: true, contentType: 'image/png' });
    expect(judgeLogo('Image/WebP; charset=binary', WEBP)).toEqual({ ok: true, contentType: 'image/webp' });
    expect(judgeLogo('image/svg+xml', Buffer.from('<svg/>'))).toMatchObject({ ok: false });
    expect(judgeLogo('image/jpeg', PNG)).toEqual({ ok: false, reason: 'the bytes are not image/jpeg' });
    expect(judgeLogo('text/html', PNG)).toMatchObject({ ok: false });
    expect(judgeLogo(undefined, PNG)).toMatchObject({ ok: false });
    expect(judgeLogo('image/png', Buffer.alloc(0))).toMatchObject({ ok: false });
    const big = Buffer.concat([PNG, Buffer.alloc(MAX_LOGO_BYTES)]);
    expect(judgeLogo('image/png', big)).toMatchObject({ ok: false });
  });
});
