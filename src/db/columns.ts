// Validated input (API field names) to Prisma data (column names).

/** The fields of `valid` that `columns` names, under their column names; other fields are left out. */
export function renameFields<C extends string>(
  valid: Record<string, unknown>,
  columns: Readonly<Record<string, C>>,
): Partial<Record<C, unknown>> {
  const data: Partial<Record<C, unknown>> = {};
  for (const [field, value] of Object.entries(valid)) {
    const column = columns[field];
    if (column) data[column] = value;
  }
  return data;
}
