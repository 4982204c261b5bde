// Value labels several resources show, on both transports: serializers and GraphQL types import them
// from here (a resource's own labels are in `src/modules/<resource>/<resource>.labels.ts`).

/** A guest's gender by its stored value: 0 Unknown, 1 Male, 2 Female. */
export const GENDER_NAMES = ['Unknown', 'Male', 'Female'] as const;
export type GenderName = (typeof GENDER_NAMES)[number];

/** `Male`…; anything outside 0–2 reads as Unknown, and no value (a visitor without a guest) as null. */
export function genderName(g: number): GenderName;
export function genderName(g: number | null): GenderName | null;
export function genderName(g: number | null): GenderName | null {
  return g === null ? null : (GENDER_NAMES[g] ?? 'Unknown');
}

/** A device's or a session's connection status, in the order REST's schema lists them. */
export const CONNECTION_STATUS_NAMES = ['Online', 'Offline'] as const;
export type ConnectionStatusName = (typeof CONNECTION_STATUS_NAMES)[number];

/** 1 → Online; 0, or anything else, → Offline. */
export const connectionStatusName = (value: number): ConnectionStatusName =>
  value === 1 ? 'Online' : 'Offline';
