// REST endpoints of spec 4.1: validate paging, call one service function, serialize.
import type { Endpoint } from '../../rest/endpoint.js';
import { listEnvelope, pageRequest, pageRules } from '../../rest/pagination.js';
import { hierarchyItem, locationDetail, locationListItem } from './locations.serializer.js';
import {
  countLocations,
  createLocation,
  listLocations,
  locationHierarchy,
  updateLocation,
} from './locations.service.js';

export const list: Endpoint = {
  summary: 'List locations (name, status, page, per_page)',
  query: pageRules(),
  async handle({ ctx, query, envelope }) {
    const page = pageRequest(query);
    const rows = await listLocations(ctx, query, { skip: page.skip, take: page.take });
    return listEnvelope(envelope, page, rows.map(locationListItem));
  },
};

export const count: Endpoint = {
  summary: 'Count locations (name, status)',
  async handle({ ctx, query }) {
    return { count: await countLocations(ctx, query) };
  },
};

export const hierarchy: Endpoint = {
  summary: 'Locations with buildings, floors and zones',
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
  status: 201,
  async handle({ ctx, body }) {
    return { data: locationDetail(await createLocation(ctx, body)) };
  },
};

export const update: Endpoint = {
  summary: 'Update a location',
  async handle({ ctx, params, body }) {
    return { data: locationDetail(await updateLocation(ctx, params.id ?? '', body)) };
  },
};
