// The image formats the service stores, told by their bytes (as Laravel's `image` rule guesses a
// file's type from its content), never by the name or type a client declares.

export type ImageType = 'png' | 'jpeg' | 'gif' | 'webp';

/** The format `bytes` begin with, or null for anything else. */
export function imageTypeOf(b: Buffer): ImageType | null {
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1'))) return 'gif';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'webp';
  return null;
}
