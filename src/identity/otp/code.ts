import { randomInt } from 'node:crypto';

export const CODE_LENGTH = 6;

/** Six decimal digits from the CSPRNG, leading zeros kept ("004211"). */
export function generateCode(): string {
  return randomInt(0, 10 ** CODE_LENGTH)
    .toString()
    .padStart(CODE_LENGTH, '0');
}

/** Only ASCII digits: "１２３４５６" (fullwidth) is a wrong code, not a match. */
export function hasCodeShape(code: string): boolean {
  return /^[0-9]{6}$/.test(code);
}
