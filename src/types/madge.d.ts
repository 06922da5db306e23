// madge ships no types; the part of its API the architecture test uses.
declare module 'madge' {
  interface MadgeConfig {
    fileExtensions?: string[];
    tsConfig?: string;
    excludeRegExp?: RegExp[];
    detectiveOptions?: Record<string, unknown>;
  }
  interface MadgeResult {
    /** File (relative to the base directory) -> the files it imports. */
    obj(): Record<string, string[]>;
  }
  export default function madge(path: string, config?: MadgeConfig): Promise<MadgeResult>;
}
