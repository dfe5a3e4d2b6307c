import fc from 'fast-check';

/**
 * Values a hostile client sends, as fast-check arbitraries: some shaped like what a route
 * documents (so they reach its handler), the rest wrong in every way JSON, URLs and headers allow.
 */

/** A JSON token written as it is: a number JSON.parse reads as Infinity, nesting no stringify would build. */
export class Raw {
  constructor(readonly text: string) {}
}
/** An object written with its keys as listed, a key possibly twice (JSON.parse keeps the last). */
export class Pairs {
  constructor(readonly entries: ReadonlyArray<readonly [string, unknown]>) {}
}

/** JSON text of a value holding Raw tokens and Pairs objects. */
export function jsonText(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Pairs) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

export const DEPTH = 10_000;
export const deepArrays = new Raw('['.repeat(DEPTH) + ']'.repeat(DEPTH));
export const deepObjects = new Raw('{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH));

const specialText = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0001b',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\r\n',
  '\u2028',
  '\ud800',
  'x\udfffy',
  '\ud83d',
  '\u202egnp.exe',
  '\ufeff',
  '\uffff',
  '😀'.repeat(50),
  'ǅ̈́̈́̈́̈́̈́̈́̈́̈́̈́',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2f',
  "' OR '1'='1",
  "'; DROP TABLE es.events; --",
  '$1',
  '\\',
  '"',
  '{"$ne":null}',
  '__proto__',
  'constructor',
  'null',
  'true',
  '-1',
  'NaN',
  '1e309',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  'http://169.254.169.254/latest/meta-data/',
  'a@b',
  'a@b.c'.padStart(400, 'a'),
  '<script>alert(1)</script>',
);

/** Text: mostly ordinary, else the characters and shapes that have broken services before, or huge. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 4, arbitrary: specialText },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'x'.repeat(n)) },
);

/** Numbers JSON can write but no handler should trust. */
export const hostileNumber = fc.constantFrom(
  new Raw('1e309'),
  new Raw('-1e309'),
  new Raw('-0'),
  new Raw('18446744073709551616'),
  new Raw('9007199254740993'),
  new Raw('1e-400'),
  new Raw('0.5'),
  new Raw('-1'),
  new Raw('2147483648'),
  new Raw('1' + '0'.repeat(400)),
);

const duplicated = fc
  .tuple(fc.constantFrom('name', 'a', '__proto__', 'constructor'), fc.jsonValue({ maxDepth: 1 }), fc.jsonValue({ maxDepth: 1 }))
  .map(
    ([k, a, b]) =>
      new Pairs([
        [k, a],
        [k, b],
      ]),
  );

/** Any JSON value a field might receive instead of what it documents. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileText },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, [], {}, [null], deepArrays, deepObjects) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: duplicated },
  { weight: 1, arbitrary: fc.constantFrom(new Raw(`[${'0,'.repeat(100_000)}0]`), new Raw(`{${'"k":0,'.repeat(50_000)}"k":1}`)) },
);

/** A JSON schema as the OpenAPI document writes it (inline; a $ref is any object). */
export type Schema = {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly items?: Schema;
  readonly minItems?: number;
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly Schema[];
  readonly format?: string;
  readonly maxLength?: number;
  readonly $ref?: string;
};

/** Values a field may validly take, by its name, when the fuzz knows some (ids of what exists). */
export type Known = Readonly<Record<string, readonly string[]>>;

/** A value of the schema's shape, sometimes wrong in one place: a field missing, extra, or hostile. */
export function shaped(schema: Schema, known: Known, name = ''): fc.Arbitrary<unknown> {
  const sound = soundValue(schema, known, name);
  return fc.oneof({ weight: 8, arbitrary: sound }, { weight: 1, arbitrary: hostileValue });
}

function soundValue(schema: Schema, known: Known, name: string): fc.Arbitrary<unknown> {
  if (known[name]?.length) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known[name]) }, { weight: 1, arbitrary: fc.uuid() });
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => soundValue(s, known, name)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.$ref || (type === 'object' && !schema.properties))
    return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }));
  switch (type) {
    case 'object': {
      const properties = schema.properties ?? {};
      const fields = Object.fromEntries(
        Object.entries(properties).map(([k, s]) => [k, fc.option(shaped(s, known, k), { freq: 10, nil: undefined })]),
      );
      return fc
        .tuple(fc.record(fields), fc.option(fc.tuple(hostileText, hostileValue), { freq: 4, nil: undefined }))
        .map(([record, extra]) => (extra ? { ...record, [extra[0]]: extra[1] } : record));
    }
    case 'array':
      return fc.array(shaped(schema.items ?? {}, known, name), { minLength: schema.minItems ?? 0, maxLength: 3 });
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: 0, max: 10 });
    case 'string':
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      return fc.string({ minLength: 1, maxLength: Math.min(schema.maxLength ?? 30, 30) });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** Whole bodies no parser should choke on: deep, huge, malformed, of another encoding. */
export const hostileJsonBody: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom(
    utf8(deepArrays.text),
    utf8(deepObjects.text),
    utf8(`{"name":"${'x'.repeat(1024 * 1024)}"}`),
    Buffer.concat([utf8('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), utf8('"}')]),
    Buffer.from([0xc0, 0xaf, 0xe0, 0x80, 0xaf]),
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8('{}')]),
    Buffer.from('{"name":"Acme"}', 'utf16le'),
    utf8('{"name":'),
    utf8(''),
    utf8('null'),
    utf8('"text"'),
    utf8('1e309'),
    utf8('[]'),
    utf8('{"__proto__":{"admin":true}}'),
    utf8('{"a":1,"a":2,"a":{"b":[1,2,3]}}'),
    utf8("{'single':'quotes'}"),
    utf8('{"a":1}garbage'),
    utf8('\u0000'),
  ),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
);

