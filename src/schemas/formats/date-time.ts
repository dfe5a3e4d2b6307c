// RFC 3339 §5.6. `\d` without the u flag matches ASCII digits only, so a Bengali digit fails.
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (DAYS[month - 1] as number));
}

export function isTime(value: string): boolean {
  const m = TIME.exec(value);
  if (!m) return false;
  const [hour, minute, second] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const sign = m[4] === '-' ? -1 : 1;
  const [offsetHour, offsetMinute] = [Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) return false;
  if (second < 60) return true;
  // A leap second exists only at 23:59:60 UTC, whatever the local offset.
  const utcMinutes = (((hour * 60 + minute - sign * (offsetHour * 60 + offsetMinute)) % 1440) + 1440) % 1440;
  return utcMinutes === 23 * 60 + 59;
}

export function isDateTime(value: string): boolean {
  const t = value.search(/[Tt]/);
  return t === 10 && isDate(value.slice(0, t)) && isTime(value.slice(t + 1));
}
