// REST endpoints of the retention settings (beyond the spec): `GET`/`PUT /settings/retention`.
import { endpointOf } from '../../rest/operation-endpoint.js';
import { DataBody } from '../../rest/schemas.js';
import { RetentionSettingsSchema, retentionSettingsItem } from './retention.serializer.js';
import { updateRetentionSettings, viewRetentionSettings } from './retention.service.js';

export const show = endpointOf(viewRetentionSettings, {
  summary: "The current tenant's data-retention settings (null: off)",
  from: 'query',
  response: DataBody(RetentionSettingsSchema),
  answer: (settings) => ({ data: retentionSettingsItem(settings) }),
});

export const update = endpointOf(updateRetentionSettings, {
  summary: 'Change the data-retention settings: the fields sent change, null turns one off',
  response: DataBody(RetentionSettingsSchema),
  answer: (settings) => ({ data: retentionSettingsItem(settings) }),
});
