import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Lints `code` as a file in `folder` of the repository, with its own config (`npm run lint`). */
async function lint(code: string, folder: 'src' | 'test' = 'src'): Promise<string[]> {
  // Type-aware rules need the file in the TypeScript project, so it is written there, then removed.
  const file = join(repo, folder, `lint-scratch-${randomUUID()}.ts`);
  await writeFile(file, code);
  try {
    const [result] = await new ESLint({ cwd: repo }).lintFiles([file]);
    return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
  } finally {
    await rm(file, { force: true });
  }
}

describe('the linter run by npm test (eslint.config.js)', function () {
  this.timeout(120_000);

  it('refuses a floating promise, a promise where a callback expects void, and a switch that misses a case', async () => {
    const found = await lint(
      [
        'export async function save(): Promise<void> {}',
        'export function later(): void {',
        '  save();',
        '  setTimeout(save, 10);',
        '}',
        "export function name(kind: 'a' | 'b'): string {",
        '  switch (kind) {',
        "    case 'a':",
        "      return 'A';",
        '  }',
        "  return '?';",
        '}',
        '',
      ].join('\n'),
    );
    expect(found).to.include.members([
      '@typescript-eslint/no-floating-promises',
      '@typescript-eslint/no-misused-promises',
      '@typescript-eslint/switch-exhaustiveness-check',
    ]);
  });

  it('refuses an explicit any in a module of the service, and passes the same code typed', async () => {
    expect(await lint('export function parse(text: string): any {\n  return JSON.parse(text);\n}\n')).to.include(
      '@typescript-eslint/no-explicit-any',
    );
    expect(await lint('export function parse(text: string): unknown {\n  return JSON.parse(text);\n}\n')).to.deep.equal([]);
    // Tests walk JSON replies untyped on purpose (the config says why).
    expect(await lint('export function parse(text: string): any {\n  return JSON.parse(text);\n}\n', 'test')).to.deep.equal([]);
  });
});
