import { useState } from 'react';

const UNITS = [
  ['D', 'days'],
  ['W', 'weeks'],
  ['M', 'months'],
  ['Y', 'years'],
] as const;
const OTHER = 'other';
const SIMPLE = /^P([1-9]\d{0,8})([DWMY])$/;

/**
 * The manifest's retention, an ISO 8601 duration (R-HTTP-13), picked as a number and a unit; any
 * other duration (P1Y6M, PT12H) can be written as it is.
 */
export function RetentionField({ value, onChange }: { readonly value: string; readonly onChange: (duration: string) => void }) {
  const simple = SIMPLE.exec(value);
  const [amount, setAmount] = useState(simple?.[1] ?? '');
  const [unit, setUnit] = useState<string>(simple?.[2] ?? (value ? OTHER : 'D'));
  const pick = (nextAmount: string, nextUnit: string) => {
    setAmount(nextAmount);
    setUnit(nextUnit);
    if (nextUnit !== OTHER) onChange(/^[1-9]\d*$/.test(nextAmount) ? `P${nextAmount}${nextUnit}` : '');
  };
  return (
    <fieldset className="admin-choices">
      <legend>How long you keep what is shared</legend>
      <div className="admin-inline">
        {unit !== OTHER && (
          <>
            <label htmlFor="retention-amount">Number</label>
            <input id="retention-amount" type="number" min={1} required value={amount} onChange={(e) => pick(e.target.value, unit)} />
          </>
        )}
        <label htmlFor="retention-unit">Unit</label>
        <select id="retention-unit" value={unit} onChange={(e) => pick(amount, e.target.value)}>
          {UNITS.map(([code, words]) => (
            <option key={code} value={code}>
              {words}
            </option>
          ))}
          <option value={OTHER}>another duration</option>
        </select>
      </div>
      {unit === OTHER && (
        <>
          <label htmlFor="retention-iso">Duration in ISO 8601, such as P1Y6M or PT12H</label>
          <input id="retention-iso" required value={value} onChange={(e) => onChange(e.target.value.trim().toUpperCase())} />
        </>
      )}
    </fieldset>
  );
}
