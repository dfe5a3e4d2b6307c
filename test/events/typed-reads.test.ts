import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const src = fileURLToPath(new URL('../../src', import.meta.url));
const DECODER = 'events/decoder.ts';

/** Casts that would read a stored event's type or data without its decoder (a FeedEvent is the feed's answer, never stored). */
const STORED_EVENT_CAST = /\.data as\b|\bas Recorded\b|\bas (?!FeedEvent\b)\w*Event\b(?!s)|\bas (?!FeedEvent\[)\w*Event\[/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

describe('stored events are read typed only through their decoders', () => {
  it('no module of the service casts a stored event or its data outside src/events/decoder.ts', () => {
    const casts = sourceFiles(src).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ where: `${relative(src, file)}:${i + 1}`, line }))
        .filter(
          ({ where, line }) =>
            !where.startsWith(`${DECODER}:`) && !/^\s*(import|export) |^\s*type \w+ as \w+,?$/.test(line) && STORED_EVENT_CAST.test(line),
        ),
    );
    expect(casts.map((c) => `${c.where}: ${c.line.trim()}`)).to.deep.equal([]);
  });

  it('the check finds such a cast where one is written', () => {
    expect(STORED_EVENT_CAST.test('const d = e.data as FileVersionData;')).to.equal(true);
    expect(STORED_EVENT_CAST.test('return e as DocumentEvent;')).to.equal(true);
    expect(STORED_EVENT_CAST.test('return { type: e.type, data: e.data } as Event;')).to.equal(true);
  });
});
