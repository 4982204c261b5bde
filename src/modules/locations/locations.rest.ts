// REST endpoints of spec 4.1: the location operations (locations.service.ts) with REST's paging,
// status and serializers.
import { Type } from '@sinclair/typebox';
import { rulesOf } from '../../operations/operation.js';
import type { Endpoint } from '../../rest/endpoint.js';
import { countEndpointOf, endpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { DataBody, Obj } from '../../rest/schemas.js';
import {
  HierarchyItemSchema,
  hierarchyItem,
  LocationDetailSchema,
  LocationListItemSchema,
  locationDetail,
  locationListItem,
} from './locations.serializer.js';
import {
  countLocations,
  createLocation,
  hierarchyQuery,
  listLocations,
  locationHierarchy,
  locationListSelect,
  locationsQuery,
  updateLocation,
} from './locations.service.js';

export const list = listEndpointOf(locationsQuery, {
  summary: 'List locations (name, status, page, per_page)',
  item: LocationListItemSchema,
  read: (ctx, q, page) => listLocations(ctx, q, { ...page, select: locationListSelect }),
  serialize: locationListItem,
});

export const count = countEndpointOf(locationsQuery, {
  summary: 'Count locations (name, status)',
  count: countLocations,
});

export const hierarchy: Endpoint = {
  summary: 'Locations with buildings, floors and zones',
  action: hierarchyQuery.action,
  filters: rulesOf(hierarchyQuery.filters),
  response: Obj({ data: Type.Array(HierarchyItemSchema) }),
  async handle({ ctx, query }) {
    const rows = await locationHierarchy(ctx, await hierarchyQuery.query(ctx, query));
    // The options once valid (`integer`, in 0 or 1): whatever spelling of 1 the rule took (`+1`,
    // ` 1 `) is 1, as PHP's `== 1` reads it; only `1` itself was (probe O: accepted, then ignored).
    const isOne = (v: unknown) => v != null && Number(String(v).trim()) === 1;
    const opts = {
      withCoordinates: isOne(query.with_coordinates),
      scaleFloors: isOne(query.scale_floor_dimensions),
    };
    return { data: rows.map((l) => hierarchyItem(l, opts)) };
  },
};

export const create = endpointOf(createLocation, {
  summary: 'Create a location',
  status: 201,
  response: DataBody(LocationDetailSchema),
  answer: (location) => ({ data: locationDetail(location) }),
});

export const update = endpointOf(updateLocation, {
  summary: 'Update a location',
  response: DataBody(LocationDetailSchema),
  answer: (location) => ({ data: locationDetail(location) }),
});
