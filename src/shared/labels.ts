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

/** The words guest filters and create bodies take and the REST guest list writes: 1 male, 2 female. */
export const GENDER_WORDS = ['male', 'female'] as const;
export type GenderWord = (typeof GENDER_WORDS)[number];

/** 1 → male, 2 → female; Unknown (0, or anything else) has no word. */
export const genderWord = (g: number): GenderWord | null => (g === 1 ? 'male' : g === 2 ? 'female' : null);

/** male → 1, female → 2, anything else → 0 (Unknown). */
export const genderOfWord = (word: string): number => (word === 'male' ? 1 : word === 'female' ? 2 : 0);
