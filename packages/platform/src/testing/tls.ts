import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A self-signed certificate for 127.0.0.1 and localhost, made fresh for one test file with
 * openssl. A service trusts it only when started with NODE_EXTRA_CA_CERTS=certPath (Node
 * reads that variable once, at start), so such a service runs as a child process.
 */
export function makeTestCertificate() {
  const dir = mkdtempSync(join(tmpdir(), 'mmp-tls-'));
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
      ...['-keyout', keyPath, '-out', certPath, '-subj', '/CN=localhost'],
      ...['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    ],
    { stdio: 'ignore' },
  );
  return {
    keyPath,
    certPath,
    key: readFileSync(keyPath),
    cert: readFileSync(certPath),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
