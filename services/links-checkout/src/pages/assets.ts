import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export type Asset = { contentType: string; body: string; etag: string };

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** The only files `/assets/:file` serves; a name outside this list is a 404, never a path. */
export const ASSET_FILES = ['checkout.js', 'link.js', 'pages.css'] as const;

/**
 * Loaded once at start from `public/` (beside `src/` and `dist/`, so source and build
 * resolve the same folder).
 */
export function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const file of ASSET_FILES) {
    const body = readFileSync(fileURLToPath(new URL(`../../public/${file}`, import.meta.url)), 'utf8');
    const extension = file.slice(file.lastIndexOf('.') + 1);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
    assets.set(file, { contentType: TYPES[extension] ?? 'application/octet-stream', body, etag });
  }
  return assets;
}
