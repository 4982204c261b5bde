// Query strings read as PHP's parse_str reads them, so filters judge the values Laravel's would:
// `a[]=1&a[]=2` is a list, `a[b]=1` a map, and a repeated plain key keeps its last value
// (`per_page=10&per_page=20` is 20). Limits as PHP's defaults: 1000 variables, nesting 64.
import qs from 'qs';

export function parsePhpQuery(text: string): Record<string, unknown> {
  return qs.parse(text, {
    duplicates: 'last',
    parameterLimit: 1000,
    arrayLimit: 1000,
    depth: 64,
    plainObjects: true,
  });
}
