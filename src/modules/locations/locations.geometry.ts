// Floor and zone geometry both transports show (REST's hierarchy, GraphQL's Floor and Zone).

export const FLOOR_GRID_LIMIT = 3000;

/**
 * A floor whose grid (width × length in whole meters) exceeds 3000 cells is scaled down by one
 * factor on both sides, keeping its aspect ratio, to the largest whole-meter grid that fits.
 */
export function scaleFloorDimensions(width: number, length: number): { width: number; length: number } {
  const w = Math.round(width);
  const l = Math.round(length);
  if (w <= 0 || l <= 0 || w * l <= FLOOR_GRID_LIMIT) return { width, length };
  let factor = Math.sqrt(FLOOR_GRID_LIMIT / (w * l));
  let sw = Math.max(1, Math.floor(w * factor));
  let sl = Math.max(1, Math.floor(l * factor));
  while (sw * sl > FLOOR_GRID_LIMIT) {
    factor *= 0.999;
    sw = Math.max(1, Math.floor(w * factor));
    sl = Math.max(1, Math.floor(l * factor));
  }
  return { width: sw, length: sl };
}

interface Point {
  x: number;
  y: number;
}

export function zonePoints(coordinates: unknown): Point[] {
  if (!Array.isArray(coordinates)) return [];
  return coordinates
    .filter((p): p is Point => typeof p === 'object' && p !== null && 'x' in p && 'y' in p)
    .map((p) => ({ x: Number(p.x), y: Number(p.y) }));
}
