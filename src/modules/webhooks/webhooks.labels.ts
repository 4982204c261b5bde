// Why a webhook endpoint is disabled, as every surface shows it (REST, GraphQL, events).
export const DISABLED_REASONS = ['manual', 'gone', 'failing'] as const;

export type DisabledReason = (typeof DISABLED_REASONS)[number];