/** A method the route was not registered for, or no method at all. */
export const otherMethod = fc.constantFrom('HEAD', 'OPTIONS', 'PATCH', 'TRACE', 'DELETE', 'PUT', 'FOO');

/** Content-Type headers: JSON in odd spellings and charsets, and everything else. */
export const hostileContentType = fc.constantFrom(
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=x-unknown',
  'application/merge-patch+json',
  'APPLICATION/JSON',
  'application/json;;;',
  '*/*',
  'application/xml',
  '',
);

/** Authorization headers that are not a valid token of the route's kind. */
export function hostileAuthorization(otherKind: string): fc.Arbitrary<string> {
  const header = (p: object) => Buffer.from(JSON.stringify(p)).toString('base64url');
  return fc.constantFrom(
    'Bearer',
    'Bearer ',
    'Bearer a.b.c',
    `Bearer ${header({ alg: 'none', typ: 'JWT' })}.${header({ sub: 'x', aud: 'org' })}.`,
    `Bearer ${header({ alg: 'HS256' })}.${header({ aud: 'user' })}.${'A'.repeat(43)}`,
    `Bearer ${'x'.repeat(8000)}`,
    'Basic YWRtaW46YWRtaW4=',
    `Bearer ${otherKind}`,
    `bearer ${otherKind}`,
    `Bearer ${otherKind} ${otherKind}`,
  );
}

const pathSegments = fc.constantFrom(
  '..',
  '%2e%2e',
  '..%2f..%2f..%2fetc%2fpasswd',
  '%2e%2e%2f%2e%2e%2fsrc%2fmain.ts',
  '%00',
  '%ff%fe',
  '%c3%28',
  '%ed%a0%80',
  '%',
  '%zz',
  '%25',
  'null',
  '-1',
  '1e309',
  "'%20OR%20'1'%3D'1",
  '%E2%80%AE',
  '00000000-0000-0000-0000-000000000000',
  'x'.repeat(3000),
  // Bytes no URL may hold raw: latin1 (sent as the byte itself), a space, a control character.
  '\u00ff\u00c3(',
  'a b',
  '\u0001',
);

/** A path parameter as it goes on the wire: a known id, any UUID, or a segment that is neither. */
export function pathSegment(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    ...(known.length ? [{ weight: 3, arbitrary: fc.constantFrom(...known).map(percentEncode) }] : []),
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 3, arbitrary: pathSegments },
    { weight: 1, arbitrary: hostileText.map((t) => percentEncode(t)) },
  );
}

/** Every byte of the text's UTF-8 percent-encoded (a lone surrogate goes as U+FFFD, as a browser sends it). */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
}

/** A query parameter's value as it goes on the wire: ordinary, hostile, malformed, or given twice. */
export function queryValue(name: string, sound: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: sound.map((v) => `${name}=${percentEncode(v)}`) },
    { weight: 2, arbitrary: hostileText.map((t) => `${name}=${percentEncode(t)}`) },
    { weight: 1, arbitrary: fc.constantFrom(`${name}=%ff`, `${name}=%`, `${name}=%c3%28`, `${name}`, `${name}=`, `${name}[]=1`) },
    { weight: 1, arbitrary: fc.tuple(sound, sound).map(([a, b]) => `${name}=${percentEncode(a)}&${name}=${percentEncode(b)}`) },
    { weight: 1, arbitrary: fc.constantFrom(`${name}[a]=1`, `${name}[__proto__]=1`, `${name}[0]=1&${name}[1]=2`) },
  );
}

/** Headers besides the ones a route reads, sent now and then: odd ids, forwarding, encodings, sizes. */
export const extraHeaders: fc.Arbitrary<Array<[string, Buffer]>> = fc.array(
  fc.oneof(
    fc.constantFrom<[string, Buffer]>(
      ['X-Request-Id', Buffer.from('\u00ff\u00fe', 'latin1')],
      ['X-Request-Id', Buffer.from('x'.repeat(2000))],
      ['X-Correlation-Id', Buffer.from('a\tb')],
      ['X-Forwarded-For', Buffer.from('not-an-ip, ::ffff:999.1.1.1, 127.0.0.1')],
      ['Accept', Buffer.from('application/x-nothing')],
      ['Accept-Encoding', Buffer.from('gzip;q=2, *;q=-1')],
      ['Content-Encoding', Buffer.from('gzip')],
      ['Content-Encoding', Buffer.from('x-unknown')],
      ['Expect', Buffer.from('100-continue')],
      // Beside our Content-Length: the ambiguity request smuggling lives on.
      ['Transfer-Encoding', Buffer.from('chunked')],
      ['Range', Buffer.from('bytes=99999999999999999999-')],
      ['If-None-Match', Buffer.from('*')],
      ['X-Huge', Buffer.from('h'.repeat(20_000))],
      ['Cookie', Buffer.from('a=b; '.repeat(1000))],
      ['X-Latin1', Buffer.from([0xe9, 0xff, 0x80])],
    ),
  ),
  { maxLength: 2 },
);
