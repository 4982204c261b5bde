// The schema entry: imports every resource's types and builds the schema once.
import { builder } from './builder.js';
import '../modules/locations/locations.graphql.js';
import '../modules/advertisements/advertisements.graphql.js';
import '../modules/service-profiles/service-profiles.graphql.js';
import '../modules/access-codes/access-codes.graphql.js';
import '../modules/tenants/tenants.graphql.js';
import '../modules/users/users.graphql.js';
import '../modules/guests/guests.graphql.js';
import '../modules/guests/guests.privacy.graphql.js';
import '../modules/guests/guests.import.graphql.js';
import '../modules/guest-devices/guest-devices.graphql.js';
import '../modules/guest-sessions/guest-sessions.graphql.js';
import '../modules/analytics/analytics.graphql.js';
import '../modules/api-tokens/api-tokens.graphql.js';
import '../modules/retention/retention.graphql.js';
import '../modules/webhooks/webhooks.graphql.js';
import '../modules/audit-logs/audit-logs.graphql.js';
import '../modules/events/events.graphql.js';

export const schema = builder.toSchema({ sortSchema: false });
