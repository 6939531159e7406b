/**
 * mirror_audit: appends several entries to the global audit stream in one call, so that a
 * transition that wrote two trail entries, or a sweep that expired a thousand gates, costs one
 * command rather than one XADD each. The stream is one key: Cluster-safe.
 * KEYS: [1] the audit stream
 * ARGV: [1] approximate cap (XADD MAXLEN ~; 0: none, the retention trims it by age), then per
 *   entry: n, then n strings (field, value...)
 * Returns the number of entries added
 */
export const MIRROR_AUDIT_LUA = `
local i, added = 2, 0
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  if ARGV[1] == '0' then
    redis.call('XADD', KEYS[1], '*', unpack(ARGV, i + 1, i + n))
  else
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', unpack(ARGV, i + 1, i + n))
  end
  i = i + n + 1
  added = added + 1
end
return added
`;
