// multipart/form-data bodies, as PHP and Laravel read them: every field name is nested as a query
// string's is (`tags[]`, `tags[0]`, `a[b]`; a repeated name keeps its last value: src/http/query-string.ts),
// and the files, nested the same way, are laid over the fields (`$request->all()`). A file is no text:
// in a text field it is a value each rule refuses as Laravel's refuse an UploadedFile (`The name field
// must be a string.`). Only a field whose rule reads a file takes it as its value: the data URL a JSON
// client sends in the route's `fileFields` (the guest avatar), so one rule checks both forms; and on
// a route that reads files itself (`rawFileParts` in its config: the guest import) every file part is
// an UploadedFile.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { imageTypeOf } from '../shared/image-type.js';
import { UploadedFile } from '../validation/php-values.js';
import { assignPhpVariable, PhpArray } from './query-string.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once a multipart body has been read completely. */
    formRead?: boolean;
  }
  interface FastifyContextConfig {
    /** File parts reach the handler as UploadedFile (their bytes), not as data URLs. */
    rawFileParts?: boolean;
    /**
     * The body fields whose rule reads a file, as the `data:<type>;base64,…` text a JSON client
     * sends: the route's `fileFields` (src/rest/endpoint.ts, which the OpenAPI document shows as file
     * parts). A file part in any other field is an UploadedFile, which text rules refuse.
     */
    fileFields?: ReadonlySet<string>;
    /**
     * A POST of a path without a POST route, routed by the method its body asks (Laravel's
     * `_method`, src/rest/method-override.ts): its token is checked once that is known.
     */
    methodOverrideOnly?: boolean;
  }
}

/** An image's type by its bytes; any other file keeps the type its part declared. */
function typeOfFile(bytes: Buffer, declared: string): string {
  const image = imageTypeOf(bytes);
  return image ? `image/${image}` : declared;
}

/** Files up to this size are read (and then judged by the resource's rules); larger ones are a 413. */
export const MULTIPART_FILE_LIMIT = 3 * 1024 * 1024;

export async function acceptMultipart(fastify: FastifyInstance): Promise<void> {
  await fastify.register(multipart, { limits: { fileSize: MULTIPART_FILE_LIMIT, files: 5, fields: 200 } });
  // The parts in the order they came: `a[]`, `a[5]` and `a` are different names of one variable, and
  // PHP assigns them in that order.
  fastify.addHook('preValidation', async (request) => {
    if (!request.isMultipart()) return;
    const config = request.routeOptions.config;
    const fields = new PhpArray();
    const files = new PhpArray();
    const budget = { arrays: 0 };
    for await (const part of request.parts(config.multipartOptions)) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        // A file input left empty (a browser sends no file name and no bytes; PHP's
        // UPLOAD_ERR_NO_FILE) sends no file: the field is left out, so an edit form saved without
        // choosing a new avatar keeps the one there (an avatar sent as null removes it).
        if (part.filename === '' && bytes.length === 0) continue;
        const file = new UploadedFile(part.filename, part.mimetype, bytes);
        assignPhpVariable(
          files,
          part.fieldname,
          !config.rawFileParts && config.fileFields?.has(part.fieldname)
            ? // The type the bytes are (as Laravel's `image` rule reads the content), not the one the
              // client declared: many clients send every file as application/octet-stream.
              `data:${typeOfFile(bytes, part.mimetype)};base64,${bytes.toString('base64')}`
            : file,
          budget,
        );
      } else {
        // A field part typed application/json arrives parsed (the plugin's doing); PHP reads its text.
        const text = part.mimetype === 'application/json' ? JSON.stringify(part.value) : String(part.value);
        assignPhpVariable(fields, part.fieldname, text, budget);
      }
    }
    fields.replaceRecursive(files);
    request.body = fields.toRecord();
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
