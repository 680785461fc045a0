// A throwaway self-signed certificate made with openssl, for the servers tests and benches put behind TLS.
import { execFileSync } from 'node:child_process';

/**
 * Writes a key and a certificate valid for one day for `subjectAltName` (`DNS:name` or `IP:address`), or throws with
 * openssl's own words.
 */
export function writeSelfSignedCertificate(subjectAltName: string, keyPath: string, certificatePath: string): void {
  const commonName = subjectAltName.slice(subjectAltName.indexOf(':') + 1);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      `subjectAltName=${subjectAltName}`,
      '-keyout',
      keyPath,
      '-out',
      certificatePath,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: 20_000 },
  );
}
