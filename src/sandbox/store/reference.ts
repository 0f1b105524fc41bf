// The fixtures' reference records (apps, API keys, merchants, stores, card templates) as every
// store answers them: read only while the sandbox runs, so held in memory and read
// synchronously, whichever store keeps the records requests create.
import type { SandboxFixtures } from "../fixtures/load.js";
import type { ReferenceRecords } from "./types.js";

function byKey<K, T>(records: readonly T[], key: (record: T) => K): Map<K, T> {
  return new Map(records.map((record) => [key(record), record]));
}

export function createReferenceRecords(fixtures: SandboxFixtures): ReferenceRecords {
  // A private copy: what the caller does to its fixtures later changes nothing here.
  const data = structuredClone(fixtures);
  const apps = byKey(data.apps, (app) => app.appKey);
  const apiKeys = byKey(data.apiKeys, (key) => key.apiKey);
  const merchants = byKey(data.merchants, (merchant) => merchant.id);
  const stores = byKey(data.stores, (store) => store.id);
  const templates = byKey(data.cardTemplates, (template) => template.id);
  return {
    app: (appKey) => apps.get(appKey),
    apps: () => data.apps,
    apiKey: (key) => apiKeys.get(key),
    merchant: (id) => merchants.get(id),
    merchants: () => data.merchants,
    store: (id) => stores.get(id),
    stores: () => data.stores,
    cardTemplate: (id) => templates.get(id),
    cardTemplates: () => data.cardTemplates,
  };
}
