// A multipart/form-data body built by hand, byte for byte, as a browser would send it.
import { randomBytes } from 'node:crypto';

export type Part =
  | { name: string; value: string }
  | { name: string; file: Buffer; type: string; filename: string };

export function form(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----gateway${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const head =
      'file' in p
        ? `Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type}`
        : `Content-Disposition: form-data; name="${p.name}"`;
    chunks.push(Buffer.from(`--${boundary}\r\n${head}\r\n\r\n`));
    chunks.push('file' in p ? p.file : Buffer.from(p.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
