// The exact shapes of spec 2.1 and 2.2, keys in the spec's order.
import { Type } from '@sinclair/typebox';
import type { Location } from '../../generated/prisma/client.js';
import { phpFloat } from '../../rest/php-json.js';
import { Bool, Float, Id, Nullable, Obj, Str } from '../../rest/schemas.js';
import { decimalText } from '../../shared/format.js';
import { scaleFloorDimensions, zonePoints } from './locations.geometry.js';
import type { LocationListRow, LocationTree } from './locations.service.js';

export function locationListItem(l: LocationListRow) {
  return {
    id: l.id,
    name: l.name,
    description: l.description,
    login_page_name: l.loginPageName,
    login_page_id: l.loginPageId,
    post_login_page_name: l.postLoginPageName,
    post_login_page_id: l.postLoginPageId,
    is_trashed: l.isTrashed,
  };
}

export function locationDetail(l: Location) {
  return {
    id: l.id,
    name: l.name,
    description: l.description,
    address: l.address,
    post_code: l.postCode,
    city: l.city,
    state: l.state,
    country_code: l.countryCode,
    lat: phpFloat(l.lat),
    lng: phpFloat(l.lng),
    is_trashed: l.isTrashed,
  };
}

// As Laravel's decimal columns read: never in exponent form (String(1e-7) is `1e-7`).
const coordinateText = (n: number | null): string | null => (n === null ? null : decimalText(n));

export function hierarchyItem(l: LocationTree, opts: { withCoordinates: boolean; scaleFloors: boolean }) {
  return {
    id: l.id,
    name: l.name,
    lat: coordinateText(l.lat),
    lng: coordinateText(l.lng),
    buildings: l.buildings.map((b) => ({
      id: b.id,
      name: b.name,
      lat: coordinateText(b.lat),
      lng: coordinateText(b.lng),
      floors: b.floors.map((f) => {
        const dims = opts.scaleFloors
          ? scaleFloorDimensions(f.width, f.length)
          : { width: f.width, length: f.length };
        return {
          id: f.id,
          name: f.name,
          image: { name: f.imageUrl, width: f.imageWidth, height: f.imageHeight },
          dimensions: { width: phpFloat(dims.width), length: phpFloat(dims.length) },
          zones: f.zones.map((z) => ({
            id: z.id,
            name: z.name,
            ...(opts.withCoordinates
              ? {
                  coordinates: zonePoints(z.coordinates).map((p) => ({ x: phpFloat(p.x), y: phpFloat(p.y) })),
                }
              : {}),
          })),
        };
      }),
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

export const LocationListItemSchema = Obj(
  {
    id: Id(),
    name: Str(),
    description: Nullable(Str()),
    login_page_name: Nullable(Str()),
    login_page_id: Nullable(Str()),
    post_login_page_name: Nullable(Str()),
    post_login_page_id: Nullable(Str()),
    is_trashed: Bool(),
  },
  'LocationListItem',
);

export const LocationDetailSchema = Obj(
  {
    id: Id(),
    name: Str(),
    description: Nullable(Str()),
    address: Nullable(Str()),
    post_code: Nullable(Str()),
    city: Nullable(Str()),
    state: Nullable(Str()),
    country_code: Nullable(Str()),
    lat: Nullable(Float()),
    lng: Nullable(Float()),
    is_trashed: Bool(),
  },
  'LocationDetail',
);

const Coordinate = () => Nullable(Str('A decimal number as text.'));

export const HierarchyItemSchema = Obj(
  {
    id: Id(),
    name: Str(),
    lat: Coordinate(),
    lng: Coordinate(),
    buildings: Type.Array(
      Obj(
        {
          id: Id(),
          name: Str(),
          lat: Coordinate(),
          lng: Coordinate(),
          floors: Type.Array(
            Obj(
              {
                id: Id(),
                name: Str(),
                image: Obj({
                  name: Nullable(Str()),
                  width: Nullable(Type.Integer()),
                  height: Nullable(Type.Integer()),
                }),
                dimensions: Obj({ width: Float(), length: Float() }),
                zones: Type.Array(
                  Obj(
                    {
                      id: Id(),
                      name: Str(),
                      coordinates: Type.Optional(
                        Type.Array(Obj({ x: Float(), y: Float() }), {
                          description: 'Only with `with_coordinates=1`.',
                        }),
                      ),
                    },
                    'HierarchyZone',
                  ),
                ),
              },
              'HierarchyFloor',
            ),
          ),
        },
        'HierarchyBuilding',
      ),
    ),
  },
  'HierarchyLocation',
);
