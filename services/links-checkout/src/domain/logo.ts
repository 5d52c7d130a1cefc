/**
 * What a merchant logo may be once it is inlined into a hosted page: a raster image of a
 * type every phone browser shows, never SVG (an SVG is a document that can carry script
 * and links), and small, since it travels inside every page view.
 */
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

/**
 * A logo is shown 48 px wide (96 device pixels on a dense screen); 16 KB is generous for
 * that. It travels inside every page view as base64 (a third larger), and the page with its
 * script, styles and the largest logo stays under its 50 KB budget (the size test).
 */
export const MAX_LOGO_BYTES = 16 * 1024;

/** The media type of a `Content-Type` header when it is one we inline, else null. */
function declaredLogoType(header: string | undefined): LogoType | null {
  const type = (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return (LOGO_TYPES as readonly string[]).includes(type) ? (type as LogoType) : null;
}

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((byte, i) => bytes[at + i] === byte);

/**
 * The type the bytes really are, by their magic number: a server's header is only a claim,
 * and the page declares the type in the data URL it builds.
 */
export function sniffLogoType(bytes: Uint8Array): LogoType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return 'image/gif';
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp';
  return null;
}

/** The type to inline fetched bytes as, or why they cannot be the logo. */
export function judgeLogo(
  declared: string | undefined,
  bytes: Uint8Array,
): { ok: true; contentType: LogoType } | { ok: false; reason: string } {
  if (bytes.length === 0) return { ok: false, reason: 'empty body' };
  if (bytes.length > MAX_LOGO_BYTES) return { ok: false, reason: `larger than ${MAX_LOGO_BYTES} bytes` };
  const type = declaredLogoType(declared);
  if (!type)
    return { ok: false, reason: `content type ${declared ?? 'missing'} is not PNG, JPEG, WebP or GIF` };
  if (sniffLogoType(bytes) !== type) return { ok: false, reason: `the bytes are not ${type}` };
  return { ok: true, contentType: type };
}

export function logoDataUrl(contentType: string, base64: string): string {
  return `data:${contentType};base64,${base64}`;
}
