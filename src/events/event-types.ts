// Every type of event the log holds (src/events/outbox.ts), named `<resource>.<what happened>`.
// Webhook subscriptions validate against this list, so a type is added here before it is emitted.

export const EVENT_TYPES = [
  // Guests (REST /guests, GraphQL createGuest/updateGuest/eraseGuest).
  'guest.created',
  'guest.updated',
  'guest.erased',
  // The ingest and the captive portal's redeem: Wi-Fi and BLE traffic.
  'device.first_seen',
  'guest_session.started',
  'guest_session.ended',
  'presence.zone_entered',
  'presence.zone_left',
  'presence.location_entered',
  'presence.location_left',
  // Vouchers.
  'access_code.created',
  'access_code.used',
  'access_code.revoked',
  // Venues: locations are written through the API (buildings, floors and zones are not yet).
  'location.created',
  'location.updated',
  // Tenants of the caller's group (activation and deactivation are updates of `is_trashed`).
  'tenant.created',
  'tenant.updated',
  // Dashboard users (activation, deactivation and a tenant switch are updates).
  'user.created',
  'user.updated',
  // Webhook endpoints (the signing secret never appears in an event); `webhook.disabled`: the
  // service disabled one (its receiver answered 410, or it failed for days).
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.disabled',
  // API keys (the secret never appears in an event).
  'api_token.created',
  'api_token.revoked',
  // The tenant's data-retention settings (PUT /settings/retention): what the retention sweeper deletes.
  'retention_settings.updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const known: ReadonlySet<string> = new Set(EVENT_TYPES);

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && known.has(value);
}

/** What an event is about: the resource's singular REST name. */
export type ResourceType =
  | 'guest'
  | 'guest_device'
  | 'guest_session'
  | 'presence'
  | 'access_code'
  | 'location'
  | 'tenant'
  | 'user'
  | 'webhook'
  | 'api_token'
  | 'retention_settings';

/**
 * Where other resources' events copy a resource's personal data, so that its erasure reaches them:
 * in events of `types` whose payload's `idKey` names the erased resource, the `blank` fields are
 * emptied (and in their audit entries shown as "[erased]").
 */
export const MENTIONS: Partial<
  Record<
    ResourceType,
    readonly {
      readonly resourceType: ResourceType;
      readonly types: readonly EventType[];
      readonly idKey: string;
      readonly blank: readonly string[];
    }[]
  >
> = {
  guest: [
    {
      resourceType: 'access_code',
      types: ['access_code.created', 'access_code.used', 'access_code.revoked'],
      idKey: 'guest_id',
      blank: ['guest_name'],
    },
    {
      resourceType: 'guest_device',
      types: ['device.first_seen'],
      idKey: 'guest_id',
      blank: ['partner_id', 'mac', 'ip', 'user_agent', 'description'],
    },
    {
      resourceType: 'guest_session',
      types: ['guest_session.started', 'guest_session.ended'],
      idKey: 'guest_id',
      blank: ['partner_id', 'guest_device_mac', 'guest_device_ip', 'guest_device_description'],
    },
    {
      // The ingest's entries and leaves of a device the guest owned (src/modules/ingest/ingest.events.ts).
      resourceType: 'presence',
      types: [
        'presence.zone_entered',
        'presence.zone_left',
        'presence.location_entered',
        'presence.location_left',
      ],
      idKey: 'guest_id',
      blank: ['mac'],
    },
  ],
};

/**
 * Where events copy a device's MAC, whoever owned the device then (no one yet, or another guest): a
 * guest's erasure empties these keys in every event holding one of its devices' MACs, as it replaces
 * the MACs in every table (src/modules/guests/guests.privacy.ts).
 */
export const MAC_KEYS: readonly string[] = ['mac', 'guest_device_mac'];

/** The types of a resource's own events (`guest` → guest.created, guest.updated, guest.erased). */
export const typesOf = (resourceType: ResourceType): EventType[] =>
  EVENT_TYPES.filter((t) => t.startsWith(`${resourceType}.`));
