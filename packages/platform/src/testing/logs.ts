import { Writable } from 'node:stream';

/** A log destination that keeps everything written to it, for tests that read what was logged. */
export function captureLogs() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}
