/** The scenario calls now live in the one driver of the HTTP suites (driver.ts); this name stays for the suites that import it. */
export { consentScenario, MANUAL_NAME_SLOT, type Gql, type User } from './driver.js';
