/**
 * The value of the first series of `name` in Prometheus text whose labels include `labels`,
 * 0 when there is none (a counter not incremented yet is not printed).
 */
export function metricSample(text: string, name: string, labels: Record<string, string> = {}): number {
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${name}{`) &&
        Object.entries(labels).every(([key, value]) => l.includes(`${key}="${value}"`)),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}
