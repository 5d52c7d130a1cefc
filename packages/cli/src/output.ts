/** Prints a result: JSON on stdout with --json, otherwise the human form. */
export function emit(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/** Aligned rows for the human form of lists. */
export function table(rows: (string | number | boolean | null | undefined)[][]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) =>
    row.map((cell) => (cell === null || cell === undefined ? '-' : String(cell))),
  );
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  return cells
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

type Scalar = string | number | boolean | null | undefined;

function flatten(value: unknown, path: string, into: [string, Scalar][]): void {
  if (Array.isArray(value)) {
    const scalars = value.every((item) => item === null || typeof item !== 'object');
    into.push([path, scalars ? value.join(', ') || '(none)' : `${value.length} item(s)`]);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) flatten(inner, path ? `${path}.${key}` : key, into);
  } else {
    into.push([path, value as Scalar]);
  }
}

/** One object as aligned `field  value` lines, nested fields by their dotted path. */
export function summary(value: unknown): string {
  const lines: [string, Scalar][] = [];
  flatten(value, '', lines);
  return table(lines);
}
