// multipart/form-data bodies, as Laravel accepts them: fields become body members and a file part
// becomes the same `data:<type>;base64,…` text a JSON client sends, so one rule (e.g. the guest
// avatar's) checks both forms. `name[]` fields are read as the list `name`. A route that reads files
// itself (`rawFileParts` in its config: the guest import) gets each file part as an UploadedFile.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { imageTypeOf } from '../shared/image-type.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once a multipart body has been read completely. */
    formRead?: boolean;
  }
  interface FastifyContextConfig {
    /** File parts reach the handler as UploadedFile (their bytes), not as data URLs. */
    rawFileParts?: boolean;
  }
}

/** A file part as received, for routes with `rawFileParts`. */
export class UploadedFile {
  constructor(
    readonly filename: string,
    readonly mimetype: string,
    readonly bytes: Buffer,
  ) {}
}

/** An image's type by its bytes; any other file keeps the type its part declared. */
function typeOfFile(bytes: Buffer, declared: string): string {
  const image = imageTypeOf(bytes);
  return image ? `image/${image}` : declared;
}

/** Files up to this size are read (and then judged by the resource's rules); larger ones are a 413. */
export const MULTIPART_FILE_LIMIT = 3 * 1024 * 1024;

export async function acceptMultipart(fastify: FastifyInstance): Promise<void> {
  await fastify.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: MULTIPART_FILE_LIMIT, files: 5, fields: 200 },
    async onFile(part) {
      const bytes = await part.toBuffer();
      part.value = this.routeOptions.config.rawFileParts
        ? new UploadedFile(part.filename, part.mimetype, bytes)
        : // The type the bytes are (as Laravel's `image` rule reads the content), not the one the
          // client declared: many clients send every file as application/octet-stream.
          `data:${typeOfFile(bytes, part.mimetype)};base64,${bytes.toString('base64')}`;
    },
  });
  fastify.addHook('preHandler', async (request) => {
    if (!request.isMultipart() || request.body === null || typeof request.body !== 'object') return;
    const body: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(request.body as Record<string, unknown>)) {
      if (key.endsWith('[]')) body[key.slice(0, -2)] = Array.isArray(value) ? value : [value];
      else body[key] = value;
    }
    request.body = body;
    request.formRead = true;
  });
}

/**
 * The form parser (busboy) fails with plain errors; on a multipart request whose form was not read
 * to the end, a failure is the form's own: a 400, not a server error.
 */
export function unreadableForm(request: FastifyRequest): AppError | null {
  return request.isMultipart() && !request.formRead
    ? new AppError('MALFORMED_JSON', { message: 'Malformed multipart body.' })
    : null;
}
