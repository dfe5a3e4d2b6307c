import type { Command } from 'commander';

/** Adds "Examples:" to a command's --help. */
export function examples<C extends Command>(command: C, ...lines: readonly string[]): C {
  command.addHelpText('after', `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}`);
  return command;
}

/** "a,b" as ['a', 'b']: for options that take a list. */
export const commaList = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
