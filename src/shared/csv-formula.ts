// Formula injection in CSV files (OWASP "CSV injection"): a cell a spreadsheet would read as a
// formula is written with a leading `'`, and read back without it. A cell already starting with
// quotes before such a character gets one more, so that reading drops exactly what writing added:
// `=SUM(A1)` ↔ `'=SUM(A1)`, `'=x` ↔ `''=x`; `'Tis` stays as it is both ways.

/** Text a spreadsheet may read as a formula: `=`, `+`, `-`, `@`, tab or CR, after any quotes. */
const FORMULA = /^'*[=+\-@\t\r]/;

/** The cell's text as written to a CSV export. */
export function neutraliseFormula(text: string): string {
  return FORMULA.test(text) ? `'${text}` : text;
}

/** The value of a cell an export wrote (its added `'` dropped), as the import reads it. */
export function restoreFormula(cell: string): string {
  return cell.startsWith("'") && FORMULA.test(cell) ? cell.slice(1) : cell;
}
