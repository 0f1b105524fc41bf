// Records as JSON documents in PostgreSQL (jsonb), losslessly: a record's int64 ids are bigints,
// whatever their size, and JSON has no such type, so each is written as {"$bigint": "digits"}
// and read back as a bigint; every other value is plain JSON (amounts and epoch-ms times are
// exact doubles). No record has a "$bigint" key of its own (they are the sandbox's, not the
// caller's free-form objects), so the form cannot be mistaken.
const TAG = "$bigint";

export function encodeRecord(record: unknown): string {
  return JSON.stringify(record, (_key, value: unknown) => (typeof value === "bigint" ? { [TAG]: value.toString() } : value));
}

export function decodeRecord<T>(text: string): T {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const tagged = (value as Record<string, unknown>)[TAG];
      if (typeof tagged === "string" && Object.keys(value).length === 1) return BigInt(tagged);
    }
    return value;
  }) as T;
}
