/** Why a person's record may not move to the organization now (R-CONS-01), in the gate's precedence. */
export type ConsentLapse = 'connection_inactive' | 'not_granted' | 'source_unavailable' | 'participant_ineligible';
