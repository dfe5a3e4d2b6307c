import { graphql } from '../../../api';

/** The request's own verbs (RequestMutation): answer an invitation, or pause, resume or end a connection. */
export type Verb = 'accept' | 'reject' | 'suspend' | 'resume' | 'revoke';

/** One slot's answer, as GrantInput. */
export type Grant = { readonly slotId: string; readonly resourceIds: readonly string[] };

const STATE_CHANGE = (verb: Exclude<Verb, 'accept'>) => `mutation($r: ID!) { user { request { ${verb}(requestId: $r) { state } } } }`;
const ACCEPT = 'mutation($r: ID!, $g: [GrantInput!]!) { user { request { accept(requestId: $r, grants: $g) { state } } } }';
const GRANT = 'mutation($r: ID!, $g: GrantInput!) { user { request { grant(requestId: $r, grant: $g) { state } } } }';
const WITHDRAW = 'mutation($r: ID!, $s: ID!) { user { request { withdraw(requestId: $r, slotId: $s) { state } } } }';

/** Sends a verb; accept carries the answers chosen for the slots (the service refuses one without every required slot). */
export const sendVerb = (requestId: string, verb: Verb, grants: readonly Grant[]): Promise<unknown> =>
  verb === 'accept' ? graphql(ACCEPT, { r: requestId, g: grants }) : graphql(STATE_CHANGE(verb), { r: requestId });

export const share = (requestId: string, grant: Grant): Promise<unknown> => graphql(GRANT, { r: requestId, g: grant });

export const withdraw = (requestId: string, slotId: string): Promise<unknown> => graphql(WITHDRAW, { r: requestId, s: slotId });

/** What the person reads once a verb went through. */
export const DONE: Readonly<Record<Verb, (organization: string) => string>> = {
  accept: (org) => `You accepted. ${org} now sees what you shared.`,
  reject: (org) => `You said no. ${org} gets nothing.`,
  suspend: (org) => `Paused: ${org} gets nothing new until you resume.`,
  resume: (org) => `Resumed: ${org} sees what you share again.`,
  revoke: (org) => `The connection with ${org} has ended.`,
};
