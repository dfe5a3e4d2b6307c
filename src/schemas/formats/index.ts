import { isCountryCode } from '../iso-3166.js';
import { isDate, isDateTime, isTime } from './date-time.js';
import { isEmail } from './email.js';
import { isIpv4, isIpv6 } from './ip.js';
import { isUri, isUriReference } from './uri.js';

export type FormatCheck = (value: string) => boolean;

const JSON_POINTER = /^(?:\/(?:[^~/]|~0|~1)*)*$/;
const RELATIVE_JSON_POINTER = /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$/;
const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/**
 * The formats asserted. The spec's six, plus the 2020-12 formats whose checks pass every case
 * of the test suite's optional/format file. Any other format (hostname, duration, idn-*, iri,
 * uri-template, Ajv's OpenAPI extras) fails to compile: asserting it loosely would answer wrongly.
 */
export const FORMATS: ReadonlyMap<string, FormatCheck> = new Map<string, FormatCheck>([
  ['country', isCountryCode],
  // ISO 4217 codes, checked by shape as the spec says (exactly 3 uppercase ASCII letters).
  ['currency', (v) => /^[A-Z]{3}$/.test(v)],
  ['email', isEmail],
  ['date', isDate],
  ['date-time', isDateTime],
  ['time', isTime],
  ['uri', isUri],
  ['uri-reference', isUriReference],
  ['uuid', (v) => UUID.test(v)],
  ['ipv4', isIpv4],
  ['ipv6', isIpv6],
  ['json-pointer', (v) => JSON_POINTER.test(v)],
  ['relative-json-pointer', (v) => RELATIVE_JSON_POINTER.test(v)],
  ['regex', isRegex],
]);

function isRegex(value: string): boolean {
  try {
    new RegExp(value, 'u');
    return true;
  } catch {
    return false;
  }
}
