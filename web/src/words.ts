/** What the service's states and policies mean, in words a person reads (contract §11). */

/** A request's state (contract §5). */
const STATES: Readonly<Record<string, string>> = {
  pending: 'Waiting for your answer',
  active: 'Shared: you accepted',
  suspended: 'Paused by you',
  revoked: 'Ended by you',
  rejected_by_recipient: 'You said no',
  rejected_by_sender: 'Withdrawn by the organization',
  expired: 'Expired without an answer',
};

/**
 * `expired` is an invitation left unanswered, or a connection past the time the organization keeps
 * it (R-REQ-11): `accepted` says which.
 */
export const plainState = (state: string, accepted = false): string =>
  state === 'expired' && accepted ? 'Ended: the time they keep it ran out' : (STATES[state] ?? state.replace(/_/g, ' '));

/** A request's state as the organization reads it. */
const ORG_STATES: Readonly<Record<string, string>> = {
  pending: 'Waiting for the person',
  active: 'Active',
  suspended: 'Paused by the person',
  revoked: 'Revoked by the person',
  rejected_by_recipient: 'Declined by the person',
  rejected_by_sender: 'Withdrawn by you',
  expired: 'Expired',
};

export const orgState = (state: string): string => ORG_STATES[state] ?? state.replace(/_/g, ' ');

/** A consent receipt's status (docs/receipts.md: a W3C DPV term, or the service's own for a pause), in words. */
const CONSENT_STATUSES: Readonly<Record<string, string>> = {
  'dpv:ConsentGiven': 'consent given',
  'dpv:RenewedConsentGiven': 'consent given again',
  'dpv:ConsentWithdrawn': 'consent withdrawn',
  'dpv:ConsentRefused': 'consent refused',
  'dss:ConsentSuspended': 'consent paused',
};

export const consentStatusWords = (status: string): string => CONSENT_STATUSES[status] ?? status;

/** A slot's adoption policy, as the person reads it; a slot without the keep verb keeps no copy. */
export function adoptionWords(adoption: string, verbs: readonly string[] = ['keep']): string {
  if (!verbs.includes('keep')) return 'They can see it while you share it, and keep no copy.';
  return adoption === 'auto'
    ? 'They keep a copy and get your updates automatically.'
    : 'They keep a copy, and ask before taking an update you publish.';
}

/** What else a slot lets happen (contract §3: fill and edit; keep is said by adoptionWords), as sentences. */
export function verbWords(verbs: readonly string[]): string {
  const parts: string[] = [];
  if (verbs.includes('fill')) parts.push('You may fill it in as you answer.');
  if (verbs.includes('edit')) parts.push('Your later versions reach them.');
  return parts.join(' ');
}

/** A schema's name as words: "PersonAddress" → "Person address". */
export function schemaWords(target: string): string {
  const name =
    target
      .replace(/\.json$/, '')
      .split('/')
      .pop() ?? target;
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  // Sentence case, but for the one acronym among the built-ins' names (UBOStructure).
  return (words.charAt(0).toUpperCase() + words.slice(1).toLowerCase()).replace(/^Ubo\b/, 'UBO');
}

/** An ISO 8601 duration (the manifest's retention) in words: "P30D" → "30 days". */
export function retentionWords(retention: string): string {
  const m = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?$/.exec(retention);
  if (!m) return retention;
  const units = ['year', 'month', 'week', 'day'];
  const parts = m
    .slice(1)
    .map((n, i) => (n ? `${n} ${units[i]}${n === '1' ? '' : 's'}` : null))
    .filter((p): p is string => p !== null);
  return parts.length > 0 ? parts.join(' and ') : retention;
}

export const when = (iso: string): string => new Date(iso).toLocaleString();
export const day = (iso: string): string => new Date(iso).toLocaleDateString();

/** Why a record of a request is unavailable to the organization, or a keep skipped it (service spec §3.3). */
const UNAVAILABLE: Readonly<Record<string, string>> = {
  connection_inactive: 'the connection is no longer active (revoked by the person, or past its retention)',
  participant_ineligible: 'the person may no longer answer for this party',
  source_unavailable: 'the person’s record no longer exists or can no longer be read',
};

export const unavailableWords = (reason: string): string => UNAVAILABLE[reason] ?? reason.replace(/_/g, ' ');

/** A size in bytes as a person reads it: "512 bytes", "4.2 KB", "1.5 MB". */
export function sizeWords(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Letters read as one word that stay upper case in a field's name. */
const ACRONYMS: ReadonlySet<string> = new Set(['iban', 'bic', 'lei', 'vat', 'tin', 'id', 'url', 'uri', 'pep', 'ubo', 'isin', 'iso']);

/** A data field's name in words when its schema gives it no title: "givenName" → "Given name", "iban" → "IBAN". */
export function fieldWords(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase()
    .split(' ')
    .map((w) => (ACRONYMS.has(w) ? w.toUpperCase() : w));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
