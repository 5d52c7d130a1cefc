/** A route as the router holds it: one method and its URL pattern (`:param`, a final `*`). */
export type RoutePattern = { method: string; url: string };

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The pattern's URL as a regular expression over a request's path, as the router matches it. */
function pathPattern(url: string): RegExp {
  const segments = url.split('/').map((segment) => {
    if (segment === '*') return '.*';
    if (segment.startsWith(':')) return '[^/]+';
    return escaped(segment);
  });
  // The gateway's router ignores a trailing slash.
  return new RegExp(`^${segments.join('/')}/?$`);
}

function compile(routes: readonly RoutePattern[]) {
  const methodsByUrl = new Map<string, string[]>();
  for (const { method, url } of routes) methodsByUrl.set(url, [...(methodsByUrl.get(url) ?? []), method]);
  return [...methodsByUrl].map(([url, methods]) => ({ pattern: pathPattern(url), methods }));
}

/**
 * Which methods the routes take at a request's path: what a 405 lists in its `Allow` header
 * (RFC 9110 §15.5.6) when the path is a route's with another method. Only unmatched requests
 * ask, so the patterns are compiled on the first question, when every route is registered.
 */
export function allowedMethodsOf(routes: readonly RoutePattern[]): (path: string) => string[] {
  let byPattern: { pattern: RegExp; methods: string[] }[] | undefined;
  return (path) => {
    byPattern ??= compile(routes);
    const methods = new Set<string>();
    for (const { pattern, methods: taken } of byPattern) {
      if (pattern.test(path)) for (const method of taken) methods.add(method);
    }
    return [...methods].sort();
  };
}
