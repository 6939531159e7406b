/**
 * pause_version: the sum of a pause's and its gates' `version` fields, read at once: what
 * `viewVersion` (records.ts) computes from a decoded view, without reading the records.
 * KEYS: [1] pause hash, [2..] its gate hashes
 * Returns the sum | -1 when a key is gone or its version is not a number
 */
export const PAUSE_VERSION_LUA = `
local sum = 0
for i = 1, #KEYS do
  local version = tonumber(redis.call('HGET', KEYS[i], 'version') or '')
  if not version then return -1 end
  sum = sum + version
end
return sum
`;
