// Types of scripts/build.mjs (plain JavaScript: it runs before any TypeScript is built).
/** dist/, where the build writes. */
export declare const DIST: string;
/** Builds dist/ from src/; resolves to how many files it wrote. */
export declare function buildDist(): Promise<number>;
