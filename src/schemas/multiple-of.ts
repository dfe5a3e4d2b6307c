/**
 * Whether `value` is an integer multiple of `divisor`, computed exactly on the decimal values the
 * JSON text wrote (the shortest round-trip form of each double). Ajv divides and compares with
 * parseInt, so it calls 19.99 no multiple of 0.01 (19.99 / 0.01 is 1998.9999999999998) and 1e22
 * no multiple of 2 (parseInt reads "5e+21" as 5); the remainder operator fails the same way.
 */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (!Number.isFinite(value) || !Number.isFinite(divisor) || divisor === 0) return false;
  const a = decimal(value);
  const b = decimal(divisor);
  const exponent = Math.min(a.exponent, b.exponent);
  const x = a.digits * 10n ** BigInt(a.exponent - exponent);
  const d = b.digits * 10n ** BigInt(b.exponent - exponent);
  return x % d === 0n;
}

function decimal(n: number): { digits: bigint; exponent: number } {
  const m = /^-?(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(n));
  if (!m) throw new Error(`not a finite number: ${n}`);
  const fraction = m[2] ?? '';
  return { digits: BigInt(`${m[1]}${fraction}`), exponent: Number(m[3] ?? 0) - fraction.length };
}
