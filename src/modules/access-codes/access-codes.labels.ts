// An access code's value labels, for both transports: the serializer and the GraphQL type import them.

export const TYPE_NAMES: Record<number, string> = { 1: 'Shared', 2: 'Access Code' };
/** Only status 1 is named by the spec; codes never leave it today (no transitions are specified). */
export const STATUS_NAMES: Record<number, string> = { 1: 'Available' };

/** An unnamed value reads as "". */
export const typeName = (type: number): string => TYPE_NAMES[type] ?? '';
export const statusName = (status: number): string => STATUS_NAMES[status] ?? '';
