import type { Command } from 'commander';

/** text: for a person at a terminal; ndjson: one JSON object per line, for a script. */
export type Mode = 'text' | 'ndjson';
export const MODES: readonly Mode[] = ['text', 'ndjson'];

/** A column of a table: its header and what a row shows in it. */
export type Column<T> = readonly [header: string, cell: (row: T) => unknown];

/** stdout in the mode --output asks for, else text on a terminal and NDJSON through a pipe. */
export function outputOf(command: Command): Output {
  const asked = command.optsWithGlobals<{ output?: Mode }>().output;
  return new Output(asked ?? (process.stdout.isTTY ? 'text' : 'ndjson'));
}

export class Output {
  constructor(readonly mode: Mode) {}

  /** One object: its JSON line, or the text `human` makes of it. */
  item(value: unknown, human: () => string): void {
    write(this.mode === 'ndjson' ? JSON.stringify(value) : human());
  }

  /** A list: a JSON line per item as it arrives, or, once all arrived, a table (`empty` when there is none). */
  async list<T>(items: AsyncIterable<T> | Iterable<T>, columns: readonly Column<T>[], empty: string): Promise<void> {
    const rows: T[] = [];
    for await (const item of items) {
      rows.push(item);
      if (this.mode === 'ndjson') write(JSON.stringify(item));
    }
    if (this.mode === 'text') write(rows.length === 0 ? empty : table(rows, columns));
  }
}

export function write(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Rows under their headers, each column as wide as its widest cell. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = [columns.map(([header]) => header), ...rows.map((row) => columns.map(([, cell]) => text(cell(row))))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells.map((line) => line.map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** A cell: strings as they are, a missing value as a dash, anything else as JSON. */
function text(value: unknown): string {
  if (value === undefined || value === null || value === '') return '-';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
