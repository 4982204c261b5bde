// The retention settings in the graph: `retentionSettings` (REST `GET /settings/retention`) and
// `updateRetentionSettings` (REST `PUT /settings/retention`), through the same operations.
import { requires } from '../../auth/permissions.js';
import { toRestInput } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import { inputTypeOf } from '../../graphql/operation-fields.js';
import { execute } from '../../operations/operation.js';
import { retentionFields } from './retention.inputs.js';
import {
  type RetentionSettingsView,
  updateRetentionSettings,
  viewRetentionSettings,
} from './retention.service.js';

const RetentionSettings = builder.objectRef<RetentionSettingsView>('RetentionSettings').implement({
  description:
    "The current tenant's data-retention settings, applied by the retention sweeper; null is off (the default).",
  fields: (t) => ({
    anonymizeInactiveGuestsAfterMonths: t.exposeInt('anonymizeInactiveGuestsAfterMonths', {
      nullable: true,
      description: 'Guests inactive for this many months are anonymised (erased, as `eraseGuest` does)',
    }),
    deletePresenceRecordsAfterDays: t.exposeInt('deletePresenceRecordsAfterDays', {
      nullable: true,
      description: 'Presence records seen more than this many days ago are deleted',
    }),
    deleteLocationLogsAfterDays: t.exposeInt('deleteLocationLogsAfterDays', {
      nullable: true,
      description: 'Location logs that began more than this many days ago are deleted',
    }),
    deleteGuestSessionsAfterDays: t.exposeInt('deleteGuestSessionsAfterDays', {
      nullable: true,
      description: 'Guest sessions that ended more than this many days ago are deleted (open ones stay)',
    }),
    updatedAt: t.expose('updatedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the settings were last saved; null until then',
    }),
  }),
});

const RetentionSettingsInput = inputTypeOf(
  'RetentionSettingsInput',
  'Checked by the same rules as REST `PUT /settings/retention`: the fields given change, null turns one off.',
  retentionFields,
);

builder.queryFields((t) => ({
  retentionSettings: t.field({
    ...requires(viewRetentionSettings.action),
    type: RetentionSettings,
    description: "The current tenant's data-retention settings (REST `GET /settings/retention`).",
    resolve: (_root, _args, ctx) => execute(viewRetentionSettings, ctx, {}),
  }),
}));

builder.mutationFields((t) => ({
  updateRetentionSettings: t.field({
    ...requires(updateRetentionSettings.action),
    type: RetentionSettings,
    description: 'Changes the data-retention settings given (REST `PUT /settings/retention`).',
    args: { input: t.arg({ type: RetentionSettingsInput, required: true }) },
    resolve: (_root, args, ctx) => execute(updateRetentionSettings, ctx, toRestInput(args.input)),
  }),
}));
