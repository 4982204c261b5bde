// The schema entry: imports every resource's types and builds the schema once.
import { builder } from './builder.js';
import '../modules/locations/locations.graphql.js';
import '../modules/guests/guests.graphql.js';

export const schema = builder.toSchema({ sortSchema: false });
