// REST endpoints of spec 4.1: validate paging, call one service function, serialize.
import { Type } from '@sinclair/typebox';
import { countEndpoint, docsOnly, type Endpoint, listEndpoint } from '../../rest/endpoint.js';
import { DataBody, Obj } from '../../rest/schemas.js';
import { hierarchyFilterRules, locationFilterRules, locationWriteRules } from './locations.inputs.js';
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
  listLocationRows,
  locationHierarchy,
  updateLocation,
} from './locations.service.js';

export const list = listEndpoint({
  summary: 'List locations (name, status, page, per_page)',
  action: 'locations.list',
  item: LocationListItemSchema,
  filters: locationFilterRules,
  list: listLocationRows,
  serialize: locationListItem,
});

export const count = countEndpoint({
  summary: 'Count locations (name, status)',
  action: 'locations.list',
  filters: locationFilterRules,
  count: countLocations,
});

export const hierarchy: Endpoint = {
  summary: 'Locations with buildings, floors and zones',
  action: 'locations.hierarchy',
  filters: hierarchyFilterRules,
  response: Obj({ data: Type.Array(HierarchyItemSchema) }),
  async handle({ ctx, query }) {
    const rows = await locationHierarchy(ctx, query);
    const opts = {
      withCoordinates: String(query.with_coordinates) === '1',
      scaleFloors: String(query.scale_floor_dimensions) === '1',
    };
    return { data: rows.map((l) => hierarchyItem(l, opts)) };
  },
};

export const create: Endpoint = {
  summary: 'Create a location',
  action: 'locations.create',
  status: 201,
  body: () => locationWriteRules(docsOnly.prisma, docsOnly.scope),
  response: DataBody(LocationDetailSchema),
  async handle({ ctx, body }) {
    return { data: locationDetail(await createLocation(ctx, body)) };
  },
};

export const update: Endpoint = {
  summary: 'Update a location',
  action: 'locations.update',
  body: () => locationWriteRules(docsOnly.prisma, docsOnly.scope),
  response: DataBody(LocationDetailSchema),
  async handle({ ctx, params, body }) {
    return { data: locationDetail(await updateLocation(ctx, params.id ?? '', body)) };
  },
};
