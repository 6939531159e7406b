/**
 * mirror_audit: appends several entries to the global audit stream in one call, so that a
 * transition that wrote two trail entries, or a sweep that expired a thousand gates, costs one
 * command rather than one XADD each. The stream is one key: Cluster-safe.
 * KEYS: [1] the audit stream
 * ARGV: [1] approximate cap (XADD MAXLEN ~), then per entry: n, then n strings (field, value...)
 * Returns the number of entries added
 */
export const MIRROR_AUDIT_LUA = `
local i, added = 2, 0
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', unpack(ARGV, i + 1, i + n))
  i = i + n + 1
  added = added + 1
end
return added
`;
