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
    // The options as sent (once valid): `1` exactly, as the legacy endpoint compared them.
    const opts = {
      withCoordinates: String(query.with_coordinates) === '1',
      scaleFloors: String(query.scale_floor_dimensions) === '1',
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
